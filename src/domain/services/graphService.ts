import type { CursorCodec } from "../model/cursor.js";
import { NotFoundError, ValidationError } from "../model/errors.js";
import { entityId, relationIds, relationWrite } from "../model/ids.js";
import { LIMITS } from "../model/limits.js";
import type { Actor, Entity, EntityNode, GraphPage, ReadMode, Relation } from "../model/model.js";
import {
  checkCount,
  checkEntityInput,
  checkEntityName,
  checkEntityNameLookup,
  checkLimit,
  checkObservation,
  checkQuery,
  checkRelationInput,
  checkRelationLookup,
  type EntityInput,
  type RelationInput,
} from "../model/validation.js";
import type { GraphIndex } from "../ports/graphIndex.js";
import type { GraphStore } from "../ports/store.js";
import { searchTextOf, substringRank } from "../rules/search.js";
import { subgraph } from "../rules/subgraph.js";
import {
  checkValidityInput,
  entityThroughLens,
  factKeyName,
  factOf,
  graphThroughLens,
  heldValidity,
  lensOf,
  relationShows,
  singleValuedFactOf,
  type TimeLens,
  type ValidityInput,
} from "../rules/validity.js";
import type { AsOfReads } from "./asOf.js";
import { importGraph, type ImportInput, type ImportProgress, type ImportReport } from "./importGraph.js";

/**
 * The graph toolset (the official memory server's tools, with read_graph, which core offers too):
 * bulk creates and deletes, open_nodes and search_nodes, read_graph, and the bulk import behind the
 * CLI. Whole-workspace reads go through the GraphIndex port, the rest through the store. Every method
 * checks all of its input before it derives an id or calls the store, so a call holding one invalid
 * item is refused whole and changes nothing.
 */
