import { z } from "zod";

import { checkMaxChars } from "../../domain/model/budget.js";
import { LIMITS } from "../../domain/model/limits.js";
import type { Relation } from "../../domain/model/model.js";
import { DEFAULT_SEARCH_LIMIT } from "../../domain/services/graphService.js";
import { maxCharsInput } from "../budgets.js";
import { lensInput, officialGraphAnswer, toOfficialGraph } from "../graphShapes.js";
import { officialGraphWithin } from "../officialBudget.js";
import { resultLimit } from "../schemas.js";
import { defineTool } from "../tool.js";

/** Official memory-server parity (see createEntities.ts), plus an optional `limit`. */
export const searchNodes = defineTool({
  name: "search_nodes",
  toolsets: ["graph"],
  title: "Search Nodes",
  description: "Search for nodes in the knowledge graph based on a query",
  input: {
    query: z.string().describe("The search query to match against entity names, types, and observation content"),
    limit: resultLimit
      .optional()
      .describe(
        `Most entities to return (1-${LIMITS.itemsPerCall}, default ${DEFAULT_SEARCH_LIMIT}), best first: name matches, then type, then observation matches.`,
      ),
    maxChars: maxCharsInput.describe(
      "Most characters of text to return: stops at whole entities; a second text block then holds a cursor for the rest.",
    ),
    cursor: z.string().optional().describe("The cursor a maxChars answer gave, with the same query and limit: the rest of the results."),
    ...lensInput,
  },
  ...officialGraphAnswer,
  async handler(args, { services, workspace, toolsets, note }) {
    if (args.maxChars !== undefined) checkMaxChars(args.maxChars);
    const asked = { validAt: args.validAt, includeSuperseded: args.includeSuperseded };
    const scope = {
      workspace,
      tool: "search_nodes" as const,
      mode: JSON.stringify({ query: args.query, limit: args.limit, ...asked }),
    };
    const offset = args.cursor === undefined ? 0 : Number(await services.cursors.decode(scope, args.cursor));
    const graph = await services.graph.searchNodes(workspace, args.query, args.limit, asked);
    // Validity fields only when asked for (and the tags toolset's shape has room): a default answer stays the official one.
    const lens = args.validAt !== undefined || args.includeSuperseded !== undefined ? graph.lens : undefined;
    if (args.maxChars === undefined && offset === 0) return toOfficialGraph(graph, toolsets.has("tags"), lens);
    const position = new Map(graph.entities.map((entity, i) => [entity.id, i]));
    // A relation is listed with the best-ranked matching entity it touches, so following the cursor lists each once.
    const listedAt = (r: Relation) =>
      Math.min(position.get(r.fromEntityId) ?? Number.MAX_SAFE_INTEGER, position.get(r.toEntityId) ?? Number.MAX_SAFE_INTEGER);
    const answer = await officialGraphWithin({
      entities: graph.entities,
      relations: graph.relations,
      offset,
      maxChars: args.maxChars,
      listedAt,
      withTags: toolsets.has("tags"),
      lens,
      continuation: async (end) => ({
        cursor: await services.cursors.encode(scope, String(end)),
        message: "maxChars stopped the answer early: call search_nodes again with this cursor (and the same query and limit) for the rest.",
      }),
    });
    if (answer.note !== undefined) note(answer.note);
    return answer.graph;
  },
});
