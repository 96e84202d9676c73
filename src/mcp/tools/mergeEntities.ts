import { z } from "zod";

import { IDEMPOTENT_DESTRUCTIVE_WRITE } from "../annotations.js";
import { entityName } from "../schemas.js";
import { defineTool } from "../tool.js";

const named = z.object({ id: z.string(), name: z.string() });
const relationLabel = z.object({ from: z.string(), relationType: z.string(), to: z.string() });

export const mergeEntities = defineTool({
  name: "merge_entities",
  toolsets: ["curate"],
  title: "Merge duplicate entities into one",
  description:
    "Merge source entities into a target entity: their observations, tags and relations (both directions) move onto the target, " +
    "self-loops and duplicate relations this creates are dropped, and the sources are deleted (history records it). The target " +
    "keeps its own name, type and metadata. Safe to rerun: an interrupted merge completes, a finished one changes nothing. Use " +
    "dryRun: true first to see what would move and what would be dropped. Pairs to merge come from detect_duplicate_entities. " +
    "A merge (not a dry run) asks for confirmation: a client that can ask its user (2026-07-28 with elicitation) asks the user, " +
    "and the merge runs only on their yes; any other client (every 2025-era client) must pass confirm: true.",
  input: {
    target: entityName.describe("The entity that stays."),
    sources: z.array(entityName).describe("The entities merged into the target and then deleted (1-20)."),
    dryRun: z.boolean().optional().describe("true: report what would move and be dropped, and write nothing."),
    confirm: z
      .boolean()
      .optional()
      .describe(
        "true: confirms the merge, for a client that cannot ask its user (required then, unless dryRun). Ignored when the client " +
          "asks its user: their answer decides.",
      ),
  },
  output: {
    success: z.literal(true),
    dryRun: z.boolean(),
    target: named,
    sources: z.array(named).describe("The sources merged now."),
    alreadyMerged: z.array(z.string()).describe("Sources an earlier merge into this target completed (a rerun): nothing to do for them."),
    observations: z.object({ moved: z.number(), droppedDuplicates: z.number().describe("The target had the same content already.") }),
    relations: z.object({
      moved: z.array(relationLabel).describe("As they are after the merge."),
      droppedSelfLoops: z.array(relationLabel),
      droppedDuplicates: z.array(relationLabel).describe("The target had the same relation already."),
    }),
    tags: z.object({ moved: z.number(), droppedDuplicates: z.number() }),
  },
  annotations: IDEMPOTENT_DESTRUCTIVE_WRITE,
  async handler(args, { services, workspace, actor, confirm }) {
    const dryRun = args.dryRun ?? false;
    if (!dryRun) {
      await confirm({
        question:
          `Merge ${args.sources.map((name) => `'${name}'`).join(", ")} into '${args.target}' in workspace '${workspace}'? ` +
          "Their observations, tags and relations move to the target, and the merged entities are deleted.",
        subject: { target: args.target, sources: args.sources },
        explicit: args.confirm === true,
        howToConfirm: "pass confirm: true to merge (dryRun: true first shows what would move, and needs no confirmation)",
      });
    }
    const report = await services.curate.mergeEntities(workspace, actor, {
      target: { name: args.target },
      sources: args.sources.map((name) => ({ name })),
      dryRun,
    });
    return { success: true as const, ...report };
  },
});
