import { z } from "zod";

import { IDEMPOTENT_WRITE } from "../annotations.js";
import { defineTool } from "../tool.js";

const factKey = z.object({
  key: z.string().describe("The key, e.g. owner, status, lead: a letter, then letters, digits, '_', '-' or '.' (matched without case)."),
  singleValued: z.boolean().describe("true: an entity holds one value for it; writing 'key: value' supersedes the current one."),
});

export const declareFactKeys = defineTool({
  name: "declare_fact_keys",
  toolsets: ["history"],
  title: "Declare fact keys",
  description:
    "Declare keys of facts written as 'key: value' observations. On a single-valued key an entity holds one value: adding " +
    "'owner: Bob' (add_observations, upsert_entity) supersedes its current 'owner: Alice' in the same transaction, keeping it in " +
    "the history. A key declared again takes its new singleValued. Returns every declared key of the workspace.",
  input: { keys: z.array(factKey).describe("The keys to declare (1-100).") },
  output: { success: z.literal(true), workspaceName: z.string(), keys: z.array(factKey) },
  annotations: IDEMPOTENT_WRITE,
  async handler(args, { services, workspace }) {
    return { success: true as const, workspaceName: workspace, keys: await services.time.declareFactKeys(workspace, args.keys) };
  },
});