export class GraphService {
  constructor(
    private readonly store: GraphStore,
    private readonly index: GraphIndex,
    private readonly asOf: AsOfReads,
    private readonly cursors: CursorCodec,
    /** Now, in ms: what an expiry on write is checked against, and "true now" on reads (docs/history.md#two-times). */
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * The graph, or one page of it: `limit` entities (all when absent) and the relations whose source is
   * among them, so paging through returns every relation exactly once. Seen through the time lens
   * (docs/history.md#two-times): what the index pages is then filtered, so a page may hold fewer than `limit`
   * entities (the cursor still continues after the last one paged). With `asOf`, the replay as of then, seen as
   * held then (expiry judged at asOf). The lens is returned so results can mark what they show.
   */
  async readGraph(
    workspace: string,
    options: { limit?: number; cursor?: string; mode?: ReadMode; asOf?: string } & LensArgs = {},
  ): Promise<GraphPage & { lens: TimeLens }> {
    if (options.limit !== undefined) checkLimit(options.limit, "limit");
    const lens = lensOf(options, this.clock());
    if (options.asOf !== undefined) {
      if (options.limit !== undefined || options.cursor !== undefined) {
        throw new ValidationError("asOf reads the whole graph as it was, without pages: omit limit and cursor with asOf.");
      }
      const graph = graphThroughLens(await this.asOf.graph(workspace, options.asOf), lens);
      return options.mode === "names"
        ? {
            ...graph,
            entities: graph.entities.map(({ observationValidity: _validity, ...entity }) => ({
              ...entity,
              observations: [],
              metadata: {},
            })),
            lens,
          }
        : { ...graph, lens };
    }
    const scope = { workspace, mode: options.mode ?? "full" };
    const after = options.cursor === undefined ? undefined : await this.cursors.decode(scope, options.cursor);
    const page = await this.index.readGraph(workspace, { limit: options.limit, after, mode: scope.mode });
    const seen = graphThroughLens(page, lens);
    return {
      entities: seen.entities,
      relations: seen.relations,
      ...(page.after !== undefined ? { cursor: await this.cursors.encode(scope, page.after) } : {}),
      lens,
    };
  }

  /**
   * Creates entities whose names are new. Existing names, and repeats within the call, are skipped. `times`: the valid time
   * of every observation written (validFrom, validTo) and the expiry of every entity created (expiresAt or ttlSeconds).
   */
  async createEntities(
    workspace: string,
    actor: Actor,
    entities: readonly EntityInput[],
    times: ValidityInput = {},
  ): Promise<EntityInput[]> {
    checkCount(entities, "entities", LIMITS.itemsPerCall);
    entities.forEach((entity, i) => {
      checkEntityInput(entity, `entities[${i}]`);
      checkCount(entity.observations, `entities[${i}].observations`, LIMITS.observationsPerCall);
    });
    const validity = checkValidityInput(times, this.clock());
    const observationTimes = heldValidity({ validFrom: validity?.validFrom, validTo: validity?.validTo });
    const firsts = new Map<string, EntityInput>();
    for (const entity of entities) if (!firsts.has(entity.name)) firsts.set(entity.name, entity);
    // A new entity has nothing to supersede, but its single-valued facts must be well formed and one per key. The
    // declared keys are read (one request, before the write) only when that could fail: an entity with two values on one
    // key, or a `key:` without a value. Other calls cost what they cost before (docs/history.md#single-valued-facts).
    if ([...firsts.values()].some((entity) => mayBreakSingleValued(entity.observations))) {
      const singleValued = new Set(
        (await this.store.factKeys(workspace)).filter((key) => key.singleValued).map((key) => factKeyName(key.key)),
      );
      entities.forEach((entity, i) => {
        if (firsts.get(entity.name) === entity) checkSingleValued(entity.observations, singleValued, `entities[${i}].observations`);
      });
    }
    const writes = [...firsts.values()].map((entity) => ({
      ...entity,
      id: entityId(workspace, entity.name),
      observations: [...new Set(entity.observations)],
      ...(observationTimes ? { observationTimes } : {}),
      ...(validity?.expiresAt ? { expiresAt: validity.expiresAt } : {}),
    }));
    const { created } = await this.store.createEntities(workspace, actor, writes);
    const made = new Set(created);
    return writes.filter((write) => made.has(write.id)).map(({ name, entityType, observations }) => ({ name, entityType, observations }));
  }

  /**
   * Creates relations that do not exist yet. Both endpoints must exist: if any is missing, nothing is
   * written and the error names every missing entity.
   */
  async createRelations(
    workspace: string,
    actor: Actor,
    relations: readonly RelationInput[],
    times: ValidityInput = {},
  ): Promise<RelationInput[]> {
    checkCount(relations, "relations", LIMITS.itemsPerCall);
    relations.forEach((relation, i) => checkRelationInput(relation, `relations[${i}]`));
    const validity = checkValidityInput(times, this.clock());
    const writes = [
      ...new Map(
        relations
          .map((relation) => ({ ...relationWrite(workspace, relation), ...(validity ? { validity } : {}) }))
          .map((write) => [write.id, write]),
      ).values(),
    ];
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
  async addObservations(
    workspace: string,
    actor: Actor,
    items: readonly { entityName: string; contents: string[] }[],
    times: ValidityInput = {},
  ) {
    checkCount(items, "observations", LIMITS.itemsPerCall);
    items.forEach((item, i) => {
      checkEntityName(item.entityName, `observations[${i}].entityName`);
      checkCount(item.contents, `observations[${i}].contents`, LIMITS.observationsPerCall);
      item.contents.forEach((content, j) => checkObservation(content, `observations[${i}].contents[${j}]`));
    });
    const validity = checkValidityInput(times, this.clock());
    const changes = items.map((item) => ({
      entityId: entityId(workspace, item.entityName),
      contents: item.contents,
      ...(validity ? { times: validity } : {}),
    }));
    const { missing, added } = await this.store.addObservations(workspace, actor, changes);
    if (missing.length > 0) {
      const names = namesOf(
        missing,
        items.map((item) => item.entityName),
        workspace,
      );
      throw new NotFoundError(
        `${entitiesNotFound(names, workspace)} Create them with create_entities first (an entity that expired is gone too: upsert_entity brings it back); no observations were added.`,
      );
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

  /**
   * The named entities (unknown names skipped) and every relation touching at least one of them. One range read per name.
   * Seen through the time lens: an expired entity is skipped as if absent (docs/history.md#two-times).
   */
  async openNodes(
    workspace: string,
    names: readonly string[],
    options: { asOf?: string } & LensArgs = {},
  ): Promise<{ entities: Entity[]; relations: Relation[]; lens: TimeLens }> {
    checkCount(names, "names", LIMITS.itemsPerCall);
    names.forEach((name, i) => checkEntityNameLookup(name, `names[${i}]`));
    const lens = lensOf(options, this.clock());
    const distinct = [...new Set(names)];
    if (options.asOf !== undefined) {
      const graph = await this.asOf.openNodes(
        workspace,
        distinct.map((name) => entityId(workspace, name)),
        options.asOf,
      );
      return { ...graphThroughLens(graph, lens), lens };
    }
    const nodes = await this.store.getEntities(
      workspace,
      distinct.map((name) => entityId(workspace, name)),
    );
    return { ...subgraph(nodesThroughLens(nodes, lens)), lens };
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
    options: LensArgs = {},
  ): Promise<{ entities: Entity[]; relations: Relation[]; lens: TimeLens }> {
    checkLimit(limit, "limit");
    checkQuery(query, "query");
    const lens = lensOf(options, this.clock());
    const needle = query.toLowerCase();
    // The index matches every observation it holds, superseded ones too: the rule is checked again on each entity as seen
    // through the lens, so text no longer true makes no hit. Seeing drops entities but keeps the rank order of the rest (a
    // name or type match stays one), so asking for more than `limit` and cutting after is exact; asking again (one more
    // request) happens only when more matches were hidden than the margin.
    for (let asked = limit + SEARCH_MARGIN; ; asked *= 4) {
      const nodes = await this.index.searchNodes(workspace, query, asked);
      const shown = nodesThroughLens(nodes, lens).filter((node) => substringRank(searchTextOf(node.entity), needle) !== undefined);
      if (shown.length >= limit || nodes.length < asked) return { ...subgraph(shown.slice(0, limit)), lens };
    }
  }
}

export const DEFAULT_SEARCH_LIMIT = 50;

/** How many more matches search_nodes asks the index for than it returns, for those the time lens hides. */
const SEARCH_MARGIN = 50;

/** What a read asks of the two times (docs/history.md#two-times): lensOf's arguments without asOf. */
export interface LensArgs {
  validAt?: string;
  includeSuperseded?: boolean;
}

/**
 * Entity nodes (as a store or index read them) seen through the lens: those that show, each with its observations that
 * show and its relations that show, without relations to an entity among `nodes` that does not show. An endpoint outside
 * `nodes` is not read again (that would cost a request per endpoint): the sweep removes an expired one's relations.
 */
export function nodesThroughLens(nodes: readonly (EntityNode | undefined)[], lens: TimeLens): EntityNode[] {
  const present = nodes.filter((node): node is EntityNode => node !== undefined);
  const seen = present.map((node) => ({ node, entity: entityThroughLens(node.entity, lens) }));
  const hidden = new Set(seen.filter(({ entity }) => !entity).map(({ node }) => node.entity.id));
  return seen.flatMap(({ node, entity }) =>
    entity
      ? [
          {
            entity,
            relations: node.relations.filter(
              (relation) => !hidden.has(relation.fromEntityId) && !hidden.has(relation.toEntityId) && relationShows(relation, lens),
            ),
          },
        ]
      : [],
  );
}

/** Whether some declared key could make these observations invalid: two on one key, or one with no value. */
function mayBreakSingleValued(observations: readonly string[]): boolean {
  const keys = new Set<string>();
  for (const content of new Set(observations)) {
    const fact = factOf(content);
    if (!fact) continue;
    if (fact.value === "" || keys.has(fact.key)) return true;
    keys.add(fact.key);
  }
  return false;
}

/** A new entity's observations on single-valued keys: well formed (`key: value`), one value per key. */
function checkSingleValued(observations: readonly string[], singleValued: ReadonlySet<string>, where: string): void {
  const seen = new Map<string, string>();
  for (const content of new Set(observations)) {
    const fact = singleValuedFactOf(content, singleValued, where);
    if (!fact) continue;
    const other = seen.get(fact.key);
    if (other !== undefined) {
      throw new ValidationError(
        `${where} gives two values for the single-valued key '${fact.key}' ('${other.slice(0, 100)}' and '${content.slice(0, 100)}'). Give one.`,
      );
    }
    seen.set(fact.key, content);
  }
}

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
