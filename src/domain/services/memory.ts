import { CursorCodec, type CursorKeyProvider } from "../model/cursor.js";
import { NotFoundError, ValidationError } from "../model/errors.js";
import { entityId, isGuid, relationId, relationIds, relationWrite } from "../model/ids.js";
import { LIMITS } from "../model/limits.js";
import type { Actor, Direction, Entity, EntityNode, GraphPage, ReadMode, Relation } from "../model/model.js";
import { importGraph, type ImportInput, type ImportProgress, type ImportReport } from "./importGraph.js";
import type { EntitySummary, GraphStore } from "../ports/store.js";
import { subgraph } from "../rules/subgraph.js";
import { TagService } from "./tags.js";
import { HistoryService } from "./historyService.js";
import { checkExpectedVersion } from "../model/expectedVersion.js";
import { CurationService } from "./curationService.js";
import {
  checkDistinctEnds,
  checkNeighborRequest,
  checkPathRequest,
  neighbors,
  shortestPath,
  type Neighborhood,
  type NeighborRequest,
  type PathRequest,
  type PathResult,
} from "../rules/navigation.js";
import { WorkspaceService } from "./workspaceService.js";
import type { GraphIndex } from "../ports/graphIndex.js";
import { SearchService } from "./searchService.js";
import {
  checkCount,
  checkEntityInput,
  checkEntityName,
  checkEntityNameLookup,
  checkEntityType,
  checkLimit,
  checkObservation,
  checkQuery,
  checkRelationInput,
  checkRelationLookup,
  checkRelationType,
  normalizeMetadata,
  type EntityInput,
  type RelationInput,
} from "../model/validation.js";

export interface UpsertEntityInput {
  name: string;
  entityType: string;
  observations?: string[];
  metadata?: unknown;
  expectedVersion?: string;
}

export interface EntityRef {
  /** The entity's GUID; takes the place of `name` when given. */
  id?: string;
  name?: string;
}

export interface UpsertRelationInput {
  from: EntityRef;
  to: EntityRef;
  relationType: string;
  metadata?: unknown;
  expectedVersion?: string;
}

/**
 * The graph rules of one workspace-partitioned memory. Storage details stay behind GraphStore.
 * Write methods take the actor (the caller's principal id and the tool), which the store records as
 * createdBy/updatedBy and in the write's change events.
 *
 * Every method checks all of its input (validation.ts) before it derives an id or calls the store,
 * so a call holding one invalid item is refused whole and changes nothing.
 */
export class MemoryService {
  /** Tags of entities and observations. */
  readonly tags: TagService;
  /** The change feed: changes, entity history, as-of reads and restore (docs/history.md). */
  readonly history: HistoryService;
  /** Signs continuation cursors: read_graph's, the history tools', and those of maxChars answers (docs/navigate.md#budgets). */
  readonly cursors: CursorCodec;
  /** The workspace registry: listing and deleting workspaces (docs/navigate.md#workspaces). */
  readonly workspaces: WorkspaceService;
  /** Batches, duplicates and merges (docs/curate.md). */
  readonly curation: CurationService;

  /** Ranked search and stats from the workspace index (docs/search.md). */
  readonly search: SearchService;

  /**
   * `cursorKey` signs read_graph cursors; it must be the same on every instance of a deployment.
   * `index` answers every whole-workspace read (read_graph, search_nodes, all tags, tag usage, the duplicates scan, the
   * search tools) and the traversals: a kept index or a scanning one, chosen at composition (src/runtime.ts).
   */
  constructor(
    private readonly store: GraphStore,
    cursorKey: CursorKeyProvider,
    private readonly index: GraphIndex,
  ) {
    this.tags = new TagService(store.tags, index);
    this.cursors = new CursorCodec(cursorKey);
    this.history = new HistoryService(store, this.cursors);
    this.workspaces = new WorkspaceService(store.workspaces);
    this.curation = new CurationService(store, index, this);
    this.search = new SearchService(index, this.cursors);
  }

