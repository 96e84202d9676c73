import { z } from "zod";

import { IDEMPOTENT_DESTRUCTIVE_WRITE } from "../annotations.js";
import { entityName, observation, tagNames } from "../schemas.js";
import { defineTool } from "../tool.js";

export const untagObservation = defineTool({
  name: "untag_observation",
  toolsets: ["tags"],
  title: "Untag an observation",
  description:
    "Take tags off one observation of an entity (found by its exact text). Returns the tags removed; tags it did not carry are ignored. " +
    "The tags stay defined (delete_tags removes a tag everywhere). An unknown entity or observation is an error.",
  input: { entityName, observationContent: observation.describe("The observation's exact text."), tagNames },
  output: { entityName: z.string(), removedTags: z.array(z.string()).describe("The tags the observation carried and no longer does.") },
  annotations: IDEMPOTENT_DESTRUCTIVE_WRITE,
  async handler(args, { services, workspace, actor }) {
    return {
      entityName: args.entityName,
      removedTags: await services.tags.untagObservation(workspace, actor, args.entityName, args.observationContent, args.tagNames),
    };
  },
});
