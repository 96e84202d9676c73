import { z } from "zod";
import { LIMITS } from "../../domain/limits.js";
import { defineTool } from "../tool.js";
import { resultLimit } from "../schemas.js";
import { graphOutput, toGraphOutput } from "../graphShapes.js";
import { asOfInput } from "../historyShapes.js";

export const readGraph = defineTool({
  name: "read_graph",
  groups: ["core", "graph"],
  title: "Read the graph",
  description:
    "Read the workspace's entities (with observations, in the order they were added) and relations. With no arguments it returns " +
    "everything. For a large graph, page it: `limit` entities per page, each with the relations that start at them, and pass the " +
    "returned `cursor` back for the next page (no cursor means the last page). mode 'names' returns only names and types, a small " +
    "overview to pick entities from; then use open_nodes for their details. In mode 'full', entities and relations also say who " +
    "created them (createdBy) and last changed them (updatedBy). With the tags group, entities also carry `tags` and " +
    "(in mode 'full') `observationTags`: observation text -> tags.",
  input: {
    limit: resultLimit.optional().describe(`Entities per page (1-${LIMITS.itemsPerCall}). Omit for everything.`),
    cursor: z.string().optional().describe("The cursor a previous page returned, unchanged."),
    mode: z.enum(["full", "names"]).optional().describe("'full' (default): observations and metadata too; 'names': names and types only."),
    asOf: asOfInput.describe("An ISO 8601 time: the whole graph as it was then, rebuilt from the change history (no paging)."),
  },
  output: graphOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(args, { memory, workspace, toolsets }) {
    const mode = args.mode ?? "full";
    const page = await memory.readGraph(workspace, { limit: args.limit, cursor: args.cursor, mode, asOf: args.asOf });
    return toGraphOutput(workspace, page, mode, toolsets.has("tags"));
  },
});