  /** The neighbourhood of one entity (docs/navigate.md#get_neighbors); see navigation.ts for its cost. */
  async getNeighbors(workspace: string, ref: EntityRef, options: NeighborRequest): Promise<Neighborhood> {
    const id = this.idOf(workspace, ref, { id: "entityId", name: "entityName" });
    const request = checkNeighborRequest(options);
    return neighbors(await this.index.traversal(workspace), workspace, { id, label: ref.name ?? id }, request);
  }

  /** The shortest path between two entities (docs/navigate.md#find_path). */
  async findPath(workspace: string, from: EntityRef, to: EntityRef, options: PathRequest): Promise<PathResult> {
    const fromId = this.idOf(workspace, from, { id: "fromEntityId", name: "from", role: "the start entity" });
    const toId = this.idOf(workspace, to, { id: "toEntityId", name: "to", role: "the end entity" });
    const request = checkPathRequest(options);
    checkDistinctEnds(fromId, toId);
    return shortestPath(
      await this.index.traversal(workspace),
      workspace,
      { id: fromId, label: from.name ?? fromId },
      { id: toId, label: to.name ?? toId },
      request,
    );
  }

  async upsertEntity(workspace: string, actor: Actor, input: UpsertEntityInput) {
    const observations = input.observations ?? [];
    checkEntityName(input.name, "name");
    checkEntityType(input.entityType, "entityType");
    checkCount(observations, "observations", LIMITS.observationsPerCall);
    observations.forEach((content, i) => checkObservation(content, `observations[${i}]`));
    checkExpectedVersion(input.expectedVersion, "expectedVersion");
    const metadata = normalizeMetadata(input.metadata);
    const id = entityId(workspace, input.name);
    const result = await this.store.upsertEntity(workspace, actor, {
      id,
      name: input.name,
      entityType: input.entityType,
      observations,
      ...(metadata !== undefined ? { metadata } : {}),
      ...(input.expectedVersion !== undefined ? { expectedVersion: input.expectedVersion } : {}),
    });
    return { id, created: result.created, addedObservations: result.addedObservations, version: result.version };
  }

  async upsertRelation(workspace: string, actor: Actor, input: UpsertRelationInput) {
    const fromId = this.idOf(workspace, input.from, { id: "fromEntityId", name: "from", role: "the source entity" });
    const toId = this.idOf(workspace, input.to, { id: "toEntityId", name: "to", role: "the target entity" });
    checkRelationType(input.relationType, "relationType");
    checkExpectedVersion(input.expectedVersion, "expectedVersion");
    const metadata = normalizeMetadata(input.metadata);
    const [from, to] = await Promise.all([
      this.resolveEndpoint(workspace, fromId, input.from, "Source"),
      this.resolveEndpoint(workspace, toId, input.to, "Target"),
    ]);
    const id = relationId(workspace, from.id, input.relationType, to.id);
    try {
      const { created, version } = await this.store.upsertRelation(workspace, actor, {
        id,
        fromEntityId: from.id,
        fromName: from.name,
        toEntityId: to.id,
        toName: to.name,
        relationType: input.relationType,
        ...(metadata !== undefined ? { metadata } : {}),
        ...(input.expectedVersion !== undefined ? { expectedVersion: input.expectedVersion } : {}),
      });
      return { relationId: id, fromEntityId: from.id, toEntityId: to.id, created, version };
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      // The transaction's endpoint guard failed: find out which endpoint is missing, and say so.
      const [source, target] = await Promise.all([
        this.store.getEntitySummary(workspace, from.id),
        this.store.getEntitySummary(workspace, to.id),
      ]);
      if (!source) throw endpointMissing("Source", input.from);
      if (!target) throw endpointMissing("Target", input.to);
      throw error;
    }
  }

