import { z } from "zod";

import { CHANGE_KINDS } from "../../domain/feed/history.js";
import { READ_ONLY } from "../annotations.js";
import { eventsOutput, pageInput, toEventsOutput } from "../historyShapes.js";
import { entityName } from "../schemas.js";
import { defineTool } from "../tool.js";

export const getChanges = defineTool({
  name: "get_changes",
  toolsets: ["history"],
  title: "List what changed",
  description:
    "The workspace's change history: every write is recorded as events (one per storage transaction), each with its time, " +
    "principal, tool, a readable summary and the changes (kind, ids, names, before and after). Newest first by default. " +
    "Narrow it with since/until (ISO 8601 times), entityName, kinds (e.g. entity.deleted) and principal; page with limit and cursor.",
  input: {
    since: z.string().optional().describe("ISO 8601 time: only events at or after it."),
    until: z.string().optional().describe("ISO 8601 time: only events at or before it."),
    entityName: entityName.optional().describe("Only events touching this entity (also after it was deleted)."),
    kinds: z
      .array(z.enum(CHANGE_KINDS as [string, ...string[]]))
      .optional()
      .describe("Only these kinds of change, e.g. ['entity.deleted', 'observation.created']."),
    principal: z.string().optional().describe("Only events by this principal, e.g. key:alice."),
    order: z.enum(["newest", "oldest"]).optional().describe("'newest' (default) or 'oldest' first."),
    ...pageInput,
  },
  output: eventsOutput,
  annotations: READ_ONLY,
  async handler(args, { services, workspace }) {
    return toEventsOutput(workspace, await services.history.changes(workspace, args));
  },
});
