import { z } from "zod";

/**
 * What the MCP Apps (docs/apps.md) read: the results of the tools that open an app (show_memory_graph, review_duplicates,
 * show_entity_timeline) and of the app-only tools the apps call afterwards. The viewer's code (src/viewer), which is the
 * standalone page and the app alike, reads these shapes and no others, so they are one contract for both.
 *
 * Every string here is the workspace's own text, untrusted: the viewer renders it only as text nodes.
 */

/** The one `ui://` resource every app tool points to: the viewer as a single HTML document, its script and style inline. */
export const APP_RESOURCE_URI = "ui://central-memory/viewer.html";

/** An entity as the graph draws it: no observations (the details panel reads those), its degree when known. */
const graphNode = z.object({
  name: z.string(),
  entityType: z.string(),
  tags: z.array(z.string()).optional().describe("Tags on the entity itself (present when it has any)."),
  degree: z.number().optional().describe("How many relations it has in the workspace (or at asOf), when known."),
});

/** A relation as the graph draws it. */
const graphEdge = z.object({ from: z.string(), to: z.string(), relationType: z.string() });

/** Part of the graph: entities and the relations among them (and, for an expansion, to entities already drawn). */
export const graphSliceShape = {
  workspaceName: z.string(),
  entities: z.array(graphNode),
  relations: z.array(graphEdge),
  truncated: z.boolean().describe("true: more entities matched than the limit; those returned are the most connected."),
  asOf: z.string().optional().describe("Present when the slice is the graph as it was at this time."),
};

/** The tools an app may call on this connection (its toolsets and the caller's grant): it offers only those actions. */
const offeredTools = z.array(z.string()).describe("Tools this caller may call on this connection; the app offers only these.");

/** show_memory_graph: what the graph app (and the page) opens on. */
export const graphViewShape = {
  app: z.literal("graph"),
  ...graphSliceShape,
  opening: z
    .enum(["entity", "search", "hubs", "all"])
    .describe("entity: one entity and its neighbourhood; search: the hits of a query; hubs: the most connected; all: a small graph whole."),
  focus: z.string().optional().describe("The entity it opened on (opening 'entity')."),
  hits: z.array(z.string()).describe("The search hits, best first (opening 'search'); marked in the graph."),
  totals: z.object({ entities: z.number(), relations: z.number() }).describe("The whole workspace's counts (at asOf, when given)."),
  historySince: z.string().optional().describe("When the workspace's history starts: the time slider's left end. Absent: no history."),
  tools: offeredTools,
};

/** One side of a probable duplicate pair, with what a person needs to judge it. */
const duplicateSide = z.object({
  id: z.string(),
  name: z.string(),
  entityType: z.string(),
  observations: z.array(z.string()),
  relations: z.array(graphEdge),
  tags: z.array(z.string()).optional(),
});

/** review_duplicates: the duplicate review app's data. */
export const duplicateReviewShape = {
  app: z.literal("duplicates"),
  workspaceName: z.string(),
  pairs: z.array(z.object({ a: duplicateSide, b: duplicateSide, score: z.number(), reasons: z.array(z.string()) })),
  rejected: z.number().describe("Pairs left out because a person rejected them (reject_duplicate_pair)."),
  tools: offeredTools,
};

/** One event of an entity's history, as a timeline shows it. */
const timelineEvent = z.object({
  id: z.string(),
  at: z.string(),
  principal: z.string(),
  tool: z.string(),
  summary: z.string(),
  kinds: z.array(z.string()).describe("The kinds of the event's changes to this entity (entity.created, observation.deleted, …)."),
});

/** show_entity_timeline: the timeline app's data, newest event first. */
export const timelineShape = {
  app: z.literal("timeline"),
  workspaceName: z.string(),
  entityName: z.string(),
  exists: z.boolean().describe("false: the entity is deleted now (restore_entity brings it back as it was)."),
  events: z.array(timelineEvent),
  cursor: z.string().optional().describe("Pass to show_entity_timeline for older events."),
  tools: offeredTools,
};

/** A fact's valid time as the details panel shows it (docs/history.md#two-times); `status` absent when it is current. */
const factValidity = z.object({
  validFrom: z.string().optional(),
  validTo: z.string().optional(),
  supersededBy: z.string().optional(),
  expiresAt: z.string().optional(),
  status: z.string().optional(),
});

/** app_entity_details: one entity's panel: its facts, relations and history, in one call. */
export const entityDetailsShape = {
  workspaceName: z.string(),
  entity: z
    .object({
      name: z.string(),
      entityType: z.string(),
      observations: z.array(z.string()),
      tags: z.array(z.string()).optional(),
      observationTags: z.record(z.string(), z.array(z.string())).optional(),
      observationValidity: z.record(z.string(), factValidity).optional(),
      metadata: z.record(z.string(), z.unknown()).optional(),
      createdAt: z.string().optional(),
      createdBy: z.string().optional(),
      updatedAt: z.string().optional(),
      updatedBy: z.string().optional(),
      expiresAt: z.string().optional(),
      pinned: z.boolean().optional(),
    })
    .nullable()
    .describe("null: no such entity (now, or at asOf)."),
  relations: z.array(graphEdge.extend({ status: z.string().optional() })),
  created: z.object({ at: z.string(), principal: z.string() }).optional().describe("Its creation, from the history."),
  recent: z.array(timelineEvent).describe("Its newest events, newest first (up to 10)."),
  asOf: z.string().optional(),
};
