import { z } from "zod";

import { LIMITS } from "../../domain/model/limits.js";
import { DEFAULT_TAGGED_LIMIT } from "../../domain/services/tagService.js";
import { READ_ONLY } from "../annotations.js";
import { officialRelation, taggedEntity, toOfficialGraph } from "../graphShapes.js";
import { resultLimit, tagName } from "../schemas.js";
import { defineTool } from "../tool.js";

export const getEntitiesByTag = defineTool({
  name: "get_entities_by_tag",
  toolsets: ["tags"],
  title: "Find entities by tag",
  description:
    "Find the entities carrying a tag, on the entity itself or on one of its observations. Returns them with their observations, " +
    "their tags (`tags`) and their observations' tags (`observationTags`: observation text -> tags), plus every relation touching them. " +
    `At most \`limit\` entities (default ${DEFAULT_TAGGED_LIMIT}), by name; \`total\` says how many carry the tag. An unknown tag finds nothing.`,
  input: {
    tagName,
    limit: resultLimit.optional().describe(`Most entities to return (1-${LIMITS.itemsPerCall}, default ${DEFAULT_TAGGED_LIMIT}), by name.`),
  },
  output: {
    tagName: z.string(),
    total: z.number().int().describe("How many entities carry the tag (more than returned when over the limit)."),
    entities: z.array(taggedEntity),
    relations: z.array(officialRelation),
  },
  annotations: READ_ONLY,
  async handler(args, { services, workspace }) {
    const { total, ...graph } = await services.tags.entitiesByTag(workspace, args.tagName, args.limit);
    return { tagName: args.tagName, total, ...toOfficialGraph(graph, true) };
  },
});
