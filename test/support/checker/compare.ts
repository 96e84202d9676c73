import { canonicalJson, type NEntity, type NGraph, type NRelation, relationLabel } from "./model.js";

/**
 * The checker's comparison: a view's answer, put in the model's normal form, against the graph storage holds. Each
 * difference is one line naming the view, the item and both values.
 */

type Json = Record<string, unknown>;
const str = (value: unknown): string => (typeof value === "string" ? value : "");
const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);
const sortedStrings = (value: unknown): string[] => (Array.isArray(value) ? value.map(str).sort() : []);

/** The entity fields a view shows (search hits carry no metadata). */
export type EntityField = Exclude<keyof NEntity, "name">;
const ALL_ENTITY_FIELDS: readonly EntityField[] = ["entityType", "metadata", "observations", "tags", "observationTags"];
/** With the valid time and expiry too (a view asked with includeSuperseded). */
export const ENTITY_FIELDS_WITH_VALIDITY: readonly EntityField[] = [...ALL_ENTITY_FIELDS, "observationValidity", "expiry"];

/** An entity as a view returns it (read_graph, search hit, neighbour), in normal form. */
function entityOfView(e: Json): NEntity {
  const observationTags: Record<string, string[]> = {};
  for (const [content, tags] of Object.entries((e.observationTags as Record<string, unknown>) ?? {})) {
    observationTags[content] = sortedStrings(tags);
  }
  const observationValidity: Record<string, string> = {};
  for (const [content, validity] of Object.entries((e.observationValidity as Record<string, unknown>) ?? {})) {
    observationValidity[content] = canonicalJson(validity);
  }
  return {
    name: str(e.name),
    entityType: str(e.entityType),
    metadata: canonicalJson(e.metadata ?? {}),
    observations: sortedStrings(e.observations),
    tags: sortedStrings(e.tags),
    observationTags,
    observationValidity,
    expiry: validityOfView(e, ["expiresAt", "pinned"]),
  };
}

/** The validity fields a view shows on an item, as canonical JSON ("" for none), as the model gives them. */
function validityOfView(item: Json, fields: readonly string[]): string {
  const shown = Object.fromEntries(fields.filter((field) => item[field] !== undefined).map((field) => [field, item[field]]));
  return Object.keys(shown).length === 0 ? "" : canonicalJson(shown);
}

/** A relation as a view returns it, in normal form. */
export const relationOfView = (r: Json): NRelation => ({
  from: str(r.from),
  to: str(r.to),
  relationType: str(r.relationType),
  metadata: canonicalJson(r.metadata ?? {}),
  validity: validityOfView(r, ["validFrom", "validTo", "expiresAt", "pinned", "status"]),
});

/** A graph-shaped answer ({entities, relations}) in normal form; tags are not part of it. */
export function graphOfView(answer: { entities?: unknown; relations?: unknown }): NGraph {
  const entities = new Map(list(answer.entities).map((e) => [str(e.name), entityOfView(e)]));
  const relations = new Map(
    list(answer.relations)
      .map((r) => relationOfView(r))
      .map((r) => [relationLabel(r), r]),
  );
  return { entities, relations, tags: new Map() };
}

const MAX_LINES_PER_VIEW = 6;

/** The differences between two keyed sets of values (each value already canonical), at most a few lines. */
export function diffKeyed(view: string, what: string, expected: Map<string, string>, observed: Map<string, string>): string[] {
  const lines: string[] = [];
  for (const [key, value] of expected) {
    const seen = observed.get(key);
    if (seen === undefined) lines.push(`${view}: ${what} ${key} is missing (storage: ${value})`);
    else if (seen !== value) lines.push(`${view}: ${what} ${key} differs: storage ${value}, view ${seen}`);
  }
  for (const [key, value] of observed) if (!expected.has(key)) lines.push(`${view}: ${what} ${key} is not in storage (view: ${value})`);
  return lines.length <= MAX_LINES_PER_VIEW
    ? lines
    : [...lines.slice(0, MAX_LINES_PER_VIEW), `${view}: … and ${lines.length - MAX_LINES_PER_VIEW} more`];
}

const clip = (items: readonly string[]): string =>
  `[${items.slice(0, 5).join(", ")}${items.length > 5 ? `, … ${items.length - 5} more` : ""}]`;

/** How one field of an entity differs: lists by what each side lacks, scalars side by side; undefined when equal. */
function fieldDiff(field: EntityField, stored: NEntity, seen: NEntity): string | undefined {
  const a = stored[field];
  const b = seen[field];
  if (canonicalJson(a) === canonicalJson(b)) return undefined;
  if (Array.isArray(a) && Array.isArray(b)) {
    const lacks = a.filter((x) => !b.includes(x));
    const extra = b.filter((x) => !a.includes(x));
    return `${field}${lacks.length > 0 ? ` view lacks ${clip(lacks)}` : ""}${extra.length > 0 ? ` view has extra ${clip(extra)}` : ""}`;
  }
  return `${field} storage ${canonicalJson(a)}, view ${canonicalJson(b)}`;
}

