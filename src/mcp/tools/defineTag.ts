import { z } from "zod";

import { IDEMPOTENT_WRITE } from "../annotations.js";
import { tagDefinition } from "../graphShapes.js";
import { tagCategory, tagDescription, tagName } from "../schemas.js";
import { defineTool } from "../tool.js";

export const defineTag = defineTool({
  name: "define_tag",
  toolsets: ["tags"],
  title: "Define a tag",
  description:
    "Create a tag, or set what an existing one means: its category (e.g. priority, source, confidence) and description. A field left " +
    "out keeps its stored value. Tagging creates missing tags by itself; use this to document the vocabulary.",
  input: {
    name: tagName,
    category: tagCategory.optional(),
    description: tagDescription.optional(),
  },
  output: { tag: tagDefinition, created: z.boolean().describe("true if the tag did not exist before this call") },
  annotations: IDEMPOTENT_WRITE,
  async handler(args, { services, workspace, actor }) {
    return services.tags.defineTag(workspace, actor, args);
  },
});
