import { type Change, type ChangeEvent, commitTimeOf, describeEvent } from "../feed/history.js";
import { GraphReplay } from "../feed/replay.js";
import type { CursorCodec } from "../model/cursor.js";
import { NotFoundError, ValidationError } from "../model/errors.js";
import { entityId as entityIdOf } from "../model/ids.js";
import type { Entity, EntityNode, Relation, Validity } from "../model/model.js";
import { byCreation } from "../model/order.js";
import { checkEntityName, checkEntityType, checkLimit, checkRelationType, checkSearchQuery, checkTagName } from "../model/validation.js";
import type { GraphIndex } from "../ports/graphIndex.js";
import type { GraphStore } from "../ports/store.js";
import { searchTextOf, substringRank } from "../rules/search.js";
import {
  entityThroughLens,
  graphThroughLens,
  lensOf,
  presentLens,
  relationShows,
  relationStatus,
  statusOf,
  type TimeLens,
} from "../rules/validity.js";
import type { AsOfReads } from "./asOf.js";
import type { CurateService } from "./curateService.js";
import { touchesEntity } from "./restore.js";
import type { SearchService } from "./searchService.js";

/**
 * The MCP Apps' reads (docs/apps.md): what the graph, duplicate review and timeline apps open on, and the app-only reads
 * they make afterwards (a neighbourhood, a filter, one entity's panel). Every answer is drawn from what the other toolsets
 * already read: the workspace index (brought current by one feed-tail read), the as-of replay (asOf.ts), the change feed,
 * the ranked search and the duplicate detection. Nothing here writes; the apps write through the ordinary tools.
 */

/** show_memory_graph's default entity count, and the most it draws (the standalone page asks for the most). */
export const GRAPH_DEFAULT_LIMIT = 500;
export const GRAPH_MAX_LIMIT = 2000;
/** Search hits a graph opens on: the first page of a ranked search (their neighbours fill the rest, up to the limit). */
const GRAPH_SEARCH_HITS = 50;
/** A slice's default size (app_expand, app_filter). */
const SLICE_DEFAULT_LIMIT = 200;
/** The pairs a review shows by default: a person judges each one, so fewer than the detector's 50. */
const REVIEW_DEFAULT_LIMIT = 20;
/** The timeline's page. */
const TIMELINE_DEFAULT_LIMIT = 50;
/** The newest events an entity's panel shows. */
const DETAILS_RECENT = 10;

interface GraphNode {
  name: string;
  entityType: string;
  tags?: string[];
  degree: number;
}
interface GraphEdge {
  from: string;
  to: string;
  relationType: string;
}
export interface GraphSlice {
  entities: GraphNode[];
  relations: GraphEdge[];
  truncated: boolean;
  asOf?: string;
}
export interface GraphView extends GraphSlice {
  opening: "entity" | "search" | "hubs" | "all";
  focus?: string;
  hits: string[];
  totals: { entities: number; relations: number };
  historySince?: string;
}

export interface TimelineEvent {
  id: string;
  /**
   * The event's commit time (the feed's order), to the millisecond, rounded down: restore_entity or an asOf read at this time
   * holds the state right after the event, since as-of reads take the events committed up to the millisecond asked
   * (docs/architecture.md#the-feeds-order). The writer's own time may be before the commit, and would hold the state before it.
   */
  at: string;
  principal: string;
  tool: string;
  summary: string;
  kinds: string[];
}

export interface DuplicateSide {
  id: string;
  name: string;
  entityType: string;
  observations: string[];
  relations: GraphEdge[];
  tags?: string[];
}

export interface EntityDetails {
  entity: {
    name: string;
    entityType: string;
    observations: string[];
    tags?: string[];
    observationTags?: Record<string, string[]>;
    observationValidity?: Record<string, Omit<Validity, "pinned"> & { status?: string }>;
    metadata?: Record<string, unknown>;
    createdAt?: string;
    createdBy?: string;
    updatedAt?: string;
    updatedBy?: string;
    expiresAt?: string;
    pinned?: boolean;
  } | null;
  relations: (GraphEdge & { status?: string })[];
  created?: { at: string; principal: string };
  recent: TimelineEvent[];
  asOf?: string;
}

type Graph = { entities: Entity[]; relations: Relation[] };

