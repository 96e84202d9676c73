import { z } from "zod";

import { READ_ONLY } from "../annotations.js";
import { APP_RESOURCE_URI, duplicateReviewShape } from "../appShapes.js";
import { entityType, resultLimit } from "../schemas.js";
import { defineTool } from "../tool.js";

export const reviewDuplicates = defineTool({
  name: "review_duplicates",
  toolsets: ["apps"],
  title: "Review probable duplicates",
  description:
    "Show the user the probable duplicate entities (as detect_duplicate_entities finds them, without the pairs a person " +
    "rejected) side by side with their observations and relations, in the chat where the client renders MCP Apps: the user " +
    "picks which to keep and merges (merge_entities, a dry run first, then after confirming) or rejects a pair " +
    "(reject_duplicate_pair). Writes nothing itself. Without Apps the result is a short text summary and the structured pairs.",
  input: {
    entityType: entityType.optional().describe("Only entities of this type."),
    threshold: z.number().optional().describe("The lowest score listed, 0-1 (default 0.8)."),
    limit: resultLimit.optional().describe("The most pairs, best first (1-1000, default 20)."),
  },
  output: duplicateReviewShape,
  annotations: READ_ONLY,
  app: { resourceUri: APP_RESOURCE_URI },
  async handler(args, { services, workspace, offeredTools }) {
    const review = await services.apps.reviewDuplicates(workspace, args);
    return { app: "duplicates" as const, workspaceName: workspace, ...review, tools: [...offeredTools] };
  },
  text(review) {
    const lines = review.pairs.map(
      (pair) => `- '${pair.a.name}' and '${pair.b.name}' (${pair.score.toFixed(2)}: ${pair.reasons.join(", ")})`,
    );
    return (
      `${review.pairs.length} probable duplicate pairs in workspace '${review.workspaceName}'` +
      `${review.rejected > 0 ? ` (${review.rejected} rejected pairs left out)` : ""}` +
      (lines.length > 0 ? `:\n${lines.join("\n")}` : ".")
    );
  },
});
