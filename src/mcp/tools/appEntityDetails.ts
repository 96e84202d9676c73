import { z } from "zod";

import { READ_ONLY } from "../annotations.js";
import { APP_RESOURCE_URI, entityDetailsShape } from "../appShapes.js";
import { asOfInput } from "../historyShapes.js";
import { entityName } from "../schemas.js";
import { defineTool } from "../tool.js";

export const appEntityDetails = defineTool({
  name: "app_entity_details",
  toolsets: ["apps"],
  title: "An entity's panel in the graph app",
  description:
    "For the memory graph app: one entity's observations, tags, validity and authorship (what is true now, or at asOf), its " +
    "relations (with their status when includeSuperseded), its creation and its newest events, in one call. entity is null " +
    "when it does not exist (now, or at asOf).",
  input: {
    entityName,
    asOf: asOfInput.describe("An ISO 8601 time: the entity as it was then."),
    includeSuperseded: z.boolean().optional().describe("Also superseded, ended and not-yet-valid facts, each with its status."),
  },
  output: entityDetailsShape,
  annotations: READ_ONLY,
  app: { resourceUri: APP_RESOURCE_URI, visibility: ["app"] },
  async handler(args, { services, workspace }) {
    return { workspaceName: workspace, ...(await services.apps.details(workspace, args)) };
  },
  text(details) {
    const when = details.asOf ? ` at ${details.asOf}` : "";
    if (!details.entity)
      return `No such entity${when} in workspace '${details.workspaceName}'; ${details.recent.length} events in its history.`;
    const { entity } = details;
    return (
      `${entity.name} (${entity.entityType})${when}: ${entity.observations.length} observations, ${details.relations.length} relations` +
      (details.created ? `; created ${details.created.at} by ${details.created.principal}` : "") +
      `. Observations: ${entity.observations.join(" | ")}`
    );
  },
});
