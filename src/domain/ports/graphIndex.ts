import type { ChangeEvent, FeedPosition } from "../feed/history.js";
import type { Entity, EntityNode, ReadMode, Relation, TagDefinition, TagUsage } from "../model/model.js";
import type { TraversalPort } from "../rules/navigation.js";
import type { TimeLens } from "../rules/validity.js";

/**
 * The workspace index port (docs/search.md): whole-workspace reads answered from an index each instance
 * keeps per workspace, built by one scan and kept current by reading the change feed's tail before
 * each answer (one request when nothing changed). The engine behind it is in-process (src/search);
 * past one instance's memory it would be Azure AI Search behind this same port.
 */
export interface GraphIndex {
  /**
   * read_graph's page: entities in key order after `after`, at most `limit` of them (all when absent), with the relations whose
   * source is among them, so paging returns each relation once. Mode "names" leaves observations and metadata empty.
   */
  readGraph(workspace: string, options: { limit?: number; after?: string; mode?: ReadMode }): Promise<StoredPage>;
  /** search_nodes' substring rule (domain/rules/search.ts): the best `limit` entities, each with every relation touching it. */
  searchNodes(workspace: string, query: string, limit: number): Promise<EntityNode[]>;
  listTags(workspace: string): Promise<TagDefinition[]>;
  /** How many entities and observations carry each tag; through `lens`, only those that show (without one: all held). */
  tagUsage(workspace: string, lens?: TimeLens): Promise<TagUsage[]>;
  /**
   * Every entity with its relations, streamed straight from storage in key order (one request per 1,000 rows), never from a
   * held index: for a call that reads the workspace once and must not hold it whole (detect_duplicate_entities, import). A
   * held index would answer for one feed-tail read only once built, and building it (a scan and a generation claim) for
   * one pass costs more than the pass (docs/architecture.md#storage-round-trips-per-call).
   */
  scanNodes(workspace: string): AsyncIterable<EntityNode>;
  /** The tag definitions as stored (one range read), for the same one-pass callers as scanNodes (import). */
  scanTags(workspace: string): Promise<TagDefinition[]>;
  /**
   * Ranked, filtered entity search: one page of hits in rank order, after the hit of entity `page.after`. Through
   * `query.lens` (docs/history.md#two-times) no ranker finds an entity by what does not show, and hits show only what does.
   */
  searchEntities(workspace: string, query: EntitySearch, page: PageRequest): Promise<EntityHitsPage>;
  /** Relations matching every filter given, oldest first: one page, after relation `page.after`; through `query.lens`, those that show. */
  searchRelations(workspace: string, query: RelationSearch, page: PageRequest): Promise<{ relations: Relation[]; more: boolean }>;
  /** get_stats; through `lens`, counting only what shows (and how many held facts do not). */
  stats(workspace: string, lens?: TimeLens): Promise<GraphStats>;
  /**
   * A traversal port answering from the index, brought current once (one storage request): a whole
   * get_neighbors or find_path runs on it with no further request, however many levels it walks. Through `lens`, hidden
   * entities read as absent and only relations that show are followed.
   */
  traversal(workspace: string, lens?: TimeLens): Promise<TraversalPort>;
  /**
   * list_conflicts: every entity that shows holding two or more current observations (through `query.lens`) on one fact
   * key (factOf) whose values differ, by entity name, then key (the caller pages them).
   */
  conflicts(workspace: string, query: ConflictSearch): Promise<FactConflict[]>;
}

/** One page of read_graph in key order: `after` is the position to continue from (absent on the last page). */
export interface StoredPage {
  entities: Entity[];
  relations: Relation[];
  after?: string;
}

/** Which rankers a search fuses (docs/search.md#hybrid-retrieval): words (BM25) only, meaning (vectors) only, or both with graph proximity. */
export type SearchMode = "hybrid" | "words" | "meaning";

export interface EntitySearch {
  /** Free text; absent or empty lists by the filters alone. */
  query?: string;
  /** Default "hybrid". */
  mode?: SearchMode;
  /** Each hit says which rankers found it (EntityHit.explain). */
  explain?: boolean;
  entityType?: string;
  /** Every one of them, on the entity itself or on one of its observations. */
  tags?: string[];
  createdBy?: string;
  /** Milliseconds: entities changed at or after. */
  updatedSince?: number;
  /** What shows (docs/history.md#two-times); without one, everything held. */
  lens?: TimeLens;
}