  async getEntityRelations(
    workspace: string,
    ref: EntityRef,
    direction: Direction,
    asOf?: string,
  ): Promise<{ entityId: string; entity?: Entity; relations: Relation[] }> {
    const id = this.idOf(workspace, ref, { id: "entityId", name: "entityName" });
    if (asOf !== undefined)
      return { entityId: id, relations: await this.history.relationsAsOf(workspace, id, ref.name ?? id, direction, asOf) };
    const node = await this.store.getEntityRelations(workspace, id, direction);
    if (!node) throw new NotFoundError(`Entity '${ref.name ?? ref.id}' not found in workspace '${workspace}'.`);
    return { entityId: id, entity: node.entity, relations: node.relations };
  }

  /**
   * The graph, or one page of it: `limit` entities (all when absent) and the relations whose source is
   * among them, so paging through returns every relation exactly once.
   */
  async readGraph(
    workspace: string,
    options: { limit?: number; cursor?: string; mode?: ReadMode; asOf?: string } = {},
  ): Promise<GraphPage> {
    if (options.limit !== undefined) checkLimit(options.limit, "limit");
    if (options.asOf !== undefined) {
      if (options.limit !== undefined || options.cursor !== undefined) {
        throw new ValidationError("asOf reads the whole graph as it was, without pages: omit limit and cursor with asOf.");
      }
      const graph = await this.history.graphAsOf(workspace, options.asOf);
      return options.mode === "names"
        ? { ...graph, entities: graph.entities.map((entity) => ({ ...entity, observations: [], metadata: {} })) }
        : graph;
    }
    const scope = { workspace, mode: options.mode ?? "full" };
    const after = options.cursor === undefined ? undefined : await this.cursors.decode(scope, options.cursor);
    const page = await this.index.readGraph(workspace, { limit: options.limit, after, mode: scope.mode });
    return {
      entities: page.entities,
      relations: page.relations,
      ...(page.after !== undefined ? { cursor: await this.cursors.encode(scope, page.after) } : {}),
    };
  }

  /** Creates entities whose names are new. Existing names, and repeats within the call, are skipped. */
  async createEntities(workspace: string, actor: Actor, entities: readonly EntityInput[]): Promise<EntityInput[]> {
    checkCount(entities, "entities", LIMITS.itemsPerCall);
    entities.forEach((entity, i) => {
      checkEntityInput(entity, `entities[${i}]`);
      checkCount(entity.observations, `entities[${i}].observations`, LIMITS.observationsPerCall);
    });
    const firsts = new Map<string, EntityInput>();
    for (const entity of entities) if (!firsts.has(entity.name)) firsts.set(entity.name, entity);
    const writes = [...firsts.values()].map((entity) => ({
      ...entity,
      id: entityId(workspace, entity.name),
      observations: [...new Set(entity.observations)],
    }));
    const { created } = await this.store.createEntities(workspace, actor, writes);
    const made = new Set(created);
    return writes.filter((write) => made.has(write.id)).map(({ name, entityType, observations }) => ({ name, entityType, observations }));
  }

  /**
   * Creates relations that do not exist yet. Both endpoints must exist: if any is missing, nothing is
   * written and the error names every missing entity.
   */
  async createRelations(workspace: string, actor: Actor, relations: readonly RelationInput[]): Promise<RelationInput[]> {
    checkCount(relations, "relations", LIMITS.itemsPerCall);
    relations.forEach((relation, i) => checkRelationInput(relation, `relations[${i}]`));
    const writes = [...new Map(relations.map((relation) => relationWrite(workspace, relation)).map((write) => [write.id, write])).values()];
    const { created, missingEntityIds } = await this.store.createRelations(workspace, actor, writes, { allOrNothing: true });
    if (missingEntityIds.length > 0) {
      const names = namesOf(
        missingEntityIds,
        relations.flatMap((relation) => [relation.from, relation.to]),
        workspace,
      );
      throw new NotFoundError(`${entitiesNotFound(names, workspace)} Create them with create_entities first; no relations were written.`);
    }
    const made = new Set(created);
    return writes
      .filter((write) => made.has(write.id))
      .map((write) => ({ from: write.fromName, to: write.toName, relationType: write.relationType }));
  }

