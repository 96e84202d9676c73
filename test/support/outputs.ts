/**
 * Tool outputs as tests read them (the structured content a real Client gets), declared once: src/mcp/graphShapes.ts
 * holds the schemas they follow. Fields a mode leaves out (mode "names", a plain connection's tag fields) are typed as
 * in the full answer; a test of those modes checks their absence itself. Type aliases, not interfaces, so that an output
 * is also a Record<string, unknown> (a test may compare any of them field by field).
 */

/** Who made and last changed an entity or relation (src/mcp/graphShapes.ts authorshipFields). */
export type Authored = {
  createdBy?: string;
  updatedBy?: string;
};

/** One entity of read_graph's answer (mode "full"). */
type GraphEntity = Authored & {
  id: string;
  name: string;
  entityType: string;
  observations: string[];
  metadata: Record<string, unknown>;
  version?: string;
  tags?: string[];
  observationTags?: Record<string, string[]>;
};

/** One relation of read_graph's answer (mode "full"). */
type GraphRelation = Authored & {
  id: string;
  from: string;
  to: string;
  fromEntityId: string;
  toEntityId: string;
  relationType: string;
  metadata: Record<string, unknown>;
  version?: string;
};

/** read_graph's answer on a connection with the graph group: a page of the workspace, with where to continue. */
export type GraphOut = {
  workspaceName: string;
  entities: GraphEntity[];
  relations: GraphRelation[];
  cursor?: string;
};

/** An entity in the official memory server's shape, with the tag fields a connection with the tags group adds. */
type OfficialEntity = {
  name: string;
  entityType: string;
  observations: string[];
  tags?: string[];
  observationTags?: Record<string, string[]>;
};

/** The graph in the official memory server's shape: read_graph on a core-only connection, open_nodes, search_nodes. */
export type OfficialGraph = {
  entities: OfficialEntity[];
  relations: { from: string; to: string; relationType: string }[];
};

/** One hit of search_entities (src/mcp/searchShapes.ts). */
type SearchHit = {
  entity: { id: string; name: string; entityType: string; observations: string[]; tags?: string[]; createdBy?: string; updatedAt?: string };
  score: number;
  matchedFields: string[];
  matchedObservations: string[];
};

/** search_entities' answer: a page of hits, with where to continue. */
export type SearchHits = {
  hits: SearchHit[];
  nextCursor?: string;
};

/** execute_batch's answer (docs/curate.md#execute_batch): one result per operation, and whether it was a replay. */
export type BatchAnswer = {
  atomic: boolean;
  replayed: boolean;
  results: ({ index: number; op: string; success: boolean } & Record<string, unknown>)[];
};