export interface ConflictSearch {
  /** Only this key (compared without case). */
  key?: string;
  lens: TimeLens;
}

/** One entity's disagreeing current values on one key. */
export interface FactConflict {
  entityId: string;
  entityName: string;
  entityType: string;
  /** Lower case (factOf). */
  key: string;
  /** Each current observation on the key, in the order added. */
  values: { observation: string; validFrom?: string }[];
}

export interface PageRequest {
  /** The id of the last item of the previous page. */
  after?: string;
  limit: number;
}

/** One page of search_entities' hits; `unavailable` says why meaning took no part (the embedder failed), when it did not. */
interface EntityHitsPage {
  hits: EntityHit[];
  more: boolean;
  unavailable?: string;
}

export interface EntityHit {
  entity: Entity;
  score: number;
  matchedFields: ("name" | "entityType" | "observations")[];
  matchedObservations: string[];
  version?: string;
  /** With `explain`: the rankers that found the hit, at what rank (1 = first), and through what. */
  explain?: HitExplanation;
}

export interface HitExplanation {
  words?: { rank: number; score: number };
  /** `observation` is the entity's text nearest the query, absent when that was its name. */
  meaning?: { rank: number; similarity: number; observation?: string };
  /** The hit is a neighbour of a strong hit: the relation that links them. */
  graph?: { rank: number; via: { from: string; relationType: string; to: string } };
}

/** How far the workspace's texts have vectors (get_stats): all of them once `pending` is 0. */
export interface EmbeddingProgress {
  model: string;
  remote: boolean;
  vectors: number;
  pending: number;
}

export interface RelationSearch {
  relationType?: string;
  fromId?: string;
  toId?: string;
  /** Either endpoint has this type. */
  entityType?: string;
  /** What shows (docs/history.md#two-times); without one, everything held. */
  lens?: TimeLens;
}

export interface GraphStats {
  entities: number;
  relations: number;
  observations: number;
  tags: number;
  entityTypes: { entityType: string; count: number }[];
  relationTypes: { relationType: string; count: number }[];
  mostConnected: { id: string; name: string; entityType: string; degree: number }[];
  writesByPrincipal: { principal: string; writes: number }[];
  firstWriteAt?: string;
  lastWriteAt?: string;
  /** Absent when search by meaning is off (MEMORY_EMBEDDINGS=off). */
  embedding?: EmbeddingProgress;
  /**
   * Through a lens, when any: observations and relations held but not shown as current (superseded, ended, not yet valid),
   * counted whether or not the read includes them.
   */
  superseded?: number;
  /** Through a lens, when any: entities, observations and relations that show and carry a future, unpinned expiry. */
  expiring?: number;
  /** Through a lens, when any: entities, observations and relations expired and not swept yet (hidden from every read). */
  expired?: number;
}

/** The registry row as a feed-tail read sees it: absent, or present with or without the index generation. */
export interface RegistryState {
  present: boolean;
  generation?: string;
  etag?: string;
}

/** What one scan of a workspace gives the index: its entities, tag definitions, the feed's recent tail and the registry row. */
export interface WorkspaceSnapshot {
  nodes: EntityNode[];
  tags: TagDefinition[];
  /** Entity versions by id, where the rows carry one. */
  versions: Map<string, string>;
  /** The events of the lateness window, oldest first: applied on top of the rows (they may or may not be in them). */
  events: ChangeEvent[];
  registry: RegistryState;
  position: FeedPosition;
}

export interface FeedTail {
  events: ChangeEvent[];
  registry: RegistryState;
  position: FeedPosition;
}

/** The storage side of the index: one scan to build, one range read per refresh, and the one-pass reads behind scanNodes and scanTags. */
export interface IndexSource {
  snapshot(workspace: string): Promise<WorkspaceSnapshot>;
  /** Every entity with its relations, streamed in key order: one entity held at a time. */
  scanNodes(workspace: string): AsyncIterable<EntityNode>;
  /** Every tag definition, in no particular order (one range read). */
  scanTags(workspace: string): Promise<TagDefinition[]>;
  /** The events after `position` and the registry row, in one request; undefined when retention may have pruned events since. */
  tail(workspace: string, position: FeedPosition): Promise<FeedTail | undefined>;
  /** Sets the generation on a registry row that has none (If-Match on its ETag); the generation the row holds afterwards. */
  claimGeneration(workspace: string, registry: RegistryState): Promise<string | undefined>;
}
