import { z } from "zod";

import { IDEMPOTENT_DESTRUCTIVE_WRITE } from "../annotations.js";
import { officialStatus } from "../graphShapes.js";
import { defineTool } from "../tool.js";

const MESSAGE = "Entities deleted successfully";

/** Official memory-server parity (see createEntities.ts). */
export const deleteEntities = defineTool({
  name: "delete_entities",
  toolsets: ["graph"],
  title: "Delete Entities",
  description: "Delete multiple entities and their associated relations from the knowledge graph",
  input: { entityNames: z.array(z.string()).describe("An array of entity names to delete") },
  output: officialStatus,
  annotations: IDEMPOTENT_DESTRUCTIVE_WRITE,
  exactOutputSchema: true,
  text: (result) => result.message,
  async handler(args, { services, workspace, actor }) {
    await services.graph.deleteEntities(workspace, actor, args.entityNames);
    return { success: true, message: MESSAGE };
  },
});
