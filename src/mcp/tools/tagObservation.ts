import { z } from "zod";

import { IDEMPOTENT_WRITE } from "../annotations.js";
import { entityName, observation, tagNames } from "../schemas.js";
import { defineTool } from "../tool.js";

export const tagObservation = defineTool({
  name: "tag_observation",
  toolsets: ["tags"],
  title: "Tag an observation",
  description:
    "Put tags on one observation (a single fact) of an entity, e.g. confidence:low. The observation is found by its exact text, as " +
    "open_nodes returns it. Tags new to the workspace are created. Returns the tags actually added. An unknown entity or observation is an error.",
  input: { entityName, observationContent: observation.describe("The observation's exact text."), tagNames },
  output: { entityName: z.string(), addedTags: z.array(z.string()).describe("The tags the observation did not carry before this call.") },
  annotations: IDEMPOTENT_WRITE,
  async handler(args, { services, workspace, actor }) {
    return {
      entityName: args.entityName,
      addedTags: await services.tags.tagObservation(workspace, actor, args.entityName, args.observationContent, args.tagNames),
    };
  },
});
