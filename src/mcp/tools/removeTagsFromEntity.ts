import { z } from "zod";

import { IDEMPOTENT_DESTRUCTIVE_WRITE } from "../annotations.js";
import { entityName, tagNames } from "../schemas.js";
import { defineTool } from "../tool.js";

export const removeTagsFromEntity = defineTool({
  name: "remove_tags_from_entity",
  toolsets: ["tags"],
  title: "Remove tags from an entity",
  description:
    "Take tags off an entity itself (its observations keep theirs; use untag_observation for those). Returns the tags removed; tags it " +
    "did not carry are ignored. The tags stay defined (delete_tags removes a tag everywhere). An unknown entity is an error.",
  input: { entityName, tagNames },
  output: { entityName: z.string(), removedTags: z.array(z.string()).describe("The tags the entity carried and no longer does.") },
  annotations: IDEMPOTENT_DESTRUCTIVE_WRITE,
  async handler(args, { services, workspace, actor }) {
    return {
      entityName: args.entityName,
      removedTags: await services.tags.removeTagsFromEntity(workspace, actor, args.entityName, args.tagNames),
    };
  },
});
