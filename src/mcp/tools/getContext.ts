import { z } from "zod";

import { LIMITS } from "../../domain/model/limits.js";
import { renderBrief } from "../../domain/rules/contextPack.js";
import { READ_ONLY } from "../annotations.js";
import { defineTool } from "../tool.js";

const source = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("entity"), id: z.string(), name: z.string() }),
  z.object({ kind: z.literal("observation"), entity: z.string().describe("The entity's name."), observation: z.string() }),
  z.object({ kind: z.literal("relation"), id: z.string(), from: z.string(), relationType: z.string(), to: z.string() }),
  z.object({
    kind: z.literal("event"),
    id: z.string().describe("The change event's id, as get_changes and get_entity_history list it."),
    at: z.string(),
    tool: z.string(),
  }),
]);

const perKind = z.object({ entity: z.number(), observation: z.number(), relation: z.number(), event: z.number() });

export const getContext = defineTool({
  name: "get_context",
  toolsets: ["search"],
  title: "Get a context brief",
  description:
    "A ranked, deduplicated brief of what the workspace knows about a question or some entities, within a token budget: the " +
    "entities named and those the query finds, each with its most relevant observations, the relations among and around them, " +
    "and the newest changes touching them. Each item says where it comes from (entity, observation, relation or change event). " +
    "Use it at the start of a task instead of several searches. Give query, entityNames, or both.",
  input: {
    query: z.string().optional().describe(`What the brief is about, in free text (up to ${LIMITS.searchQuery} characters).`),
    entityNames: z
      .array(z.string())
      .optional()
      .describe(`Entities to include whatever the query finds (up to ${LIMITS.contextEntityNames}; names match exactly).`),
    maxTokens: z
      .number()
      .int()
      .min(LIMITS.contextMinTokens)
      .max(LIMITS.contextMaxTokens)
      .optional()
      .describe(
        `The brief's budget in estimated tokens (${LIMITS.contextMinTokens}-${LIMITS.contextMaxTokens}, default ` +
          `${LIMITS.contextDefaultTokens}); estimate: 40 + the sum over items of ceil(characters / 4) + 2 (docs/context.md).`,
      ),
  },
  output: {
    workspaceName: z.string(),
    items: z
      .array(
        z.object({
          source,
          text: z.string().describe("The item's line of the brief."),
          relevance: z.number().describe("Higher is more relevant; items are in this order."),
          tokens: z.number().describe("The item's estimated tokens: ceil(characters of text / 4) + 2."),
        }),
      )
      .describe("What the brief holds, most relevant first."),
    tokens: z.number().describe("The brief's estimated tokens: 40 for its frame plus every item's tokens; never above maxTokens."),
    maxTokens: z.number(),
    omitted: perKind.describe("Candidates left out by kind: over the budget, or needing an entity that was left out."),
  },
  annotations: READ_ONLY,
  // The text content is the brief itself (markdown), rendered from the same items the structured content lists.
  text: (result) => renderBrief(result.workspaceName, result.items),
  async handler(args, { services, workspace }) {
    const { items, tokens, maxTokens, omitted } = await services.context.context(workspace, args);
    return {
      workspaceName: workspace,
      items: items.map(({ source: from, text, relevance, tokens: cost }) => ({ source: from, text, relevance, tokens: cost })),
      tokens,
      maxTokens,
      omitted,
    };
  },
});
