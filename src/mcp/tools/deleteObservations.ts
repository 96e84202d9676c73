import { z } from "zod";

import { IDEMPOTENT_DESTRUCTIVE_WRITE } from "../annotations.js";
import { officialStatus } from "../graphShapes.js";
import { defineTool } from "../tool.js";

const MESSAGE = "Observations deleted successfully";

/** Official memory-server parity (see createEntities.ts). */
export const deleteObservations = defineTool({
  name: "delete_observations",
  toolsets: ["graph"],
  title: "Delete Observations",
  description: "Delete specific observations from entities in the knowledge graph",
  input: {
    deletions: z.array(
      z.object({
        entityName: z.string().describe("The name of the entity containing the observations"),
        observations: z.array(z.string()).describe("An array of observations to delete"),
      }),
    ),
  },
  output: officialStatus,
  annotations: IDEMPOTENT_DESTRUCTIVE_WRITE,
  exactOutputSchema: true,
  text: (result) => result.message,
  async handler(args, { services, workspace, actor }) {
    await services.graph.deleteObservations(workspace, actor, args.deletions);
    return { success: true, message: MESSAGE };
  },
});