export class AppService {
  constructor(
    private readonly store: GraphStore,
    private readonly index: Pick<GraphIndex, "readGraph" | "traversal">,
    private readonly asOf: AsOfReads,
    private readonly cursors: CursorCodec,
    /** The ranked search a graph opens on, and the duplicate detection a review lists: the search and curate services. */
    private readonly others: { search: Pick<SearchService, "searchEntities">; curate: Pick<CurateService, "detectDuplicates"> },
    /** Now, in ms: the time lens of reads without asOf (docs/history.md#two-times). */
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * show_memory_graph: one entity and its neighbours, a search's hits and their neighbours, or (neither) the whole graph when
   * it has at most `limit` entities, else its `limit` most connected. The workspace is read once, from the index (one
   * feed-tail request once built), or with `asOf` from the replay; its history start in parallel.
   */
  async graphView(workspace: string, input: { entityName?: string; query?: string; asOf?: string; limit?: number }): Promise<GraphView> {
    const limit = checkGraphLimit(input.limit, GRAPH_DEFAULT_LIMIT, GRAPH_MAX_LIMIT);
    if (input.entityName !== undefined && input.query !== undefined) {
      throw new ValidationError("Give entityName or query, not both: the graph opens on one entity or on a search.");
    }
    if (input.entityName !== undefined) checkEntityName(input.entityName, "entityName");
    const query = input.query?.trim();
    if (input.query !== undefined) {
      checkSearchQuery(input.query, "query");
      if (query === "") throw new ValidationError("query is empty: give a few words, or omit it to open on the most connected entities.");
    }
    const [graph, historySince] = await Promise.all([this.graphAt(workspace, input.asOf, "names"), this.historySince(workspace)]);
    const adjacency = new Adjacency(graph);
    const totals = { entities: graph.entities.length, relations: graph.relations.length };
    const base = {
      totals,
      ...(historySince !== undefined ? { historySince } : {}),
      ...(input.asOf !== undefined ? { asOf: input.asOf } : {}),
    };
    if (input.entityName !== undefined) {
      const focus = adjacency.byName(workspace, input.entityName);
      if (!focus) throw entityNotFound(input.entityName, workspace, input.asOf);
      return {
        ...adjacency.slice([focus.id], adjacency.neighbours([focus.id]), limit),
        opening: "entity",
        focus: focus.name,
        hits: [],
        ...base,
      };
    }
    if (query !== undefined) {
      const hits = await this.hitsOf(workspace, query, graph, input.asOf, Math.min(limit, GRAPH_SEARCH_HITS));
      const slice = adjacency.slice(hits, adjacency.neighbours(hits), limit);
      return { ...slice, opening: "search", hits: hits.map((id) => adjacency.entity(id)!.name), ...base };
    }
    const all = graph.entities.map((entity) => entity.id);
    if (all.length <= limit) return { ...adjacency.slice(all, [], limit), opening: "all", hits: [], ...base };
    return { ...adjacency.slice([], all, limit), opening: "hubs", hits: [], ...base };
  }

  /**
   * app_expand: one entity and its neighbours (depth 1), the most connected first when they exceed `limit`. Now: on the
   * index's traversal (one feed-tail request for the whole answer once built); with asOf: on the replay.
   */
  async expand(workspace: string, input: { entityName: string; asOf?: string; limit?: number }): Promise<GraphSlice> {
    checkEntityName(input.entityName, "entityName");
    const limit = checkGraphLimit(input.limit, SLICE_DEFAULT_LIMIT, GRAPH_MAX_LIMIT);
    const id = entityIdOf(workspace, input.entityName);
    if (input.asOf !== undefined) {
      const adjacency = new Adjacency(await this.graphAt(workspace, input.asOf, "names"));
      if (!adjacency.entity(id)) throw entityNotFound(input.entityName, workspace, input.asOf);
      return { ...adjacency.slice([id], adjacency.neighbours([id]), limit), asOf: input.asOf };
    }
    const port = await this.index.traversal(workspace, presentLens(this.clock()));
    const [start] = await port.nodes(workspace, [id]);
    if (!start) throw entityNotFound(input.entityName, workspace);
    const neighbourIds = [...new Set(start.relations.flatMap((relation) => [relation.fromEntityId, relation.toEntityId]))].filter(
      (other) => other !== id,
    );
    const around = (await port.edges(workspace, neighbourIds, "both")).filter((node): node is EntityNode => node !== undefined);
    const nodes = [start, ...around];
    const relations = [...new Map(nodes.flatMap((node) => node.relations).map((relation) => [relation.id, relation])).values()];
    // Degrees from each node's own edges (all of them, not only those among the nodes read).
    const adjacency = new Adjacency(
      { entities: nodes.map((node) => node.entity), relations },
      new Map(nodes.map((node) => [node.entity.id, node.relations.length])),
    );
    return adjacency.slice([id], adjacency.neighbours([id]), limit);
  }

  /**
   * app_filter: the entities matching every filter given (type; a tag on the entity or one of its observations; a relation of
   * the type), the most connected first when they exceed `limit`, and the relations among them. One read of the workspace.
   */
  async filter(
    workspace: string,
    input: { entityType?: string; tag?: string; relationType?: string; asOf?: string; limit?: number },
  ): Promise<GraphSlice> {
    if (input.entityType === undefined && input.tag === undefined && input.relationType === undefined) {
      throw new ValidationError("Give entityType, tag or relationType to filter by (show_memory_graph opens the graph unfiltered).");
    }
    if (input.entityType !== undefined) checkEntityType(input.entityType, "entityType");
    if (input.tag !== undefined) checkTagName(input.tag, "tag");
    if (input.relationType !== undefined) checkRelationType(input.relationType, "relationType");
    const limit = checkGraphLimit(input.limit, SLICE_DEFAULT_LIMIT, GRAPH_MAX_LIMIT);
    // Observation tags are read only when a tag is asked: the names-only read leaves them out.
    const graph = await this.graphAt(workspace, input.asOf, input.tag !== undefined ? "full" : "names");
    const adjacency = new Adjacency(graph);
    const withRelation =
      input.relationType === undefined
        ? undefined
        : new Set(
            graph.relations
              .filter((relation) => relation.relationType === input.relationType)
              .flatMap((relation) => [relation.fromEntityId, relation.toEntityId]),
          );
    const matching = graph.entities.filter(
      (entity) =>
        (input.entityType === undefined || entity.entityType === input.entityType) &&
        (input.tag === undefined || hasTag(entity, input.tag)) &&
        (withRelation === undefined || withRelation.has(entity.id)),
    );
    return {
      ...adjacency.slice(
        [],
        matching.map((entity) => entity.id),
        limit,
      ),
      ...(input.asOf !== undefined ? { asOf: input.asOf } : {}),
    };
  }

  /**
   * app_entity_details: one entity's facts through the time lens (docs/history.md#two-times), its relations (with their
   * status when includeSuperseded), its creation and its newest events, in one call: now, its range read and its history
   * read in parallel; with asOf, the time check (asOf.ts) then its history up to then, replayed (its state and its events).
   */
  async details(workspace: string, input: { entityName: string; asOf?: string; includeSuperseded?: boolean }): Promise<EntityDetails> {
    checkEntityName(input.entityName, "entityName");
    const id = entityIdOf(workspace, input.entityName);
    const lens = lensOf({ asOf: input.asOf, includeSuperseded: input.includeSuperseded }, this.clock());
    let node: EntityNode | undefined;
    let events: ChangeEvent[];
    if (input.asOf !== undefined) {
      const at = await this.asOf.at(workspace, input.asOf);
      events = await this.store.events(workspace, { entityId: id, toMs: at + 1 });
      node = new GraphReplay().apply(events).node(id);
    } else {
      const [nodes, all] = await Promise.all([this.store.getEntities(workspace, [id]), this.store.events(workspace, { entityId: id })]);
      [node, events] = [nodes[0], all];
    }
    const own = ownEvents(events, id);
    const creation = [...own].reverse().find((event) => event.changes.some((change) => change.kind === "entity.created"));
    const entity = node ? entityThroughLens(node.entity, lens) : undefined;
    const recent = own.slice(-DETAILS_RECENT).reverse().map(timelineEventOf);
    return {
      entity: entity ? detailsOf(entity, lens) : null,
      relations: entity && node ? relationsOf(node.relations, lens) : [],
      ...(creation ? { created: { at: eventTime(creation), principal: creation.principal } } : {}),
      recent,
      ...(input.asOf !== undefined ? { asOf: input.asOf } : {}),
    };
  }

  /**
   * show_entity_timeline: one entity's events, newest first, also after it was deleted (`exists` false). Its history read
   * and a point read of its row, in parallel. NotFound only when neither finds it.
   */
  async timeline(
    workspace: string,
    input: { entityName: string; cursor?: string; limit?: number },
  ): Promise<{ entityName: string; exists: boolean; events: TimelineEvent[]; cursor?: string }> {
    checkEntityName(input.entityName, "entityName");
    const limit = input.limit ?? TIMELINE_DEFAULT_LIMIT;
    checkLimit(limit, "limit");
    const id = entityIdOf(workspace, input.entityName);
    // The history tools' cursor (after an event key), in a mode of its own: one of get_entity_history's does not continue here.
    const scope = { workspace, tool: "get_entity_history" as const, mode: `timeline|${id}` };
    const after = input.cursor === undefined ? undefined : await this.cursors.decode(scope, input.cursor);
    const [events, summary] = await Promise.all([
      this.store.events(workspace, { entityId: id }),
      this.store.getEntitySummary(workspace, id),
    ]);
    const newest = ownEvents(events, id).reverse();
    // An entity that exists has a timeline even when retention (MEMORY_HISTORY_RETENTION_DAYS) pruned every event of it: empty.
    if (newest.length === 0 && summary === undefined) {
      throw new NotFoundError(
        `Entity '${input.entityName}' has no history in workspace '${workspace}' (no recorded change touched it). Names match exactly: ` +
          "find it with show_memory_graph and a query.",
      );
    }
    const at = after === undefined ? -1 : newest.findIndex((event) => event.id === after);
    const rest = after === undefined || at >= 0 ? newest.slice(at + 1) : newest.filter((event) => event.id < after);
    const shown = rest.slice(0, limit);
    return {
      entityName: input.entityName,
      exists: summary !== undefined,
      events: shown.map(timelineEventOf),
      ...(rest.length > limit ? { cursor: await this.cursors.encode(scope, shown[shown.length - 1]!.id) } : {}),
    };
  }

  /**
   * review_duplicates: detect_duplicate_entities' pairs (it leaves out the pairs a person rejected), each side with its
   * observations and relations, read through the index's traversal (one feed-tail request once built).
   */
  async reviewDuplicates(
    workspace: string,
    input: { entityType?: string; threshold?: number; limit?: number },
  ): Promise<{ pairs: { a: DuplicateSide; b: DuplicateSide; score: number; reasons: string[] }[]; rejected: number }> {
    const found = await this.others.curate.detectDuplicates(workspace, { ...input, limit: input.limit ?? REVIEW_DEFAULT_LIMIT });
    // How many pairs the detector left out because a person rejected them (reject_duplicate_pair).
    const { rejected } = found;
    if (found.pairs.length === 0) return { pairs: [], rejected };
    const ids = [...new Set(found.pairs.flatMap((pair) => [pair.a.id, pair.b.id]))];
    const port = await this.index.traversal(workspace, presentLens(this.clock()));
    const nodes = new Map(
      (await port.nodes(workspace, ids)).filter((node): node is EntityNode => node !== undefined).map((node) => [node.entity.id, node]),
    );
    // A side gone since the scan (deleted, merged, expired) leaves its pair out: there is nothing left to judge.
    const pairs = found.pairs.flatMap((pair) => {
      const a = nodes.get(pair.a.id);
      const b = nodes.get(pair.b.id);
      return a && b ? [{ a: sideOf(a), b: sideOf(b), score: pair.score, reasons: pair.reasons }] : [];
    });
    return { pairs, rejected };
  }

  /**
   * The workspace through the present lens, from the index (`mode` "names" leaves observations out); or with asOf, replayed
   * (whole entities, whatever the mode) and seen as held then.
   */
  private async graphAt(workspace: string, asOf: string | undefined, mode: "names" | "full"): Promise<Graph> {
    if (asOf !== undefined) return graphThroughLens(await this.asOf.graph(workspace, asOf), lensOf({ asOf }, this.clock()));
    const page = await this.index.readGraph(workspace, { mode });
    return graphThroughLens(page, presentLens(this.clock()));
  }

  /**
   * When the workspace's history starts, as an asOf read accepts it (its first event's commit time, to the millisecond); none
   * when it has no history or retention pruned its start (as-of reads are refused then).
   */
  private async historySince(workspace: string): Promise<string | undefined> {
    const { first, prunedBefore } = await this.store.historyStart(workspace);
    if (!first || prunedBefore !== undefined) return undefined;
    return new Date(Date.parse(first.committed ?? first.at)).toISOString();
  }

  /** A search's hits, best first: the ranked search now; at asOf, search_nodes' substring rule on the graph as it was. */
  private async hitsOf(workspace: string, query: string, graph: Graph, asOf: string | undefined, count: number): Promise<string[]> {
    const present = new Set(graph.entities.map((entity) => entity.id));
    if (asOf === undefined) {
      const page = await this.others.search.searchEntities(workspace, { query, limit: count }, presentLens(this.clock()));
      return page.hits.map((hit) => hit.entity.id).filter((id) => present.has(id));
    }
    // The replay holds every observation (graphAt does not strip them with asOf), so the rule reads the entities themselves.
    const needle = query.toLowerCase();
    return graph.entities
      .flatMap((entity) => {
        const rank = substringRank(searchTextOf(entity), needle);
        return rank === undefined ? [] : [{ id: entity.id, rank }];
      })
      .sort((x, y) => x.rank - y.rank)
      .slice(0, count)
      .map((hit) => hit.id);
  }
}

/** Entities and relations with each entity's degree, and the slices drawn from them. */
class Adjacency {
  private readonly entities: Map<string, Entity>;
  private readonly touching = new Map<string, Relation[]>();
  private readonly degrees: Map<string, number>;

