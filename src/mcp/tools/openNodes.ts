import { z } from "zod";
import { defineTool } from "../tool.js";
import { indentedJson, officialGraph, taggedGraph, toOfficialGraph } from "../graphShapes.js";

/** Official memory-server parity (see createEntities.ts). */
export const openNodes = defineTool({
  name: "open_nodes",
  group: "graph",
  title: "Open Nodes",
  description: "Open specific nodes in the knowledge graph by their names",
  input: { names: z.array(z.string()).describe("An array of entity names to retrieve") },
  // With the tags group, entities also carry their tags (optional fields); without it, the official shape exactly.
  output: taggedGraph,
  outputWithoutTags: officialGraph,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  exactOutputSchema: true,
  text: indentedJson,
  async handler(args, { memory, workspace, toolsets }) {
    return toOfficialGraph(await memory.openNodes(workspace, args.names), toolsets.has("tags"));
  },
});