/** The entities' differences, one line per entity, each naming the fields that differ. */
function diffEntities(view: string, expected: NGraph, observed: NGraph, fields: readonly EntityField[]): string[] {
  const lines: string[] = [];
  for (const [name, stored] of expected.entities) {
    const seen = observed.entities.get(name);
    if (!seen) lines.push(`${view}: entity ${name} is missing (storage has it, with ${stored.observations.length} observations)`);
    else {
      const fieldLines = fields.map((field) => fieldDiff(field, stored, seen)).filter((line) => line !== undefined);
      if (fieldLines.length > 0) lines.push(`${view}: entity ${name} differs: ${fieldLines.join("; ")}`);
    }
  }
  for (const [name, seen] of observed.entities) {
    if (!expected.entities.has(name))
      lines.push(`${view}: entity ${name} is not in storage (view: ${seen.observations.length} observations)`);
  }
  return lines.length <= MAX_LINES_PER_VIEW
    ? lines
    : [...lines.slice(0, MAX_LINES_PER_VIEW), `${view}: … and ${lines.length - MAX_LINES_PER_VIEW} more`];
}

/** The entities (the given fields; unless `entities` is false) and relations (unless `relations` is false) of `observed` against `expected`. */
export function diffGraphs(
  view: string,
  expected: NGraph,
  observed: NGraph,
  options: { fields?: readonly EntityField[]; entities?: boolean; relations?: boolean; validity?: boolean } = {},
): string[] {
  const relations = (g: NGraph) =>
    new Map(
      [...g.relations].map(([label, r]) => [label, `metadata ${r.metadata}${options.validity ? ` validity ${r.validity ?? ""}` : ""}`]),
    );
  return [
    ...(options.entities === false ? [] : diffEntities(view, expected, observed, options.fields ?? ALL_ENTITY_FIELDS)),
    ...(options.relations === false ? [] : diffKeyed(view, "relation", relations(expected), relations(observed))),
  ];
}

/** The counts get_stats reports, as storage gives them. */
export function statsOf(graph: NGraph): Map<string, string> {
  const count = (values: string[]) => {
    const counts = new Map<string, number>();
    for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
    return canonicalJson(Object.fromEntries([...counts].sort()));
  };
  const entities = [...graph.entities.values()];
  const tagsInUse = entities.flatMap((e) => [...e.tags, ...Object.values(e.observationTags).flat()]);
  return new Map([
    ["entities", String(entities.length)],
    ["relations", String(graph.relations.size)],
    ["observations", String(entities.reduce((sum, e) => sum + e.observations.length, 0))],
    ["tags", String(new Set([...graph.tags.keys(), ...tagsInUse]).size)],
    ["entityTypes", count(entities.map((e) => e.entityType))],
    ["relationTypes", count([...graph.relations.values()].map((r) => r.relationType))],
  ]);
}

/** get_stats's answer in the form statsOf gives. */
export function statsOfView(answer: Json): Map<string, string> {
  const counts = (items: unknown, key: string) =>
    canonicalJson(
      Object.fromEntries(
        list(items)
          .map((i) => [str(i[key]), i.count] as [string, unknown])
          .sort(),
      ),
    );
  return new Map([
    ["entities", String(answer.entities)],
    ["relations", String(answer.relations)],
    ["observations", String(answer.observations)],
    ["tags", String(answer.tags)],
    ["entityTypes", counts(answer.entityTypes, "entityType")],
    ["relationTypes", counts(answer.relationTypes, "relationType")],
  ]);
}

/** Tag definitions (get_all_tags) by name. */
export const tagsOf = (graph: NGraph): Map<string, string> =>
  new Map([...graph.tags].map(([name, t]) => [name, canonicalJson({ category: t.category, description: t.description })]));
export const tagsOfView = (answer: Json): Map<string, string> =>
  new Map(list(answer.tags).map((t) => [str(t.name), canonicalJson({ category: str(t.category), description: str(t.description) })]));

/** Per tag in use, how many entities and observations carry it (get_tag_usage, tags with no use left out). */
export function tagUsageOf(graph: NGraph): Map<string, string> {
  const usage = new Map<string, { entities: number; observations: number }>();
  const bump = (tag: string, field: "entities" | "observations") => {
    const u = usage.get(tag) ?? { entities: 0, observations: 0 };
    u[field] += 1;
    usage.set(tag, u);
  };
  for (const e of graph.entities.values()) {
    for (const tag of e.tags) bump(tag, "entities");
    for (const tag of Object.values(e.observationTags).flat()) bump(tag, "observations");
  }
  return new Map([...usage].map(([tag, u]) => [tag, canonicalJson(u)]));
}
export const tagUsageOfView = (answer: Json): Map<string, string> =>
  new Map(
    list(answer.tags)
      .filter((t) => Number(t.total) > 0)
      .map((t) => [str(t.name), canonicalJson({ entities: t.entities, observations: t.observations })]),
  );
