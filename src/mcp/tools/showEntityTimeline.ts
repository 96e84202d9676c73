import { READ_ONLY } from "../annotations.js";
import { APP_RESOURCE_URI, timelineShape } from "../appShapes.js";
import { pageInput } from "../historyShapes.js";
import { entityName } from "../schemas.js";
import { defineTool } from "../tool.js";

/** How many events a text summary lists. */
const EVENTS_IN_TEXT = 10;

export const showEntityTimeline = defineTool({
  name: "show_entity_timeline",
  toolsets: ["apps"],
  title: "Show an entity's timeline",
  description:
    "Show the user one entity's history as a timeline, newest first, in the chat where the client renders MCP Apps: from it " +
    "the user can view the entity as of any event and restore that state (restore_entity, after confirming). Works for a " +
    "deleted entity (exists: false). Each event's `at` is the time to pass as restore_entity's asOf to get the state right " +
    "after it. Without Apps the result is a short text summary and the structured events.",
  input: { entityName, ...pageInput },
  output: timelineShape,
  annotations: READ_ONLY,
  app: { resourceUri: APP_RESOURCE_URI },
  async handler(args, { services, workspace, offeredTools }) {
    const timeline = await services.apps.timeline(workspace, args);
    return { app: "timeline" as const, workspaceName: workspace, ...timeline, tools: [...offeredTools] };
  },
  text(timeline) {
    const lines = timeline.events
      .slice(0, EVENTS_IN_TEXT)
      // The summary already names who and through which tool ("key:ann via add_observations: added …").
      .map((event) => `- ${event.at} ${event.summary}`);
    if (lines.length === 0) {
      return (
        `'${timeline.entityName}' in workspace '${timeline.workspaceName}' has no recorded change left: retention pruned its ` +
        "history. Its current state is in open_nodes."
      );
    }
    return (
      `History of '${timeline.entityName}' in workspace '${timeline.workspaceName}'${timeline.exists ? "" : " (deleted now)"}, newest first, ` +
      `${timeline.events.length} events${timeline.cursor ? " (more: pass cursor)" : ""}:\n${lines.join("\n")}`
    );
  },
});