  /**
   * Adds observations an entity does not have yet (repeats are skipped). If any entity is missing,
   * nothing is written and the error names every missing entity.
   */
  async addObservations(workspace: string, actor: Actor, items: readonly { entityName: string; contents: string[] }[]) {
    checkCount(items, "observations", LIMITS.itemsPerCall);
    items.forEach((item, i) => {
      checkEntityName(item.entityName, `observations[${i}].entityName`);
      checkCount(item.contents, `observations[${i}].contents`, LIMITS.observationsPerCall);
      item.contents.forEach((content, j) => checkObservation(content, `observations[${i}].contents[${j}]`));
    });
    const changes = items.map((item) => ({ entityId: entityId(workspace, item.entityName), contents: item.contents }));
    const { missing, added } = await this.store.addObservations(workspace, actor, changes);
    if (missing.length > 0) {
      const names = namesOf(
        missing,
        items.map((item) => item.entityName),
        workspace,
      );
      throw new NotFoundError(`${entitiesNotFound(names, workspace)} Create them with create_entities first; no observations were added.`);
    }
    // The store reports per entity; give each item the additions it asked for, first item first (as the official server does).
    const unclaimed = new Map([...added].map(([id, contents]) => [id, new Set(contents)]));
    return items.map((item, i) => {
      const pool = unclaimed.get(changes[i]!.entityId) ?? new Set<string>();
      const addedObservations = [...new Set(item.contents)].filter((content) => pool.delete(content));
      return { entityName: item.entityName, addedObservations };
    });
  }

  /** Deletes entities with their observations and every relation to or from them. Unknown names are ignored. */
  async deleteEntities(workspace: string, actor: Actor, names: readonly string[]): Promise<void> {
    checkCount(names, "entityNames", LIMITS.itemsPerCall);
    names.forEach((name, i) => checkEntityNameLookup(name, `entityNames[${i}]`));
    await this.store.deleteEntities(
      workspace,
      actor,
      names.map((name) => entityId(workspace, name)),
    );
  }

  /** Deletes the given observations. Unknown entities and observations are ignored. */
  async deleteObservations(
    workspace: string,
    actor: Actor,
    deletions: readonly { entityName: string; observations: string[] }[],
  ): Promise<void> {
    checkCount(deletions, "deletions", LIMITS.itemsPerCall);
    deletions.forEach((deletion, i) => {
      checkEntityNameLookup(deletion.entityName, `deletions[${i}].entityName`);
      checkCount(deletion.observations, `deletions[${i}].observations`, LIMITS.observationsPerCall);
      deletion.observations.forEach((content, j) => checkObservation(content, `deletions[${i}].observations[${j}]`));
    });
    await this.store.deleteObservations(
      workspace,
      actor,
      deletions.map((deletion) => ({ entityId: entityId(workspace, deletion.entityName), contents: deletion.observations })),
    );
  }

  /** Deletes the given relations. Unknown ones are ignored. */
  async deleteRelations(workspace: string, actor: Actor, relations: readonly RelationInput[]): Promise<void> {
    checkCount(relations, "relations", LIMITS.itemsPerCall);
    relations.forEach((relation, i) => checkRelationLookup(relation, `relations[${i}]`));
    await this.store.deleteRelations(
      workspace,
      actor,
      relations.map((relation) => relationIds(workspace, relation)),
    );
  }

  /** The named entities (unknown names skipped) and every relation touching at least one of them. One range read per name. */
  async openNodes(workspace: string, names: readonly string[], asOf?: string): Promise<{ entities: Entity[]; relations: Relation[] }> {
    checkCount(names, "names", LIMITS.itemsPerCall);
    names.forEach((name, i) => checkEntityNameLookup(name, `names[${i}]`));
    const distinct = [...new Set(names)];
    if (asOf !== undefined) {
      return this.history.openNodesAsOf(
        workspace,
        distinct.map((name) => entityId(workspace, name)),
        asOf,
      );
    }
    const nodes = await this.store.getEntities(
      workspace,
      distinct.map((name) => entityId(workspace, name)),
    );
    return subgraph(nodes.filter((node): node is EntityNode => node !== undefined));
  }

