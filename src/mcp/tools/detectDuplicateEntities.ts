import { z } from "zod";

import { LIMITS } from "../../domain/model/limits.js";
import { READ_ONLY } from "../annotations.js";
import { entityType, resultLimit } from "../schemas.js";
import { defineTool } from "../tool.js";

const entitySummary = z.object({ id: z.string(), name: z.string(), entityType: z.string() });

export const detectDuplicateEntities = defineTool({
  name: "detect_duplicate_entities",
  toolsets: ["curate"],
  title: "Find likely duplicate entities",
  description:
    "Find pairs of entities that are probably the same thing written differently ('Alice Smith', 'alice_smith', 'A. Smith'). " +
    "Scores each candidate pair (0-1) from the names (case, accents, punctuation, word order, initials, edit distance), the types, " +
    "and shared observations and neighbours, and says why. Pairs a person rejected (reject_duplicate_pair) are left out. Writes nothing: review the pairs, then " +
    "merge_entities the real ones and reject_duplicate_pair the others.",
  input: {
    entityType: entityType.optional().describe("Only entities of this type."),
    threshold: z.number().optional().describe("The lowest score listed, 0-1 (default 0.8)."),
    limit: resultLimit.optional().describe(`The most pairs returned, best first (1-${LIMITS.itemsPerCall}, default 50).`),
  },
  output: {
    pairs: z.array(z.object({ a: entitySummary, b: entitySummary, score: z.number(), reasons: z.array(z.string()) })),
    comparisons: z.number().describe("How many pairs were scored: only pairs sharing a name block are, never every pair."),
    entities: z.number().describe("How many entities were considered."),
    rejected: z
      .number()
      .describe("How many pairs that scored enough were left out because a person rejected them (reject_duplicate_pair)."),
  },
  annotations: READ_ONLY,
  handler(args, { services, workspace }) {
    return services.curate.detectDuplicates(workspace, args);
  },
});
