import { z } from "zod";

import type { SweptItem } from "../../domain/ports/store.js";
import { IDEMPOTENT_DESTRUCTIVE_WRITE } from "../annotations.js";
import { defineTool } from "../tool.js";

const item = z.object({
  kind: z.enum(["entity", "observation", "relation"]),
  entityName: z.string().optional(),
  observation: z.string().optional(),
  from: z.string().optional(),
  to: z.string().optional(),
  relationType: z.string().optional(),
  expiresAt: z.string(),
});

export const sweepExpired = defineTool({
  name: "sweep_expired",
  toolsets: ["admin"],
  title: "Delete expired items",
  description:
    "Delete the workspace's expired entities, observations and relations (expiresAt passed, not pinned). They are already hidden " +
    "from every read; the sweep reclaims them and records each deletion in the history (get_changes; restore_entity brings an " +
    "entity back). dryRun: true lists what it would delete and changes nothing. A sweep also runs on a timer " +
    "(MEMORY_SWEEP_INTERVAL_MINUTES). An item renewed (set_expiry) while the sweep runs is kept and listed in skipped.",
  input: {
    dryRun: z.boolean().optional().describe("List what would be deleted; delete nothing."),
  },
  output: {
    success: z.literal(true),
    dryRun: z.boolean(),
    entities: z.number().describe("Expired entities deleted (or, with dryRun, to delete), each with everything attached."),
    observations: z.number(),
    relations: z.number(),
    items: z.array(item),
    skipped: z.array(item.extend({ reason: z.string() })),
  },
  annotations: IDEMPOTENT_DESTRUCTIVE_WRITE,
  async handler(args, { services, workspace, actor }) {
    const answer = await services.time.sweepExpired(workspace, actor, { dryRun: args.dryRun ?? false });
    return {
      success: true as const,
      dryRun: answer.dryRun,
      entities: answer.entities,
      observations: answer.observations,
      relations: answer.relations,
      items: answer.items.map(shown),
      skipped: answer.skipped.map((skipped) => ({ ...shown(skipped), reason: skipped.reason })),
    };
  },
});

/** An item as the answer names it: by entity name, observation text, or relation ends and type. */
function shown(swept: SweptItem): z.infer<typeof item> {
  switch (swept.kind) {
    case "entity":
      return { kind: "entity", entityName: swept.name, expiresAt: swept.expiresAt };
    case "observation":
      return { kind: "observation", entityName: swept.entityName, observation: swept.content, expiresAt: swept.expiresAt };
    case "relation":
      return { kind: "relation", from: swept.from, to: swept.to, relationType: swept.relationType, expiresAt: swept.expiresAt };
  }
}
