import { z } from "zod";

import { READ_ONLY } from "../annotations.js";
import { tagDefinition } from "../graphShapes.js";
import { defineTool } from "../tool.js";

export const getAllTags = defineTool({
  name: "get_all_tags",
  toolsets: ["tags"],
  title: "List all tags",
  description:
    "List every tag of the workspace with its category and description, ordered by name. Check it before tagging, to reuse existing " +
    "tags instead of inventing near-duplicates.",
  input: {},
  output: { tags: z.array(tagDefinition) },
  annotations: READ_ONLY,
  async handler(_args, { services, workspace }) {
    return { tags: await services.tags.allTags(workspace) };
  },
});
