import { entityId, relationIds, relationWrite } from "./ids.js";
import type { GraphStore, NewEntity, ObservationChange, RelationWrite } from "./store.js";
import { checkEntityInput, checkRelationInput, type EntityInput, type RelationInput } from "./validation.js";

/** An item of an import file, with the line it came from (for reports). */
export type Located<T> = T & { line: number };

export interface ImportInput {
  entities: Located<EntityInput>[];
  relations: Located<RelationInput>[];
}

export interface ImportReport {
  entitiesCreated: number;
  /** Entities the workspace had already (their missing observations are still added). */
  entitiesExisting: number;
  observationsAdded: number;
  relationsCreated: number;
  relationsExisting: number;
  /** Relations not written because an endpoint is neither in the file nor in the workspace. */
  missingEndpoints: { line: number; relation: RelationInput; missing: string[] }[];
}

/** done/total count entities and relations of the file (after merging repeats). */
export type ImportProgress = (done: number, total: number) => void;

/** addObservations reads one range per entity; this bounds the reads in flight. */
const ENTITIES_PER_ADD = 100;

/**
 * Merges a graph file into a workspace. It only adds: missing entities are created, missing
 * observations added, missing relations created; nothing stored is changed or removed. So running
 * it twice changes nothing the second time. One scan of the workspace tells what exists, so that the
 * writes are only what is missing, packed into transactions by the store.
 */
export async function importGraph(store: GraphStore, workspace: string, input: ImportInput, onProgress?: ImportProgress): Promise<ImportReport> {
  // The caller reports bad lines and leaves them out; this only guards the rule.
  input.entities.forEach((entity) => checkEntityInput(entity, `line ${entity.line}`));
  input.relations.forEach((relation) => checkRelationInput(relation, `line ${relation.line}`));
  const entities = mergeEntities(workspace, input.entities);
  const relations = [...new Map(input.relations.map((relation) => [relationIds(workspace, relation).id, relation])).values()];
  const total = entities.length + relations.length;
  let done = 0;
  const progress = (settled: number) => {
    done += settled;
    onProgress?.(done, total);
  };

  const storedObservations = new Map<string, Set<string>>();
  const storedRelations = new Set<string>();
  for await (const node of store.scanEntities(workspace)) {
    storedObservations.set(node.entity.id, new Set(node.entity.observations));
    for (const relation of node.relations) storedRelations.add(relation.id);
  }

  const fresh = entities.filter((entity) => !storedObservations.has(entity.id));
  progress(entities.length - fresh.length);
  const { created } = await store.createEntities(workspace, fresh, progress);
  const createdIds = new Set(created);

  // Entities that existed (or were created concurrently meanwhile) get the observations they lack.
  const changes: ObservationChange[] = entities
    .filter((entity) => !createdIds.has(entity.id))
    .map((entity) => {
      const stored = storedObservations.get(entity.id);
      return { entityId: entity.id, contents: stored ? entity.observations.filter((content) => !stored.has(content)) : entity.observations };
    })
    .filter((change) => change.contents.length > 0);
  let observationsAdded = fresh.filter((entity) => createdIds.has(entity.id)).reduce((sum, entity) => sum + entity.observations.length, 0);
  for (let start = 0; start < changes.length; start += ENTITIES_PER_ADD) {
    const { added } = await store.addObservations(workspace, changes.slice(start, start + ENTITIES_PER_ADD));
    for (const contents of added.values()) observationsAdded += contents.length;
  }

  const present = new Set([...storedObservations.keys(), ...entities.map((entity) => entity.id)]);
  const report: ImportReport = {
    entitiesCreated: created.length,
    entitiesExisting: entities.length - created.length,
    observationsAdded,
    relationsCreated: 0,
    relationsExisting: 0,
    missingEndpoints: [],
  };
  const candidates: { write: RelationWrite; source: Located<RelationInput> }[] = [];
  for (const relation of relations) {
    const write = relationWrite(workspace, relation);
    const missing = [...new Set([relation.from, relation.to])].filter((name) => !present.has(entityId(workspace, name)));
    if (storedRelations.has(write.id)) report.relationsExisting += 1;
    else if (missing.length > 0) report.missingEndpoints.push({ line: relation.line, relation: plainRelation(relation), missing });
    else candidates.push({ write, source: relation });
  }
  progress(relations.length - candidates.length);

  const outcome = await store.createRelations(
    workspace,
    candidates.map((candidate) => candidate.write),
    { allOrNothing: false, progress },
  );
  // Endpoints can only be missing here if something deleted them while the import ran.
  const vanished = new Set(outcome.missingEntityIds);
  const made = new Set(outcome.created);
  for (const { write, source } of candidates) {
    if (made.has(write.id)) continue;
    const missing = [write.fromEntityId, write.toEntityId].filter((id) => vanished.has(id));
    if (missing.length > 0) {
      report.missingEndpoints.push({ line: source.line, relation: plainRelation(source), missing: missing.map((id) => (id === write.fromEntityId ? source.from : source.to)) });
    } else {
      report.relationsExisting += 1; // created concurrently by someone else
    }
  }
  report.relationsCreated = outcome.created.length;
  report.missingEndpoints.sort((a, b) => a.line - b.line);
  return report;
}

/** Lines naming the same entity are one entity: the first type, and every observation once, in file order. */
function mergeEntities(workspace: string, entities: readonly Located<EntityInput>[]): NewEntity[] {
  const merged = new Map<string, NewEntity>();
  for (const entity of entities) {
    const known = merged.get(entity.name);
    if (known) known.observations = [...new Set([...known.observations, ...entity.observations])];
    else merged.set(entity.name, { id: entityId(workspace, entity.name), name: entity.name, entityType: entity.entityType, observations: [...new Set(entity.observations)] });
  }
  return [...merged.values()];
}

function plainRelation(relation: RelationInput): RelationInput {
  return { from: relation.from, to: relation.to, relationType: relation.relationType };
}
