import { z } from "zod";

import { ADDITIVE_WRITE } from "../annotations.js";
import { entityName, relationType } from "../schemas.js";
import { defineTool } from "../tool.js";

export const endRelation = defineTool({
  name: "end_relation",
  toolsets: ["history"],
  title: "End a relation",
  description:
    "Mark a relation as no longer holding (e.g. works_at when someone leaves) instead of deleting it: it gets validTo and stays " +
    "in the history and in reads with includeSuperseded. validTo (ISO 8601) defaults to now and may be in the past. Fails, " +
    "writing nothing: a relation that does not exist (NotFoundError) or has already ended (ConflictError).",
  input: {
    from: entityName.describe("Source entity name."),
    to: entityName.describe("Target entity name."),
    relationType,
    validTo: z.string().optional().describe("ISO 8601 time at which it stopped holding. Default: now."),
  },
  output: {
    success: z.literal(true),
    workspaceName: z.string(),
    from: z.string(),
    to: z.string(),
    relationType: z.string(),
    validTo: z.string(),
  },
  annotations: ADDITIVE_WRITE,
  async handler(args, { services, workspace, actor }) {
    return { success: true as const, workspaceName: workspace, ...(await services.time.endRelation(workspace, actor, args)) };
  },
});
