import { forEachLimited } from "../model/concurrency.js";
import { ValidationError } from "../model/errors.js";
import { entityId, observationId, relationIds, relationWrite, tagId } from "../model/ids.js";
import { LIMITS } from "../model/limits.js";
import type { Actor, Entity, Relation, TagDefinition, Validity } from "../model/model.js";
import {
  checkEntityInput,
  checkEntityName,
  checkObservation,
  checkRelationInput,
  checkTagCategory,
  checkTagDescription,
  checkTagName,
  type EntityInput,
  parseTime,
  type RelationInput,
} from "../model/validation.js";
import type { GraphIndex } from "../ports/graphIndex.js";
import type { GraphStore, NewEntity, ObservationChange, RelationWrite, TagStore, TagTarget } from "../ports/store.js";
import { entityThroughLens, heldValidity, presentLens, relationShows, relationValidity } from "../rules/validity.js";

/** An item of an import file, with the line it came from (for reports). */
export type Located<T> = T & { line: number };

/** Tags on an entity, or on one of its observations (named by its exact text). */
export interface TaggingInput {
  entityName: string;
  observation?: string;
  tagNames: string[];
}

/**
 * The valid time and expiry of an entity (expiresAt, pinned), of one of its observations, or of one of its outgoing relations
 * (docs/history.md#two-times): a file's validity line. A superseded observation or an ended relation is only there.
 */
export interface ValidityLine {
  entityName: string;
  observation?: string;
  relation?: { to: string; relationType: string };
  validity: Validity;
}

