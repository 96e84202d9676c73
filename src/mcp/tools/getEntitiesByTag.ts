import { z } from "zod";

import { LIMITS } from "../../domain/model/limits.js";
import { DEFAULT_TAGGED_LIMIT } from "../../domain/services/tagService.js";
import { READ_ONLY } from "../annotations.js";
import {
  entityValidityFields,
  entityValidityOf,
  lensInput,
  officialRelation,
  relationValidityFields,
  relationValidityOf,
  taggedEntity,
  toOfficialGraph,
} from "../graphShapes.js";
import { resultLimit, tagName } from "../schemas.js";
import { defineTool } from "../tool.js";

export const getEntitiesByTag = defineTool({
  name: "get_entities_by_tag",
  toolsets: ["tags"],
  title: "Find entities by tag",
  description:
    "Find the entities carrying a tag, on the entity itself or on one of its observations. Returns them with their observations, " +
    "their tags (`tags`) and their observations' tags (`observationTags`: observation text -> tags), plus every relation touching them. " +
    `At most \`limit\` entities (default ${DEFAULT_TAGGED_LIMIT}), by name; \`total\` says how many carry the tag. An unknown tag finds nothing. ` +
    "Shows only what is true now (expired entities never; an entity whose tag is only on a superseded observation is left out); " +
    "validAt asks another time, includeSuperseded shows superseded and ended facts too, marked.",
  input: {
    tagName,
    limit: resultLimit.optional().describe(`Most entities to return (1-${LIMITS.itemsPerCall}, default ${DEFAULT_TAGGED_LIMIT}), by name.`),
    ...lensInput,
  },
  output: {
    tagName: z.string(),
    total: z.number().int().describe("How many entities carry the tag (more than returned when over the limit)."),
    entities: z.array(taggedEntity.extend(entityValidityFields)),
    relations: z.array(officialRelation.extend(relationValidityFields)),
  },
  annotations: READ_ONLY,
  async handler(args, { services, workspace }) {
    const lens = services.tags.lens(args);
    const { total, ...graph } = await services.tags.entitiesByTag(workspace, args.tagName, args.limit, lens);
    const official = toOfficialGraph(graph, true);
    return {
      tagName: args.tagName,
      total,
      entities: official.entities.map((entity, i) => ({ ...entity, ...entityValidityOf(graph.entities[i]!, lens) })),
      relations: official.relations.map((relation, i) => ({ ...relation, ...relationValidityOf(graph.relations[i]!, lens) })),
    };
  },
});
