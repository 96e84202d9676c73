import { z } from "zod";

import { checkMaxChars } from "../../domain/model/budget.js";
import { LIMITS } from "../../domain/model/limits.js";
import { DEFAULT_SEARCH_ENTITIES_LIMIT } from "../../domain/services/searchService.js";
import { READ_ONLY } from "../annotations.js";
import { maxCharsInput, truncationOutput, withinPageBudget } from "../budgets.js";
import { lensInput } from "../graphShapes.js";
import { entityType, resultLimit, tagNames } from "../schemas.js";
import { entityHitsOutput, toEntityHits } from "../searchShapes.js";
import { defineTool } from "../tool.js";

export const searchEntities = defineTool({
  name: "search_entities",
  toolsets: ["search"],
  title: "Search entities (ranked)",
  description:
    "The best way to recall: ranked search of the workspace's entities by words and by meaning, fused with their neighbours in the " +
    "graph, so 'money owed by clients' finds the service that 'sends invoices to customers'. Words are matched on names, types and " +
    "observations, stemmed, insensitive to case and accents, the last word as a prefix, small typos tolerated; an exact name ranks " +
    "first. mode 'words' or 'meaning' uses one ranker; explain: true says why each hit was found. Use it to answer 'what do we know about X'. " +
    "Narrow with entityType, tags, createdBy and updatedSince (all must hold); with filters and no query it lists by name. " +
    "Finds and shows only facts true now (not superseded, ended or expired); validAt asks another time, includeSuperseded shows all, marked. " +
    "Returns each hit's entity, score, matched fields and matched observations; page with limit and cursor.",
  input: {
    query: z.string().optional().describe(`Free text, up to ${LIMITS.searchQuery} characters. Omit to list by the filters alone.`),
    mode: z
      .enum(["hybrid", "words", "meaning"])
      .optional()
      .describe("hybrid (default): words, meaning and graph fused; words: BM25 only; meaning: vector similarity only."),
    explain: z
      .boolean()
      .optional()
      .describe("Add to each hit which rankers found it, at what rank, through which observation or relation."),
    entityType: entityType.optional().describe("Only entities of exactly this type."),
    tags: tagNames.optional().describe("Only entities carrying every one of these tags (on themselves or an observation)."),
    createdBy: z.string().optional().describe("Only entities created by this principal, e.g. key:alice."),
    updatedSince: z.string().optional().describe("ISO 8601 time: only entities changed at or after it."),
    limit: resultLimit.optional().describe(`Hits per page (1-${LIMITS.itemsPerCall}, default ${DEFAULT_SEARCH_ENTITIES_LIMIT}).`),
    ...lensInput,
    cursor: z.string().optional().describe("The nextCursor a previous page returned, unchanged."),
    maxChars: maxCharsInput.describe(
      "Most characters of JSON text to return: the page stops at whole hits and says truncated, with a nextCursor for the rest.",
    ),
  },
  output: { ...entityHitsOutput, truncated: truncationOutput.truncated },
  annotations: READ_ONLY,
  async handler(args, { services, workspace, toolsets, note }) {
    const { maxChars, ...input } = args;
    if (maxChars !== undefined) checkMaxChars(maxChars);
    const lens = services.search.lens(input);
    const page = await services.search.searchEntities(workspace, input, lens);
    if (page.unavailable !== undefined) note(`Ranked by words and graph only: search by meaning is unavailable (${page.unavailable}).`);
    return withinPageBudget(toEntityHits(workspace, page, lens, toolsets.has("tags")), "hits", maxChars, (i) =>
      page.cursorAfter(page.hits[i]!.entity.id),
    );
  },
});