export interface ImportInput {
  entities: Located<EntityInput>[];
  relations: Located<RelationInput>[];
  /** Tag definitions: created when the workspace lacks them; a tag it has keeps its category and description. */
  tags?: Located<TagDefinition>[];
  /** Tags to put on entities and observations (after the entities and observations are in). */
  taggings?: Located<TaggingInput>[];
  /** Valid times and expiries, applied last; an observation or relation they name that is missing is added first. */
  validities?: Located<ValidityLine>[];
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
  tagsCreated: number;
  /** Tag definitions the workspace had already (they keep their category and description). */
  tagsExisting: number;
  /** Tags put on an entity or observation that did not carry them. */
  tagLinksAdded: number;
  /** Taggings not applied because the entity, or the observation, is neither in the file nor in the workspace. */
  missingTagTargets: { line: number; entityName: string; observation?: string; missing: "entity" | "observation" }[];
  /** Validity lines applied (an entity's own, an observation's or a relation's times). */
  validitiesApplied: number;
  /** Validity lines not applied: their entity is neither in the file nor in the workspace (or went meanwhile). */
  missingValidityTargets: { line: number; entityName: string }[];
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
export async function importGraph(
  store: GraphStore,
  index: Pick<GraphIndex, "scanNodes" | "scanTags">,
  workspace: string,
  actor: Actor,
  input: ImportInput,
  onProgress?: ImportProgress,
): Promise<ImportReport> {
  // The caller reports bad lines and leaves them out; this only guards the rule.
  input.entities.forEach((entity) => checkEntityInput(entity, `line ${entity.line}`));
  input.relations.forEach((relation) => checkRelationInput(relation, `line ${relation.line}`));
  (input.tags ?? []).forEach((tag) => checkTagInput(tag, `line ${tag.line}`));
  (input.taggings ?? []).forEach((tagging) => checkTaggingInput(tagging, `line ${tagging.line}`));
  const validities = input.validities ?? [];
  validities.forEach((line) => checkValidityLine(line, `line ${line.line}`));
  // What a validity line names is written first, like any other line: a superseded observation or an ended relation is
  // only there (docs/import-export.md#valid-time-and-expiry).
  const named = validities.flatMap((line) => (line.observation === undefined ? [] : [{ ...line, observation: line.observation }]));
  const entities = mergeEntities(workspace, input.entities);
  const extraObservations = new Map<string, string[]>();
  const byName = new Map(entities.map((entity) => [entity.name, entity]));
  const inFile = new Set(entities.map((entity) => entity.id));
  for (const line of named) {
    const entity = byName.get(line.entityName);
    if (entity) {
      if (!entity.observations.includes(line.observation)) entity.observations.push(line.observation);
    } else extraObservations.set(line.entityName, [...(extraObservations.get(line.entityName) ?? []), line.observation]);
  }
  const relationLines = validities.flatMap((line) =>
    line.relation ? [{ from: line.entityName, to: line.relation.to, relationType: line.relation.relationType, line: line.line }] : [],
  );
  const relations = [
    ...new Map([...input.relations, ...relationLines].map((relation) => [relationIds(workspace, relation).id, relation])).values(),
  ];
  const tags = [...new Map((input.tags ?? []).map((tag) => [tag.name, tag])).values()];
  const taggings = mergeTaggings(workspace, input.taggings ?? []);
  const total = entities.length + relations.length + tags.length + taggings.length;
  let done = 0;
  const progress = (settled: number) => {
    done += settled;
    onProgress?.(done, total);
  };

  const storedObservations = new Map<string, Set<string>>();
  const storedRelations = new Set<string>();
  for await (const node of index.scanNodes(workspace)) {
    storedObservations.set(node.entity.id, new Set(node.entity.observations));
    for (const relation of node.relations) storedRelations.add(relation.id);
  }

  const fresh = entities.filter((entity) => !storedObservations.has(entity.id));
  progress(entities.length - fresh.length);
  const { created } = await store.createEntities(workspace, actor, fresh, progress);
  const createdIds = new Set(created);

  // Entities that existed (or were created concurrently meanwhile) get the observations they lack. A file records facts as
  // they were, so no single-valued key supersedes anything here (`asRecorded`); validity lines set their times below.
  const changes: ObservationChange[] = [
    ...entities
      .filter((entity) => !createdIds.has(entity.id))
      .map((entity) => {
        const stored = storedObservations.get(entity.id);
        return {
          entityId: entity.id,
          contents: stored ? entity.observations.filter((content) => !stored.has(content)) : entity.observations,
        };
      }),
    ...[...extraObservations].map(([name, contents]) => {
      const stored = storedObservations.get(entityId(workspace, name));
      return { entityId: entityId(workspace, name), contents: contents.filter((content) => !stored?.has(content)) };
    }),
  ]
    .filter(
      (change) =>
        change.contents.length > 0 &&
        (storedObservations.has(change.entityId) || createdIds.has(change.entityId) || inFile.has(change.entityId)),
    )
    .map((change) => ({ ...change, asRecorded: true }));
  let observationsAdded = fresh.filter((entity) => createdIds.has(entity.id)).reduce((sum, entity) => sum + entity.observations.length, 0);
  for (let start = 0; start < changes.length; start += ENTITIES_PER_ADD) {
    const { added } = await store.addObservations(workspace, actor, changes.slice(start, start + ENTITIES_PER_ADD));
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
    tagsCreated: 0,
    tagsExisting: 0,
    tagLinksAdded: 0,
    missingTagTargets: [],
    validitiesApplied: 0,
    missingValidityTargets: [],
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
    actor,
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
      report.missingEndpoints.push({
        line: source.line,
        relation: plainRelation(source),
        missing: missing.map((id) => (id === write.fromEntityId ? source.from : source.to)),
      });
    } else {
      report.relationsExisting += 1; // created concurrently by someone else
    }
  }
  report.relationsCreated = outcome.created.length;
  report.missingEndpoints.sort((a, b) => a.line - b.line);
  await importTags(store.tags, index, workspace, actor, tags, taggings, report, progress);
  await importValidities(store, workspace, actor, validities, report);
  return report;
}

/**
 * Validity lines last, once what they name is in: each entity's lines are one restoreValidity (its rows patched, recorded
 * as updates), after one read of the entity for the fields its events record.
 */
