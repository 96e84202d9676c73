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
} as const;
