import { z } from "zod";

import { CHANGE_KINDS } from "../domain/feed/history.js";
import { LIMITS } from "../domain/model/limits.js";
import type { ChangesPage } from "../domain/services/historyService.js";
import { resultLimit } from "./schemas.js";

/** The shapes the history tools share: an event as a client sees it, and a page of them. */

/** Valid time and expiry as a change records them (docs/history.md#two-times). */
const validityChange = z.object({
  validFrom: z.string().optional(),
  validTo: z.string().optional(),
  supersededBy: z.string().optional(),
  expiresAt: z.string().optional(),
  pinned: z.boolean().optional(),
});

const change = z.object({
  kind: z.enum(CHANGE_KINDS as [string, ...string[]]),
  entityId: z.string().optional(),
  entityName: z.string().optional(),
  observationId: z.string().optional(),
  content: z.string().optional().describe("An observation's text."),
  relationId: z.string().optional(),
  tagName: z.string().optional(),
  validity: validityChange
    .optional()
    .describe('What the change set of the item\'s valid time and expiry ("" cleared a field); on a creation, what it was created with.'),
  validityBefore: validityChange.optional().describe("The item's valid time and expiry before the change, when read."),
  mergedInto: z
    .string()
    .optional()
    .describe("On a merged source's entity.deleted: the id of the entity it was merged into (merge_entities)."),
  pair: z
    .array(z.object({ entityId: z.string(), entityName: z.string() }))
    .optional()
    .describe("On rejection.created and rejection.deleted: the two entities a person said are not duplicates (reject_duplicate_pair)."),
  before: z.record(z.string(), z.unknown()).optional().describe("The state the change replaced (absent on creations)."),
  after: z.record(z.string(), z.unknown()).optional().describe("The state it left (absent on deletions)."),
});

export const eventsOutput = {
  success: z.literal(true),
  workspaceName: z.string(),
  events: z.array(
    z.object({
      id: z.string().describe("The event's id (its row key), unique. Events are listed in the order storage committed them."),
      at: z.string().describe("When it was written (ISO 8601)."),
      principal: z.string().describe("Who wrote it: key:<id>, entra:<oid>, anonymous or cli."),
      tool: z.string().describe("The tool it came through, or import."),
      call: z.string().describe("Shared by the events of one call that took several transactions."),
      summary: z.string().describe("What it did, readably."),
      changes: z.array(change),
    }),
  ),
  cursor: z.string().optional().describe("Present when more events follow: pass it back as `cursor`, with the same other arguments."),
};

export const pageInput = {
  limit: resultLimit.optional().describe(`Events per page (1-${LIMITS.itemsPerCall}, default 50).`),
  cursor: z.string().optional().describe("The cursor a previous page returned, unchanged."),
};

export const asOfInput = z
  .string()
  .optional()
  .describe("An ISO 8601 time, e.g. 2026-01-31T12:00:00Z: the state at that time, rebuilt from the change history (history toolset).");

export function toEventsOutput(workspace: string, page: ChangesPage): z.infer<z.ZodObject<typeof eventsOutput>> {
  return {
    success: true as const,
    workspaceName: workspace,
    events: page.events.map((event) => ({
      id: event.id,
      at: event.at,
      principal: event.principal,
      tool: event.tool,
      call: event.call,
      summary: event.summary,
      changes: event.changes.map((item) => ({ ...item }) as z.infer<typeof change>),
    })),
    ...(page.cursor !== undefined ? { cursor: page.cursor } : {}),
  };
}
