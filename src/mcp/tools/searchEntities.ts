import { z } from "zod";

import { checkMaxChars } from "../../domain/model/budget.js";
import { LIMITS } from "../../domain/model/limits.js";
import { DEFAULT_SEARCH_ENTITIES_LIMIT } from "../../domain/services/searchService.js";
import { READ_ONLY } from "../annotations.js";
import { maxCharsInput, truncationOutput, withinPageBudget } from "../budgets.js";
import { entityType, resultLimit, tagNames } from "../schemas.js";
import { entityHitsOutput, toEntityHits } from "../searchShapes.js";
import { defineTool } from "../tool.js";

export const searchEntities = defineTool({
  name: "search_entities",
  toolsets: ["search"],
  title: "Search entities (ranked)",
  description:
    "Ranked full-text search of the workspace's entities: names, types and observations, insensitive to case and accents, the last " +
    "word matching as a prefix, small typos tolerated; an exact name ranks first. Use it to answer 'what do we know about X'. " +
    "Narrow with entityType, tags, createdBy and updatedSince (all must hold); with filters and no query it lists by name. " +
    "Returns each hit's entity, score, matched fields and matched observations; page with limit and cursor.",
  input: {
    query: z.string().optional().describe(`Free text, up to ${LIMITS.searchQuery} characters. Omit to list by the filters alone.`),
    entityType: entityType.optional().describe("Only entities of exactly this type."),
    tags: tagNames.optional().describe("Only entities carrying every one of these tags (on themselves or an observation)."),
    createdBy: z.string().optional().describe("Only entities created by this principal, e.g. key:alice."),
    updatedSince: z.string().optional().describe("ISO 8601 time: only entities changed at or after it."),
    limit: resultLimit.optional().describe(`Hits per page (1-${LIMITS.itemsPerCall}, default ${DEFAULT_SEARCH_ENTITIES_LIMIT}).`),
    cursor: z.string().optional().describe("The nextCursor a previous page returned, unchanged."),
    maxChars: maxCharsInput.describe(
      "Most characters of JSON text to return: the page stops at whole hits and says truncated, with a nextCursor for the rest.",
    ),
  },
  output: { ...entityHitsOutput, truncated: truncationOutput.truncated },
  annotations: READ_ONLY,
  async handler(args, { services, workspace, toolsets }) {
    const { maxChars, ...input } = args;
    if (maxChars !== undefined) checkMaxChars(maxChars);
    const page = await services.search.searchEntities(workspace, input);
    return withinPageBudget(toEntityHits(workspace, page, toolsets.has("tags")), "hits", maxChars, (i) =>
      page.cursorAfter(page.hits[i]!.entity.id),
    );
  },
});
