import { z } from "zod";

import { READ_ONLY } from "../annotations.js";
import { lensInput } from "../graphShapes.js";
import { defineTool } from "../tool.js";

export const getTagUsage = defineTool({
  name: "get_tag_usage",
  toolsets: ["tags"],
  title: "Tag usage",
  description:
    "For every tag of the workspace, how many entities and how many observations carry it; most used first. Counts only what " +
    "shows: by default what is true now (expired items never); validAt asks another time, includeSuperseded counts superseded and ended observations too.",
  input: { ...lensInput },
  output: {
    tags: z.array(
      z.object({
        name: z.string(),
        category: z.string(),
        entities: z.number().int().describe("Entities carrying the tag themselves."),
        observations: z.number().int().describe("Observations carrying the tag."),
        total: z.number().int(),
      }),
    ),
  },
  annotations: READ_ONLY,
  async handler(args, { services, workspace }) {
    const usage = await services.tags.usage(workspace, args);
    return {
      tags: usage.map((tag) => ({
        name: tag.name,
        category: tag.category,
        entities: tag.entities,
        observations: tag.observations,
        total: tag.entities + tag.observations,
      })),
    };
  },
});
