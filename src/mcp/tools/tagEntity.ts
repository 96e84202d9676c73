import { z } from "zod";

import { IDEMPOTENT_WRITE } from "../annotations.js";
import { entityName, tagNames } from "../schemas.js";
import { defineTool } from "../tool.js";

export const tagEntity = defineTool({
  name: "tag_entity",
  toolsets: ["tags"],
  title: "Tag an entity",
  description:
    "Put tags on an entity (by exact name), e.g. high-priority or source:slack. Tags new to the workspace are created (empty category " +
    "and description; set them with define_tag). Returns the tags actually added: tags the entity already carries are not added twice. " +
    "An unknown entity is an error. To tag a single fact, use tag_observation.",
  input: { entityName, tagNames },
  output: { entityName: z.string(), addedTags: z.array(z.string()).describe("The tags the entity did not carry before this call.") },
  annotations: IDEMPOTENT_WRITE,
  async handler(args, { services, workspace, actor }) {
    return { entityName: args.entityName, addedTags: await services.tags.tagEntity(workspace, actor, args.entityName, args.tagNames) };
  },
});
