import { z } from "zod";

import { ADDITIVE_WRITE } from "../annotations.js";
import { entityName } from "../schemas.js";
import { defineTool } from "../tool.js";

export const restoreEntity = defineTool({
  name: "restore_entity",
  toolsets: ["history"],
  title: "Restore a deleted entity",
  description:
    "Bring back a deleted entity as it was at asOf (an ISO 8601 time; default: just before its last deletion): its type, " +
    "metadata, observations, tags, and its relations to entities that exist now (relations to entities since deleted are " +
    "skipped). The restore is a write like any other, recorded in the history, so it can be undone with delete_entities. " +
    "Refused, writing nothing: an entity that exists (also when another call creates it first), a source of merge_entities " +
    "without asOf (the message says how to split it back), and a state retention no longer holds in full.",
  input: {
    entityName,
    asOf: z.string().optional().describe("ISO 8601 time to restore the entity as it was then. Default: just before its deletion."),
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
  },
  annotations: ADDITIVE_WRITE,
  async handler(args, { services, workspace, actor }) {
    return {
      success: true as const,
      workspaceName: workspace,
      ...(await services.history.restoreEntity(workspace, actor, args.entityName, args.asOf)),
    };
  },
});
