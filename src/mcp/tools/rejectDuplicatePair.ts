import { z } from "zod";

import { IDEMPOTENT_WRITE } from "../annotations.js";
import { entityName } from "../schemas.js";
import { defineTool } from "../tool.js";

/** reject_duplicate_pair (docs/curate.md#rejecting-a-pair): model- and app-visible (no `app` field: a plain curate tool). */
export const rejectDuplicatePair = defineTool({
  name: "reject_duplicate_pair",
  toolsets: ["curate"],
  title: "Reject a duplicate pair",
  description:
    "Remember that two entities (by name) are NOT the same thing, so detect_duplicate_entities (and review_duplicates) never " +
    "propose the pair again. The order of a and b does not matter. Rejecting a pair already rejected changes nothing; " +
    "undo: true forgets the rejection (nothing to forget changes nothing). Both entities must exist to reject. History " +
    "records each rejection with who made it.",
  input: {
    a: entityName.describe("One entity of the pair."),
    b: entityName.describe("The other entity of the pair."),
    undo: z.boolean().optional().describe("true: forget an earlier rejection, so detection may propose the pair again."),
  },
  output: {
    success: z.literal(true),
    workspaceName: z.string(),
    a: z.string(),
    b: z.string(),
    rejected: z.boolean().describe("Whether the pair is rejected after this call: true after a rejection, false after undo."),
    changed: z.boolean().describe("Whether this call changed it (false: it was already so; nothing was written)."),
  },
  annotations: IDEMPOTENT_WRITE,
  async handler(args, { services, workspace, actor }) {
    return { success: true as const, workspaceName: workspace, ...(await services.curate.rejectPair(workspace, actor, args)) };
  },
});
