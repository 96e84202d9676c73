import { z } from "zod";

import { IDEMPOTENT_WRITE } from "../annotations.js";
import { entityName, relationType } from "../schemas.js";
import { defineTool } from "../tool.js";

export const setExpiry = defineTool({
  name: "set_expiry",
  toolsets: ["history"],
  title: "Set or clear an expiry, pin or unpin",
  description:
    "Set when an entity, one of its observations, or one of its outgoing relations expires (expiresAt, a future ISO 8601 time), " +
    "clear it (expiresAt: null), and/or pin it (pinned: true exempts it from expiry; false unpins). Name the entity; add observation " +
    "(its exact text) or relation ({to, relationType}) to target one of those instead. An expired item is hidden from every read at " +
    "once and deleted by the next sweep (sweep_expired); an item that has already expired cannot be renewed (NotFoundError): write it again. " +
    "Recorded in the history (get_changes).",
  input: {
    entityName,
    observation: z.string().optional().describe("The observation's exact text, to set its expiry instead of the entity's."),
    relation: z
      .object({ to: entityName.describe("The relation's target entity."), relationType })
      .optional()
      .describe("A relation from entityName, to set its expiry instead of the entity's."),
    expiresAt: z
      .string()
      .nullable()
      .optional()
      .describe("When it expires (ISO 8601, in the future), or null to clear the expiry. Absent: unchanged."),
    pinned: z.boolean().optional().describe("true pins it (it never expires while pinned), false unpins it. Absent: unchanged."),
  },
  output: {
    success: z.literal(true),
    entityName: z.string(),
    observation: z.string().optional(),
    relation: z.object({ to: z.string(), relationType: z.string() }).optional(),
    expiresAt: z.string().optional().describe("When it expires now; absent when it has no expiry."),
    pinned: z.boolean(),
  },
  annotations: IDEMPOTENT_WRITE,
  async handler(args, { services, workspace, actor }) {
    const result = await services.time.setExpiry(workspace, actor, args);
    return { success: true as const, ...result };
  },
});
