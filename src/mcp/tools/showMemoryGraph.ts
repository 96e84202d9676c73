import { z } from "zod";

import { GRAPH_DEFAULT_LIMIT, GRAPH_MAX_LIMIT } from "../../domain/services/appService.js";
import { READ_ONLY } from "../annotations.js";
import { APP_RESOURCE_URI, graphViewShape } from "../appShapes.js";
import { asOfInput } from "../historyShapes.js";
import { entityName, resultLimit } from "../schemas.js";
import { defineTool } from "../tool.js";

/** How many names a text summary lists: a reader without the app sees what the graph holds, not all of it. */
const NAMES_IN_TEXT = 20;

export const showMemoryGraph = defineTool({
  name: "show_memory_graph",
  toolsets: ["apps"],
  title: "Show the memory graph",
  description:
    "Show the workspace's knowledge graph to the user, interactively in the chat where the client renders MCP Apps (the user " +
    "can expand, filter, search, see an entity's details and history, and move through time). Opens on an entity and its " +
    "neighbours (entityName), on the hits of a search and their neighbours (query), or, with neither, on the whole graph when " +
    `it is small, else its most connected entities (limit, default ${GRAPH_DEFAULT_LIMIT}). asOf shows the graph as it was then. ` +
    "Without Apps the result is a short text summary and the structured entities and relations.",
  input: {
    entityName: entityName.optional().describe("Open on this entity and its neighbours."),
    query: z.string().optional().describe("Open on the hits of this search (a few words) and their neighbours."),
    asOf: asOfInput.describe("An ISO 8601 time: the graph as it was then, rebuilt from the change history."),
    limit: resultLimit.optional().describe(`The most entities drawn (1-${GRAPH_MAX_LIMIT}, default ${GRAPH_DEFAULT_LIMIT}).`),
  },
  output: graphViewShape,
  annotations: READ_ONLY,
  app: { resourceUri: APP_RESOURCE_URI },
  async handler(args, { services, workspace, offeredTools }) {
    const view = await services.apps.graphView(workspace, args);
    return { app: "graph" as const, workspaceName: workspace, ...view, tools: [...offeredTools] };
  },
  text(view) {
    const opened =
      view.opening === "entity"
        ? `around '${view.focus}'`
        : view.opening === "search"
          ? `on ${view.hits.length} search hits`
          : view.opening === "hubs"
            ? "on the most connected entities"
            : "whole";
    const names = view.entities.slice(0, NAMES_IN_TEXT).map((entity) => `${entity.name} (${entity.entityType})`);
    const more = view.entities.length > NAMES_IN_TEXT ? `, and ${view.entities.length - NAMES_IN_TEXT} more` : "";
    return (
      `The memory graph of workspace '${view.workspaceName}'${view.asOf ? ` as of ${view.asOf}` : ""}, opened ${opened}: ` +
      `${view.entities.length} entities and ${view.relations.length} relations shown, of ${view.totals.entities} entities and ` +
      `${view.totals.relations} relations in all.` +
      (names.length > 0 ? ` Entities: ${names.join(", ")}${more}.` : "")
    );
  },
});
