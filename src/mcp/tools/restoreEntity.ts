import { z } from "zod";

import { DESTRUCTIVE_WRITE } from "../annotations.js";
import { entityName } from "../schemas.js";
import { defineTool } from "../tool.js";

export const restoreEntity = defineTool({
  name: "restore_entity",
  toolsets: ["history"],
  title: "Restore an entity as it was",
  description:
    "Bring back a deleted entity as it was at asOf (an ISO 8601 time; default: just before its last deletion): its type, " +
    "metadata, observations, tags, and its relations to entities that exist now (relations to entities since deleted are " +
    "skipped). The restore is a write like any other, recorded in the history, so it can be undone with delete_entities. " +
    "With rollBack: true (and asOf), an entity that exists is rolled back to its state then (undo): observations superseded " +
    "or ended since are reopened, relations ended since reopened, expiry and pins put back, observations and relations added " +
    "since deleted (the history keeps them) and those deleted since added back; `rolledBack` lists what changed. This is how " +
    "supersede_observation, end_relation and set_expiry are undone (a deleted entity is simply restored). Refused, writing " +
    "nothing: an entity that exists without rollBack, a deleted one that another call creates first, a source of merge_entities without asOf (the message says how to " +
    "split it back), and a state retention no longer holds in full.",
  input: {
    entityName,
    asOf: z
      .string()
      .optional()
      .describe("ISO 8601 time to restore the entity as it was then. Default: just before its deletion. Required with rollBack."),
    rollBack: z
      .boolean()
      .optional()
      .describe("Roll an entity that exists back to its state at asOf (undo); without it, an entity that exists is refused."),
  },
  output: {
    success: z.literal(true),
    workspaceName: z.string(),
    entityName: z.string(),
    entityId: z.string(),
    restoredAsOf: z.string().describe("The time whose state was restored."),
    observations: z.number().describe("Observations restored."),
    relations: z.number().describe("Relations restored."),
    relationsSkipped: z.number().describe("Relations left out: their other endpoint does not exist now."),
    tags: z.array(z.string()).describe("Tags restored on the entity."),
    observationTags: z.number().describe("Tags restored on its observations."),
    rolledBack: z
      .object({
        observationsRestored: z.array(z.string()).describe("Observations whose valid time or expiry was put back (e.g. reopened)."),
        observationsRemoved: z.array(z.string()).describe("Observations added since asOf, deleted."),
        observationsAddedBack: z.array(z.string()).describe("Observations deleted since asOf, added back."),
        relationsRestored: z.array(z.string()).describe("Relations whose valid time or expiry was put back, as 'from type to'."),
        relationsRemoved: z.array(z.string()).describe("Relations created since asOf, deleted."),
        relationsAddedBack: z.array(z.string()).describe("Relations deleted since asOf, created again."),
        expiryRestored: z.boolean().describe("The entity's own expiry and pin were put back."),
      })
      .optional()
      .describe("Present when the entity existed: what rolling it back to asOf changed."),
  },
  annotations: DESTRUCTIVE_WRITE, // with rollBack it deletes what was added since asOf
  async handler(args, { services, workspace, actor }) {
    return {
      success: true as const,
      workspaceName: workspace,
      ...(await services.history.restoreEntity(workspace, actor, args.entityName, args.asOf, args.rollBack)),
    };
  },
});