async function importValidities(
  store: GraphStore,
  workspace: string,
  actor: Actor,
  lines: readonly Located<ValidityLine>[],
  report: ImportReport,
): Promise<void> {
  const byEntity = new Map<string, Located<ValidityLine>[]>();
  for (const line of lines) byEntity.set(line.entityName, [...(byEntity.get(line.entityName) ?? []), line]);
  await forEachLimited([...byEntity], TAGGINGS_IN_FLIGHT, async ([name, own]) => {
    const [node] = await store.getEntities(workspace, [entityId(workspace, name)]);
    if (!node) {
      report.missingValidityTargets.push(...own.map((line) => ({ line: line.line, entityName: name })));
      return;
    }
    const { entity } = node;
    const held = new Set(entity.observations);
    const relationOf = (line: ValidityLine) =>
      node.relations.find(
        (r) => r.fromEntityId === entity.id && r.toName === line.relation?.to && r.relationType === line.relation?.relationType,
      );
    const observations = own.flatMap((line) =>
      line.observation !== undefined && held.has(line.observation) ? [{ content: line.observation, validity: line.validity }] : [],
    );
    const relations = own.flatMap((line) => {
      const relation = line.relation ? relationOf(line) : undefined;
      return relation ? [{ relation, validity: line.validity }] : [];
    });
    const entityLine = own.find((line) => line.observation === undefined && line.relation === undefined);
    await store.restoreValidity(workspace, actor, {
      entity: { id: entity.id, name: entity.name, entityType: entity.entityType, metadata: entity.metadata },
      ...(entityLine ? { entityValidity: entityLine.validity } : {}),
      observations,
      relations,
    });
    report.validitiesApplied += observations.length + relations.length + (entityLine ? 1 : 0);
  });
  report.missingValidityTargets.sort((a, b) => a.line - b.line);
}

/**
 * A graph page as a file carries it (docs/import-export.md#valid-time-and-expiry): each entity with the observations true now,
 * and the relations true now, for the entity and relation lines; a validity line for every entity, observation and relation
 * with times (a superseded observation or an ended relation is only there). `page` must be read with includeSuperseded.
 */
export function fileLinesOf(
  page: { entities: Entity[]; relations: Relation[] },
  nowMs: number,
): { entities: Entity[]; relations: Relation[]; validities: ValidityLine[] } {
  const lens = presentLens(nowMs);
  const validities: ValidityLine[] = [];
  const entities = page.entities.map((entity) => {
    const own = heldValidity({ expiresAt: entity.expiresAt, pinned: entity.pinned });
    if (own) validities.push({ entityName: entity.name, validity: own });
    for (const [observation, validity] of entity.observationValidity ?? []) {
      const times = heldValidity(validity);
      if (times) validities.push({ entityName: entity.name, observation, validity: times });
    }
    return entityThroughLens(entity, lens) ?? { ...entity, observations: [] };
  });
  for (const relation of page.relations) {
    const times = relationValidity(relation);
    if (times)
      validities.push({
        entityName: relation.fromName,
        relation: { to: relation.toName, relationType: relation.relationType },
        validity: times,
      });
  }
  return { entities, relations: page.relations.filter((relation) => relationShows(relation, lens)), validities };
}

/** Taggings in flight at once (each is one read and at most one transaction per 32 tags). */
const TAGGINGS_IN_FLIGHT = 8;

/**
 * Tags last, once the entities and observations they go on are in: definitions the workspace lacks
 * are created (one listing tells which), then each target gets the tags it does not carry yet. So a
 * second run writes nothing.
 */
