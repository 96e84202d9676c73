import { z } from "zod";
import { defineTool } from "../tool.js";
import { officialGraphAnswer, toOfficialGraph } from "../graphShapes.js";
import { asOfInput } from "../historyShapes.js";

/** Official memory-server parity (see createEntities.ts). */
export const openNodes = defineTool({
  name: "open_nodes",
  groups: ["graph"],
  title: "Open Nodes",
  description: "Open specific nodes in the knowledge graph by their names",
  input: { names: z.array(z.string()).describe("An array of entity names to retrieve"), asOf: asOfInput },
  ...officialGraphAnswer,
  async handler(args, { memory, workspace, toolsets }) {
    return toOfficialGraph(await memory.openNodes(workspace, args.names, args.asOf), toolsets.has("tags"));
  },
});
