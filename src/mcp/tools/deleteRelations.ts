import { z } from "zod";

import { IDEMPOTENT_DESTRUCTIVE_WRITE } from "../annotations.js";
import { officialRelation, officialStatus } from "../graphShapes.js";
import { defineTool } from "../tool.js";

const MESSAGE = "Relations deleted successfully";

/** Official memory-server parity (see createEntities.ts). */
export const deleteRelations = defineTool({
  name: "delete_relations",
  toolsets: ["graph"],
  title: "Delete Relations",
  description: "Delete multiple relations from the knowledge graph",
  input: { relations: z.array(officialRelation).describe("An array of relations to delete") },
  output: officialStatus,
  annotations: IDEMPOTENT_DESTRUCTIVE_WRITE,
  exactOutputSchema: true,
  text: (result) => result.message,
  async handler(args, { services, workspace, actor }) {
    await services.graph.deleteRelations(workspace, actor, args.relations);
    return { success: true, message: MESSAGE };
  },
});
