import { z } from "zod";

import { IDEMPOTENT_DESTRUCTIVE_WRITE } from "../annotations.js";
import { tagNames } from "../schemas.js";
import { defineTool } from "../tool.js";

export const deleteTags = defineTool({
  name: "delete_tags",
  toolsets: ["tags"],
  title: "Delete tags",
  description:
    "Delete tags from the workspace: each is taken off every entity and observation carrying it, and its definition is removed. " +
    "Unknown names are ignored. Returns the tags deleted and how many entities and observations lost a tag.",
  input: { tagNames },
  output: {
    deletedTags: z.array(z.string()),
    unlinkedEntities: z.number().int().describe("Entity tag links removed."),
    unlinkedObservations: z.number().int().describe("Observation tag links removed."),
  },
  annotations: IDEMPOTENT_DESTRUCTIVE_WRITE,
  async handler(args, { services, workspace, actor }) {
    const result = await services.tags.deleteTags(workspace, actor, args.tagNames);
    return { deletedTags: result.deleted, unlinkedEntities: result.entities, unlinkedObservations: result.observations };
  },
});
