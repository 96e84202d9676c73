import { z } from "zod";

import { checkMaxChars } from "../../domain/model/budget.js";
import { LIMITS } from "../../domain/model/limits.js";
import { DEFAULT_SEARCH_RELATIONS_LIMIT } from "../../domain/services/searchService.js";
import { READ_ONLY } from "../annotations.js";
import { maxCharsInput, truncationOutput, withinPageBudget } from "../budgets.js";
import { lensInput } from "../graphShapes.js";
import { entityName, entityType, relationType, resultLimit } from "../schemas.js";
import { relationsOutput, toRelations } from "../searchShapes.js";
import { defineTool } from "../tool.js";

export const searchRelations = defineTool({
  name: "search_relations",
  toolsets: ["search"],
  title: "Search relations",
  description:
    "List the workspace's relations that match every filter given: relationType, from and to (entity names, exact), and entityType " +
    "(either endpoint has it). Oldest first; page with limit and cursor. For one entity's relations, get_entity_relations is the same in one call. " +
    "Only relations true now (not ended or expired, both ends shown); validAt asks another time, includeSuperseded shows ended ones too, marked.",
  input: {
    relationType: relationType.optional().describe("Only relations of exactly this type."),
    from: entityName.optional().describe("Only relations starting at this entity."),
    to: entityName.optional().describe("Only relations ending at this entity."),
    entityType: entityType.optional().describe("Only relations with an endpoint of this type."),
    limit: resultLimit.optional().describe(`Relations per page (1-${LIMITS.itemsPerCall}, default ${DEFAULT_SEARCH_RELATIONS_LIMIT}).`),
    ...lensInput,
    cursor: z.string().optional().describe("The nextCursor a previous page returned, unchanged."),
    maxChars: maxCharsInput.describe(
      "Most characters of JSON text to return: the page stops at whole relations and says truncated, with a nextCursor for the rest.",
    ),
  },
  output: { ...relationsOutput, truncated: truncationOutput.truncated },
  annotations: READ_ONLY,
  async handler(args, { services, workspace }) {
    const { maxChars, ...input } = args;
    if (maxChars !== undefined) checkMaxChars(maxChars);
    const lens = services.search.lens(input);
    const page = await services.search.searchRelations(workspace, input, lens);
    return withinPageBudget(toRelations(workspace, page, lens), "relations", maxChars, (i) => page.cursorAfter(page.relations[i]!.id));
  },
});
