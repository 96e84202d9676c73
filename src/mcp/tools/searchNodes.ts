import { z } from "zod";
import { DEFAULT_SEARCH_LIMIT } from "../../domain/memory.js";
import { LIMITS } from "../../domain/limits.js";
import { defineTool } from "../tool.js";
import { resultLimit } from "../schemas.js";
import { officialGraphAnswer, toOfficialGraph } from "../graphShapes.js";

/** Official memory-server parity (see createEntities.ts), plus an optional `limit`. */
export const searchNodes = defineTool({
  name: "search_nodes",
  groups: ["graph"],
  title: "Search Nodes",
  description: "Search for nodes in the knowledge graph based on a query",
  input: {
    query: z.string().describe("The search query to match against entity names, types, and observation content"),
    limit: resultLimit
      .optional()
      .describe(
        `Most entities to return (1-${LIMITS.itemsPerCall}, default ${DEFAULT_SEARCH_LIMIT}), best first: name matches, then type, then observation matches.`,
      ),
  },
  ...officialGraphAnswer,
  async handler(args, { memory, workspace, toolsets }) {
    return toOfficialGraph(await memory.searchNodes(workspace, args.query, args.limit), toolsets.has("tags"));
  },
});