  /** The events of one entity (by id or name), oldest first, also after it was deleted. */
  entityHistory(workspace: string, ref: EntityRef, options: { limit?: number; cursor?: string }) {
    const id = this.idOf(workspace, ref, { id: "entityId", name: "entityName" });
    return this.history.entityHistory(workspace, { id, label: ref.name ?? id }, options);
  }

  /** Merges a graph file (server-memory's format, parsed) into the workspace; see importGraph. */
  importGraph(workspace: string, actor: Actor, input: ImportInput, onProgress?: ImportProgress): Promise<ImportReport> {
    return importGraph(this.store, this.index, workspace, actor, input, onProgress);
  }

  /**
   * Entities matching `query` (case-insensitive, in name, type or an observation), best first: name
   * matches, then type matches, then observation matches, oldest first within each. Plus every relation
   * touching at least one of them.
   */
  async searchNodes(
    workspace: string,
    query: string,
    limit = DEFAULT_SEARCH_LIMIT,
  ): Promise<{ entities: Entity[]; relations: Relation[] }> {
    checkLimit(limit, "limit");
    checkQuery(query, "query");
    return subgraph(await this.index.searchNodes(workspace, query, limit));
  }

  /**
   * A name (alone, or with an id it agrees with) needs no read: its id is derived, and the write's
   * guard proves it exists. A GUID alone needs one point read, to learn the name stored in the edge rows.
   */
  private async resolveEndpoint(
    workspace: string,
    id: string,
    ref: EntityRef,
    role: "Source" | "Target",
  ): Promise<EntitySummary | { id: string; name: string }> {
    if (ref.name !== undefined) return { id, name: ref.name };
    const summary = await this.store.getEntitySummary(workspace, id);
    if (!summary) throw endpointMissing(role, ref);
    return summary;
  }

  /**
   * The id of the entity a reference names. Given both an id and a name, they must name the same
   * entity; ids derive from names, so that is checked with no read. `fields` are the caller's
   * argument names, so the message says which one to drop.
   */
  idOf(workspace: string, ref: EntityRef, fields: { id: string; name: string; role?: string }): string {
    if (ref.name !== undefined) checkEntityName(ref.name, fields.name);
    if (ref.id !== undefined) {
      if (!isGuid(ref.id)) throw new ValidationError(`'${ref.id}' is not an entity id (a GUID). Pass the entity's name instead.`);
      const id = ref.id.toLowerCase();
      const named = ref.name === undefined ? id : entityId(workspace, ref.name);
      if (named !== id) {
        throw new ValidationError(
          `${fields.id} '${id}' and ${fields.name} '${ref.name}' name different entities (the id of '${ref.name}' is '${named}'). ` +
            `Give one: drop ${fields.id} to use the name, or drop ${fields.name} to use the id.`,
        );
      }
      return id;
    }
    if (ref.name !== undefined) return entityId(workspace, ref.name);
    throw new ValidationError(`Name ${fields.role ?? "the entity"}: give ${fields.id} or ${fields.name}.`);
  }
}

export const DEFAULT_SEARCH_LIMIT = 50;

/** The names (from those the caller gave) whose entity ids are in `ids`, each once, in the caller's order. */
function namesOf(ids: readonly string[], names: readonly string[], workspace: string): string[] {
  const wanted = new Set(ids);
  return [...new Set(names)].filter((name) => wanted.has(entityId(workspace, name)));
}

function entitiesNotFound(names: readonly string[], workspace: string): string {
  const quoted = names.map((name) => `'${name}'`).join(", ");
  return names.length === 1
    ? `Entity ${quoted} not found in workspace '${workspace}'.`
    : `Entities ${quoted} not found in workspace '${workspace}'.`;
}

function endpointMissing(role: "Source" | "Target", ref: EntityRef): NotFoundError {
  return new NotFoundError(`${role} entity '${ref.name ?? ref.id}' not found. Create it with upsert_entity first.`);
}
