/**
 * What the viewer holds of a graph, and what a slice (app_expand, app_filter, show_memory_graph, a find_path result) adds
 * to it. Pure: no DOM, unit-tested (test/unit/viewerSlice.test.ts); graph.ts draws what these return.
 */

export interface NodeView {
  name: string;
  entityType: string;
  tags?: string[];
  degree?: number;
}
export interface EdgeView {
  from: string;
  to: string;
  relationType: string;
}

export const edgeKey = (r: EdgeView) => `${r.from}\n${r.relationType}\n${r.to}`;

/**
 * Adds a slice to what is held: returns the entities that are new, and the relations that are new and can be drawn (both
 * ends held). An entity already held keeps a known type when the slice does not know it ("" from a path step).
 */
export function mergeSlice(
  held: { entities: Map<string, NodeView>; relations: Map<string, EdgeView> },
  slice: { entities: NodeView[]; relations: EdgeView[] },
): { fresh: NodeView[]; links: EdgeView[] } {
  const fresh: NodeView[] = [];
  for (const entity of slice.entities) {
    const known = held.entities.get(entity.name);
    if (!known) fresh.push(entity);
    const entityType = entity.entityType === "" && known ? known.entityType : entity.entityType;
    held.entities.set(entity.name, known ? { ...known, ...entity, entityType } : entity);
  }
  const links: EdgeView[] = [];
  for (const relation of slice.relations) {
    const key = edgeKey(relation);
    if (held.relations.has(key)) continue;
    held.relations.set(key, relation);
    if (held.entities.has(relation.from) && held.entities.has(relation.to)) links.push(relation);
  }
  return { fresh, links };
}

/** find_path's `path` (entities and relations alternating) as the names and relations to highlight. */
export function pathParts(path: ({ kind: "entity"; name: string } | ({ kind: "relation" } & EdgeView))[]): {
  names: string[];
  relations: EdgeView[];
} {
  const names: string[] = [];
  const relations: EdgeView[] = [];
  for (const step of path) {
    if (step.kind === "entity") names.push(step.name);
    else relations.push({ from: step.from, to: step.to, relationType: step.relationType });
  }
  return { names, relations };
}

/** A path as one line of text: "A —depends_on→ B ←owns— C" (an arrow against the walk when the relation points back). */
export function pathText(parts: { names: string[]; relations: EdgeView[] }): string {
  let text = parts.names[0] ?? "";
  parts.relations.forEach((relation, i) => {
    const next = parts.names[i + 1] ?? "";
    text += relation.from === next ? ` ←${relation.relationType}— ${next}` : ` —${relation.relationType}→ ${next}`;
  });
  return text;
}
