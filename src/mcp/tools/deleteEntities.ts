import { z } from "zod";

import { LIMITS } from "../../domain/model/limits.js";
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
  // The description and entityNames are the official server's; `confirm` is ours, optional, so its clients work unchanged.
  input: {
    entityNames: z.array(z.string()).describe("An array of entity names to delete"),
    confirm: z
      .boolean()
      .optional()
      .describe(
        `true: confirms deleting more than ${LIMITS.deleteEntitiesUnconfirmed} entities in one call, for a client that cannot ask ` +
          `its user (required then). Not needed for ${LIMITS.deleteEntitiesUnconfirmed} or fewer, nor when the client asks its user.`,
      ),
  },
  output: officialStatus,
  annotations: IDEMPOTENT_DESTRUCTIVE_WRITE,
  exactOutputSchema: true,
  text: (result) => result.message,
  async handler(args, { services, workspace, actor, confirm }) {
    const names = [...new Set(args.entityNames)].sort();
    if (names.length > LIMITS.deleteEntitiesUnconfirmed) {
      await confirm({
        question: `Delete ${names.length} entities from workspace '${workspace}', with their observations and relations? ${preview(names)}`,
        subject: { entityNames: names },
        explicit: args.confirm === true,
        howToConfirm: `pass confirm: true to delete ${names.length} entities at once (more than ${LIMITS.deleteEntitiesUnconfirmed} need it)`,
      });
    }
    await services.graph.deleteEntities(workspace, actor, args.entityNames);
    return { success: true, message: MESSAGE };
  },
});

/** The first few names, so the user sees what the question is about. */
function preview(names: string[]): string {
  const shown = names.slice(0, 5).map((name) => `'${name.slice(0, 80)}'`);
  return `${shown.join(", ")}${names.length > shown.length ? ` and ${names.length - shown.length} more` : ""}.`;
}