  constructor(graph: Graph, degrees?: Map<string, number>) {
    this.entities = new Map(graph.entities.map((entity) => [entity.id, entity]));
    for (const relation of graph.relations) {
      if (!this.entities.has(relation.fromEntityId) || !this.entities.has(relation.toEntityId)) continue;
      for (const end of new Set([relation.fromEntityId, relation.toEntityId])) {
        const list = this.touching.get(end) ?? [];
        list.push(relation);
        this.touching.set(end, list);
      }
    }
    this.degrees = degrees ?? new Map([...this.entities.keys()].map((id) => [id, this.touching.get(id)?.length ?? 0]));
  }

  entity(id: string): Entity | undefined {
    return this.entities.get(id);
  }

  byName(workspace: string, name: string): Entity | undefined {
    return this.entities.get(entityIdOf(workspace, name));
  }

  /** The entities one relation away from any of `ids`, not among them. */
  neighbours(ids: readonly string[]): string[] {
    const from = new Set(ids);
    const found = new Set<string>();
    for (const id of ids) {
      for (const relation of this.touching.get(id) ?? []) {
        for (const end of [relation.fromEntityId, relation.toEntityId]) if (!from.has(end)) found.add(end);
      }
    }
    return [...found];
  }

  /**
   * `first` (kept in order), then `rest` most connected first, up to `limit` in all; the relations among those drawn.
   * Ties go oldest first, and relations are listed oldest first, so a slice is the same on every read.
   */
  slice(first: readonly string[], rest: readonly string[], limit: number): GraphSlice {
    const firsts = first.filter((id) => this.entities.has(id));
    const taken = new Set(firsts);
    const others = rest
      .filter((id) => this.entities.has(id) && !taken.has(id))
      .sort((x, y) => this.degree(y) - this.degree(x) || byCreation(this.entities.get(x)!, this.entities.get(y)!));
    const all = [...firsts, ...others];
    const drawn = all.slice(0, limit);
    const shown = new Set(drawn);
    const relations = new Map<string, Relation>();
    for (const id of drawn) {
      for (const relation of this.touching.get(id) ?? []) {
        if (shown.has(relation.fromEntityId) && shown.has(relation.toEntityId)) relations.set(relation.id, relation);
      }
    }
    return {
      entities: drawn.map((id) => nodeOf(this.entities.get(id)!, this.degree(id))),
      relations: [...relations.values()].sort(byCreation).map(edgeOf),
      truncated: all.length > drawn.length,
    };
  }

