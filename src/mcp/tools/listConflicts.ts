import { z } from "zod";

import { LIMITS } from "../../domain/model/limits.js";
import { DEFAULT_CONFLICTS_LIMIT } from "../../domain/services/timeService.js";
import { READ_ONLY } from "../annotations.js";
import { resultLimit } from "../schemas.js";
import { defineTool } from "../tool.js";

export const listConflicts = defineTool({
  name: "list_conflicts",
  toolsets: ["history"],
  title: "List conflicting facts",
  description:
    "Entities holding two or more current observations written as `key: value` on one key whose values differ (compared trimmed, " +
    "without case), e.g. 'lead: Alice' and 'lead: Bob' on one team: declared keys or not. Lists them without judging; resolve one " +
    "with supersede_observation. singleValuedKeys names the keys declared single-valued (declare_fact_keys), on which a new value " +
    "supersedes the old one when written. Narrow with key; by entity name, then key; page with limit and cursor.",
  input: {
    key: z.string().optional().describe("Only this key (case-insensitive), e.g. owner."),
    limit: resultLimit.optional().describe(`Conflicts per page (1-${LIMITS.itemsPerCall}, default ${DEFAULT_CONFLICTS_LIMIT}).`),
    cursor: z.string().optional().describe("The nextCursor a previous page returned, unchanged, with the same key."),
  },
  output: {
    workspaceName: z.string(),
    conflicts: z.array(
      z.object({
        entityName: z.string(),
        entityType: z.string(),
        key: z.string().describe("In lower case."),
        values: z
          .array(
            z.object({
              observation: z.string(),
              validFrom: z.string().optional().describe("When it became true, where set."),
            }),
          )
          .describe("Each current observation on the key, in the order added."),
      }),
    ),
    singleValuedKeys: z.array(z.string()).describe("The keys the workspace declared single-valued (lower case)."),
    nextCursor: z.string().optional().describe("Present when more conflicts follow: pass it back as `cursor` with the same key."),
  },
  annotations: READ_ONLY,
  async handler(args, { services, workspace }) {
    const scope = { workspace, tool: "list_conflicts" as const, mode: JSON.stringify([args.key?.toLowerCase() ?? null]) };
    const offset = args.cursor === undefined ? 0 : Number(await services.cursors.decode(scope, args.cursor));
    const limit = args.limit ?? DEFAULT_CONFLICTS_LIMIT;
    const page = await services.time.listConflicts(workspace, {
      ...(args.key !== undefined ? { key: args.key } : {}),
      limit,
      offset,
    });
    return {
      workspaceName: workspace,
      conflicts: page.conflicts.map(({ entityName, entityType, key, values }) => ({ entityName, entityType, key, values })),
      singleValuedKeys: page.singleValuedKeys,
      ...(page.more ? { nextCursor: await services.cursors.encode(scope, String(offset + limit)) } : {}),
    };
  },
});
