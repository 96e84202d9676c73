import { z } from "zod";

import { checkMaxChars } from "../../domain/model/budget.js";
import type { Relation } from "../../domain/model/model.js";
import { maxCharsInput } from "../budgets.js";
import { lensInput, officialGraphAnswer, toOfficialGraph } from "../graphShapes.js";
import { asOfInput } from "../historyShapes.js";
import { officialGraphWithin } from "../officialBudget.js";
import { defineTool } from "../tool.js";

/** Official memory-server parity (see createEntities.ts). */
export const openNodes = defineTool({
  name: "open_nodes",
  toolsets: ["graph"],
  title: "Open Nodes",
  description: "Open specific nodes in the knowledge graph by their names",
  input: {
    names: z.array(z.string()).describe("An array of entity names to retrieve"),
    asOf: asOfInput,
    ...lensInput,
    maxChars: maxCharsInput.describe(
      "Most characters of text to return: stops at whole entities; a second text block then lists the remainingNames to open next.",
    ),
  },
  ...officialGraphAnswer,
  async handler(args, { services, workspace, toolsets, note }) {
    if (args.maxChars !== undefined) checkMaxChars(args.maxChars);
    const graph = await services.graph.openNodes(workspace, args.names, {
      asOf: args.asOf,
      validAt: args.validAt,
      includeSuperseded: args.includeSuperseded,
    });
    // Validity fields only when asked for (and the tags toolset's shape has room): a default answer stays the official one.
    const lens = args.validAt !== undefined || args.includeSuperseded !== undefined ? graph.lens : undefined;
    if (args.maxChars === undefined) return toOfficialGraph(graph, toolsets.has("tags"), lens);
    const position = new Map(graph.entities.map((entity, i) => [entity.id, i]));
    // A relation to an entity not returned yet waits for the call that returns it, so each is listed once.
    const listedAt = (r: Relation) => Math.max(position.get(r.fromEntityId) ?? -1, position.get(r.toEntityId) ?? -1);
    const answer = await officialGraphWithin({
      entities: graph.entities,
      relations: graph.relations,
      offset: 0,
      maxChars: args.maxChars,
      listedAt,
      withTags: toolsets.has("tags"),
      lens,
      continuation: async (end) => ({
        remainingNames: graph.entities.slice(end).map((entity) => entity.name),
        message: "maxChars stopped the answer early: call open_nodes again with names = remainingNames (and the same maxChars).",
      }),
    });
    if (answer.note !== undefined) note(answer.note);
    return answer.graph;
  },
});
