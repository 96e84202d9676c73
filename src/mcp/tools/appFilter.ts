import { READ_ONLY } from "../annotations.js";
import { APP_RESOURCE_URI, graphSliceShape } from "../appShapes.js";
import { asOfInput } from "../historyShapes.js";
import { entityType, relationType, resultLimit, tagName } from "../schemas.js";
import { defineTool } from "../tool.js";

export const appFilter = defineTool({
  name: "app_filter",
  toolsets: ["apps"],
  title: "Filter the graph app",
  description:
    "For the memory graph app: the entities matching every filter given (entityType; tag, on the entity or one of its " +
    "observations; relationType, entities with a relation of that type) and the relations among them, the most connected " +
    "first when there are more than limit (default 200). asOf: as it was then.",
  input: {
    entityType: entityType.optional(),
    tag: tagName.optional(),
    relationType: relationType.optional(),
    asOf: asOfInput.describe("An ISO 8601 time: the graph as it was then."),
    limit: resultLimit.optional().describe("The most entities returned (1-2000, default 200)."),
  },
  output: graphSliceShape,
  annotations: READ_ONLY,
  app: { resourceUri: APP_RESOURCE_URI, visibility: ["app"] },
  async handler(args, { services, workspace }) {
    return { workspaceName: workspace, ...(await services.apps.filter(workspace, args)) };
  },
  text: sliceText,
});

/** A graph slice as a line of text, for a client that shows the text of an app-only tool's result. */
export function sliceText(slice: { entities: { name: string }[]; relations: unknown[]; truncated: boolean; asOf?: string }): string {
  return (
    `${slice.entities.length} entities and ${slice.relations.length} relations${slice.asOf ? ` as of ${slice.asOf}` : ""}` +
    `${slice.truncated ? " (more matched: the most connected are shown)" : ""}: ${slice.entities.map((entity) => entity.name).join(", ")}.`
  );
}
