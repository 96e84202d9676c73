import { z } from "zod";

import { ADDITIVE_WRITE } from "../annotations.js";
import { entityName, observation } from "../schemas.js";
import { defineTool } from "../tool.js";

export const supersedeObservation = defineTool({
  name: "supersede_observation",
  toolsets: ["history"],
  title: "Supersede an observation",
  description:
    "Replace an observation of an entity with a new one, in one transaction, instead of deleting it: the old one stops holding " +
    "(validTo, supersededBy) but stays in the history and in reads with includeSuperseded. validFrom (ISO 8601, may be in the " +
    "past) is when the replacement starts holding; default now. Fails, writing nothing: an entity or observation that does not " +
    "exist (NotFoundError), an observation already superseded or ended, or a replacement already current (ConflictError).",
  input: {
    entityName,
    observation: observation.describe("The current observation to replace, exactly as stored."),
    replacement: observation.describe("The observation that replaces it."),
    validFrom: z.string().optional().describe("ISO 8601 time from which the replacement holds (and the old one ends). Default: now."),
  },
  output: {
    success: z.literal(true),
    workspaceName: z.string(),
    entityName: z.string(),
    superseded: z.object({ observation: z.string(), validTo: z.string() }),
    current: z.object({ observation: z.string(), validFrom: z.string() }),
  },
  annotations: ADDITIVE_WRITE,
  async handler(args, { services, workspace, actor }) {
    return { success: true as const, workspaceName: workspace, ...(await services.time.supersedeObservation(workspace, actor, args)) };
  },
});
