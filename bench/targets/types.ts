/** What the workload asks of a target, independent of its tool names or storage. */
export interface EntitySpec {
  name: string;
  entityType: string;
  observations: string[];
}

export interface RelationSpec {
  from: string;
  to: string;
  relationType: string;
}

export interface GraphCounts {
  entities: number;
  observations: number;
  relations: number;
}

/**
 * The workload's operations. Each resolves only when the target reports success (an error result
 * throws), so a target can never look fast by failing. A target implements those it has; a phase
 * whose operation a target lacks is reported as n/a.
 */
export interface Operations {
  createEntity(entity: EntitySpec): Promise<void>;
  createRelation(relation: RelationSpec): Promise<void>;
  /** Adds these observations to one existing entity. */
  addObservations(name: string, contents: string[]): Promise<void>;
  /** open_nodes with one name; resolves to how many observations that entity has (0 if it is absent). */
  openNodes(name: string): Promise<number>;
  getEntityRelations(name: string): Promise<void>;
  searchNodes(query: string): Promise<void>;
  readGraph(): Promise<GraphCounts>;
  /** get_changes: the newest 50 events of the workspace (only targets with a change feed). */
  getChanges(): Promise<void>;
  /** get_entity_history of one entity, its 50 oldest events. */
  getEntityHistory(name: string): Promise<void>;
  /** search_entities: ranked search for the text (here an entity's name). */
  searchEntities(query: string): Promise<void>;
  /** search_relations: the relations starting at one entity. */
  searchRelations(from: string): Promise<void>;
  getStats(): Promise<void>;
  /** get_context (ours only): a brief for one entity's name as query and as the entity named. */
  getContext(name: string): Promise<void>;
  /** Writes many entities, then many relations, in as few calls as the target allows (bench/search.ts seeds with it). */
  seed(entities: EntitySpec[], relations: RelationSpec[]): Promise<void>;
  /** get_neighbors of one entity, depth 2, both directions (only targets with traversal). */
  getNeighbors(name: string): Promise<void>;
  /** find_path between two entities. */
  findPath(from: string, to: string): Promise<void>;
  /** curate (ours only, in a workspace of its own): an atomic execute_batch of 10 operations making the `index`-th group of 5 entities. */
  executeBatch(index: number): Promise<void>;
  /** detect_duplicate_entities over that workspace. */
  detectDuplicates(): Promise<void>;
  /** merge_entities of the `index`-th group's second entity into its first. */
  mergeEntities(index: number): Promise<void>;
  /** supersede_observation (ours only): replaces the observation the `index`-th add_observations call added to the entity. */
  supersedeObservation(name: string, index: number): Promise<void>;
  /** Creates `count` entities expiring in a second (create_entities' ttlSeconds), in a workspace of their own, and waits until they expired. */
  seedExpiring(count: number): Promise<void>;
  /** sweep_expired of that workspace; resolves to how many entities it deleted. */
  sweepExpired(): Promise<number>;
  /** reject_duplicate_pair (ours only, in the curate workspace): the `index`-th group's first and third entities, not duplicates. */
  rejectDuplicatePair(index: number): Promise<void>;
  /** The apps toolset (ours only, docs/apps.md). show_memory_graph as a model opens it: no arguments. */
  showMemoryGraph(): Promise<void>;
  /** app_expand: one entity's neighbourhood, as the graph app asks for it. */
  appExpand(name: string): Promise<void>;
  /** app_filter: the workload's entity type. */
  appFilter(): Promise<void>;
  /** app_entity_details: one entity's panel. */
  appEntityDetails(name: string): Promise<void>;
  /** show_entity_timeline of one entity. */
  showEntityTimeline(name: string): Promise<void>;
  /** review_duplicates over the curate workspace. */
  reviewDuplicates(): Promise<void>;
}

export interface Target {
  /** ours | floor | server-memory */
  name: string;
  description: string;
  ops: Partial<Operations>;
  /** Lines the report prints about this target's run (e.g. how many pairs duplicate detection compared). */
  notes?(): string[];
  /** Storage requests made so far; absent for a target without Table Storage. */
  storageRequests?(): Promise<number>;
  /** Bytes the storage requests downloaded so far (answer bodies); absent for a target without Table Storage. */
  storageBytes?(): Promise<number>;
  /**
   * Durations the server measured inside its tool handler since the last drain (from its per-call log
   * line), for a target whose server runs apart from the driver; they exclude HTTP and JSON-RPC.
   */
  drainServerDurations?(): Promise<number[]>;
  /** The viewer page of the workload's workspace, for a target that serves one (the browser phase). */
  viewerUrl?: string;
  /** Peak RSS of the process doing the target's work, where that is a separate process. */
  peakRssBytes?(): number | undefined;
  close(): Promise<void>;
}

/** Every target uses this workspace (in its own table or file), so keys and sizes are the same. */
export const BENCH_WORKSPACE = "bench";

/**
 * Seeds through create_entities and create_relations, 100 items a call (a call's transactions run in parallel: more at once
 * time out on a loaded Azurite), each call tried up to three times (both tools skip what exists, so a retry is safe).
 */
export async function seedInChunks(
  call: (name: string, args: Record<string, unknown>) => Promise<unknown>,
  entities: EntitySpec[],
  relations: RelationSpec[],
): Promise<void> {
  const CHUNK = 100;
  const attempt = async (name: string, args: Record<string, unknown>) => {
    for (let tries = 1; ; tries++) {
      try {
        return await call(name, args);
      } catch (error) {
        if (tries >= 3) throw error;
      }
    }
  };
  for (let i = 0; i < entities.length; i += CHUNK) await attempt("create_entities", { entities: entities.slice(i, i + CHUNK) });
  for (let i = 0; i < relations.length; i += CHUNK) await attempt("create_relations", { relations: relations.slice(i, i + CHUNK) });
}
