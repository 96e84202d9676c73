import { z } from "zod";

import { ADDITIVE_WRITE } from "../annotations.js";
import { indentedJson } from "../graphShapes.js";
import { validityInput } from "../schemas.js";
import { defineTool } from "../tool.js";

/** Official memory-server parity (see createEntities.ts). */
export const addObservations = defineTool({
  name: "add_observations",
  toolsets: ["graph"],
  title: "Add Observations",
  description: "Add new observations to existing entities in the knowledge graph",
  input: {
    observations: z.array(
      z.object({
        entityName: z.string().describe("The name of the entity to add the observations to"),
        contents: z.array(z.string()).describe("An array of observation contents to add"),
      }),
    ),
    // Beyond the official schema, optional: the valid time and expiry of the observations added (docs/history.md#two-times).
    ...validityInput,
  },
  output: { results: z.array(z.object({ entityName: z.string(), addedObservations: z.array(z.string()) })) },
  annotations: ADDITIVE_WRITE,
  exactOutputSchema: true,
  text: (result) => indentedJson(result.results),
  async handler(args, { services, workspace, actor }) {
    const { observations, ...times } = args;
    return { results: await services.graph.addObservations(workspace, actor, observations, times) };
  },
});