  private degree(id: string): number {
    return this.degrees.get(id) ?? 0;
  }
}

function nodeOf(entity: Entity, degree: number): GraphNode {
  return { name: entity.name, entityType: entity.entityType, ...(entity.tags.length > 0 ? { tags: entity.tags } : {}), degree };
}

const edgeOf = (relation: Relation): GraphEdge => ({ from: relation.fromName, to: relation.toName, relationType: relation.relationType });

function hasTag(entity: Entity, tag: string): boolean {
  return entity.tags.includes(tag) || [...entity.observationTags.values()].some((tags) => tags.includes(tag));
}

function sideOf({ entity, relations }: EntityNode): DuplicateSide {
  return {
    id: entity.id,
    name: entity.name,
    entityType: entity.entityType,
    observations: entity.observations,
    relations: [...relations].sort(byCreation).map(edgeOf),
    ...(entity.tags.length > 0 ? { tags: entity.tags } : {}),
  };
}

/** The events that touched the entity, each with only its own changes (a bulk call's event holds other entities' too). */
function ownEvents(events: readonly ChangeEvent[], id: string): ChangeEvent[] {
  return events
    .map((event) => ({ ...event, changes: event.changes.filter((change: Change) => touchesEntity(change, id)) }))
    .filter((event) => event.changes.length > 0);
}

/** The event's commit time to the millisecond, rounded down (see TimelineEvent.at). */
function eventTime(event: ChangeEvent): string {
  return new Date(Date.parse(commitTimeOf(event))).toISOString();
}

function timelineEventOf(event: ChangeEvent): TimelineEvent {
  return {
    id: event.id,
    at: eventTime(event),
    principal: event.principal,
    tool: event.tool,
    summary: describeEvent(event),
    kinds: [...new Set(event.changes.map((change) => change.kind))],
  };
}

function detailsOf(entity: Entity, lens: TimeLens): NonNullable<EntityDetails["entity"]> {
  const validity = entity.observationValidity;
  const observationValidity =
    validity && validity.size > 0
      ? Object.fromEntries(
          [...validity].map(([content, held]) => {
            const status = statusOf(held, lens);
            const { validFrom, validTo, supersededBy, expiresAt } = held;
            const shown = { validFrom, validTo, supersededBy, expiresAt, ...(status !== "current" ? { status } : {}) };
            return [content, Object.fromEntries(Object.entries(shown).filter(([, value]) => value !== undefined))];
          }),
        )
      : undefined;
  return {
    name: entity.name,
    entityType: entity.entityType,
    observations: entity.observations,
    ...(entity.tags.length > 0 ? { tags: entity.tags } : {}),
    ...(entity.observationTags.size > 0 ? { observationTags: Object.fromEntries(entity.observationTags) } : {}),
    ...(observationValidity ? { observationValidity } : {}),
    ...(Object.keys(entity.metadata).length > 0 ? { metadata: entity.metadata } : {}),
    ...(entity.createdAt ? { createdAt: entity.createdAt } : {}),
    ...(entity.createdBy ? { createdBy: entity.createdBy } : {}),
    ...(entity.updatedAt ? { updatedAt: entity.updatedAt } : {}),
    ...(entity.updatedBy ? { updatedBy: entity.updatedBy } : {}),
    ...(entity.expiresAt ? { expiresAt: entity.expiresAt } : {}),
    ...(entity.pinned ? { pinned: true } : {}),
  };
}

/** The relations that show through the lens, each once; their status when it is not current (includeSuperseded). */
function relationsOf(relations: readonly Relation[], lens: TimeLens): EntityDetails["relations"] {
  const distinct = [...new Map(relations.map((relation) => [relation.id, relation])).values()];
  return distinct
    .sort(byCreation)
    .filter((relation) => relationShows(relation, lens))
    .map((relation) => {
      const status = relationStatus(relation, lens);
      return { ...edgeOf(relation), ...(status !== "current" ? { status } : {}) };
    });
}

function checkGraphLimit(limit: number | undefined, fallback: number, max: number): number {
  const value = limit ?? fallback;
  if (!Number.isInteger(value) || value < 1 || value > max) throw new ValidationError(`limit must be a whole number from 1 to ${max}.`);
  return value;
}

function entityNotFound(name: string, workspace: string, asOf?: string): NotFoundError {
  return new NotFoundError(
    `Entity '${name}' ${asOf !== undefined ? `did not exist at ${asOf}` : "not found"} in workspace '${workspace}'. Names match exactly: ` +
      "open show_memory_graph with a query to find it.",
  );
}
