/** Allowance for clocks of different instances disagreeing (NTP keeps Azure hosts far closer): the feed's lateness, and "now" in valid time. */
export const CLOCK_SKEW_ALLOWANCE_MS = 30_000;

/**
 * Size rules, checked before any storage call. They come from Table Storage's limits:
 * a string property holds at most 32,768 UTF-16 code units (64 KiB), and an
 * entity-group transaction holds at most 100 operations and 4 MiB.
 */
export const LIMITS = {
  workspaceNamePattern: /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/,
  /** Names are stored in every edge row that points at them, so keep them modest. */
  entityName: 1024,
  entityType: 256,
  relationType: 256,
  /** One observation is one string property. */
  observation: 32_768,
  /** Metadata is stored as JSON text in one string property. */
  metadataJson: 32_768,
  /**
   * Nesting levels of metadata. Deeper JSON overflows the stack of JSON.stringify: ours (a client
   * mistake reported as an internal failure) and the MCP SDK's, which then never answers the request.
   */
  metadataDepth: 32,
  /** A tag's name is copied into every link and index row that carries it. */
  tagName: 256,
  /** A declared fact key (declare_fact_keys): a short word such as owner or status. */
  factKey: 64,
  tagCategory: 256,
  tagDescription: 4096,
  /**
   * Tags one tag_entity or tag_observation call may add: each costs three operations (link, index row,
   * definition) and two go to guards, so the call stays one transaction of at most 100.
   */
  tagsPerCall: 32,
  observationsPerCall: 1000,
  itemsPerCall: 1000,
  /** search_entities' query: a few words; longer text is a document, not a question. */
  searchQuery: 1000,
  batchOperations: 100,
  /** Stay well under the 4 MiB transaction payload limit; JSON escaping can double a string's size. */
  batchPayloadBytes: 3_500_000,
  /** get_neighbors: the deepest neighbourhood (each level is one parallel round of range reads). */
  neighborDepth: 3,
  /** get_neighbors: entities returned when no limit is given. */
  neighborLimit: 100,
  /** get_neighbors with an entityTypes filter: the most entities one call reads (entities of other types are read, then dropped). */
  neighborReads: 1000,
  /** find_path: the longest path looked for. */
  pathDepth: 6,
  /**
   * find_path: the most entities whose edges one search reads (one range read each), so a search
   * through a dense graph costs at most this many requests before it answers "no path found".
   */
  pathVisitedEntities: 1000,
  /**
   * delete_entities: the most entities one call deletes without a confirmation (docs/confirmation.md). At or under it the
   * call is the official memory server's, unchanged; over it the user (or the agent's explicit `confirm: true`) confirms.
   */
  deleteEntitiesUnconfirmed: 10,
  /** maxChars: the largest budget accepted (10 MB of JSON text is already far more than any agent can read). */
  maxChars: 10_000_000,
  /** get_context: the smallest budget (the brief's frame alone takes a few dozen tokens) and the largest (docs/context.md). */
  contextMinTokens: 100,
  contextMaxTokens: 20_000,
  contextDefaultTokens: 2_000,
  /** get_context: entities one call may name (each is one lookup in the index). */
  contextEntityNames: 50,
  /** get_context: search hits taken for the query, observations offered per entity, newest change events offered. */
  contextHits: 10,
  contextObservationsPerEntity: 8,
  contextEvents: 5,
  /** get_context: how far back "what changed recently" reads the feed (one query of this window, filtered to one entity). */
  contextRecentMs: 7 * 24 * 60 * 60 * 1000,
} as const;