async function importTags(
  store: TagStore,
  index: Pick<GraphIndex, "scanTags">,
  workspace: string,
  actor: Actor,
  tags: readonly Located<TagDefinition>[],
  taggings: readonly MergedTagging[],
  report: ImportReport,
  progress: (settled: number) => void,
): Promise<void> {
  if (tags.length > 0) {
    const stored = new Set((await index.scanTags(workspace)).map((tag) => tag.name));
    const fresh = tags.filter((tag) => !stored.has(tag.name));
    report.tagsExisting = tags.length - fresh.length;
    progress(tags.length - fresh.length);
    await forEachLimited(fresh, TAGGINGS_IN_FLIGHT, async (tag) => {
      const { created } = await store.defineTag(workspace, actor, {
        id: tagId(workspace, tag.name),
        name: tag.name,
        category: tag.category,
        description: tag.description,
      });
      if (created) report.tagsCreated += 1;
      else report.tagsExisting += 1; // defined concurrently meanwhile
      progress(1);
    });
  }
  await forEachLimited(taggings, TAGGINGS_IN_FLIGHT, async (tagging) => {
    const refs = tagging.tagNames.map((name) => ({ id: tagId(workspace, name), name }));
    for (let start = 0; start < refs.length; start += LIMITS.tagsPerCall) {
      const change = await store.addTags(workspace, actor, tagging.target, refs.slice(start, start + LIMITS.tagsPerCall));
      if (change.status !== "done") {
        const { line, entityName, observation } = tagging;
        const missing = change.status === "entity-missing" ? "entity" : "observation";
        report.missingTagTargets.push({ line, entityName, ...(observation !== undefined ? { observation } : {}), missing });
        break;
      }
      report.tagLinksAdded += change.tags.length;
    }
    progress(1);
  });
  report.missingTagTargets.sort((a, b) => a.line - b.line);
}

type MergedTagging = Located<TaggingInput> & { target: TagTarget };

/** Lines naming the same entity (or observation) are one tagging: every tag once, in file order, reported at the first line. */
function mergeTaggings(workspace: string, taggings: readonly Located<TaggingInput>[]): MergedTagging[] {
  const merged = new Map<string, MergedTagging>();
  for (const tagging of taggings) {
    const id = entityId(workspace, tagging.entityName);
    const target: TagTarget =
      tagging.observation === undefined ? { entityId: id } : { entityId: id, observationId: observationId(id, tagging.observation) };
    const key = `${target.entityId}/${target.observationId ?? ""}`;
    const known = merged.get(key);
    if (known) known.tagNames = [...new Set([...known.tagNames, ...tagging.tagNames])];
    else merged.set(key, { ...tagging, tagNames: [...new Set(tagging.tagNames)], target });
  }
  return [...merged.values()];
}

export function checkValidityLine(line: ValidityLine, where: string): void {
  checkEntityName(line.entityName, `${where}.entityName`);
  if (line.observation !== undefined && line.relation !== undefined) {
    throw new ValidationError(`${where} names both an observation and a relation: give one of them (or neither, for the entity itself).`);
  }
  if (line.observation !== undefined) checkObservation(line.observation, `${where}.observation`);
  if (line.relation) checkRelationInput({ from: line.entityName, ...line.relation }, `${where}.relation`);
  for (const field of ["validFrom", "validTo", "expiresAt"] as const) {
    const time = line.validity[field];
    if (time !== undefined) parseTime(time, `${where}.${field}`);
  }
  if (line.validity.supersededBy !== undefined) checkObservation(line.validity.supersededBy, `${where}.supersededBy`);
}

export function checkTagInput(tag: TagDefinition, where: string): void {
  checkTagName(tag.name, `${where}.name`);
  checkTagCategory(tag.category, `${where}.category`);
  checkTagDescription(tag.description, `${where}.description`);
}

export function checkTaggingInput(tagging: TaggingInput, where: string): void {
  checkEntityName(tagging.entityName, `${where}.entityName`);
  if (tagging.observation !== undefined) checkObservation(tagging.observation, `${where}.observation`);
  tagging.tagNames.forEach((name, i) => checkTagName(name, `${where}.tagNames[${i}]`));
}

/** Lines naming the same entity are one entity: the first type, and every observation once, in file order. */
function mergeEntities(workspace: string, entities: readonly Located<EntityInput>[]): NewEntity[] {
  const merged = new Map<string, NewEntity>();
  for (const entity of entities) {
    const known = merged.get(entity.name);
    if (known) known.observations = [...new Set([...known.observations, ...entity.observations])];
    else
      merged.set(entity.name, {
        id: entityId(workspace, entity.name),
        name: entity.name,
        entityType: entity.entityType,
        observations: [...new Set(entity.observations)],
      });
  }
  return [...merged.values()];
}

function plainRelation(relation: RelationInput): RelationInput {
  return { from: relation.from, to: relation.to, relationType: relation.relationType };
}
