import { READ_ONLY } from "../annotations.js";
import { APP_RESOURCE_URI, graphSliceShape } from "../appShapes.js";
import { asOfInput } from "../historyShapes.js";
import { entityName, resultLimit } from "../schemas.js";
import { defineTool } from "../tool.js";
import { sliceText } from "./appFilter.js";

export const appExpand = defineTool({
  name: "app_expand",
  toolsets: ["apps"],
  title: "Expand an entity in the graph app",
  description:
    "For the memory graph app: one entity and its neighbours (depth 1), each with its type, tags and degree, and the relations " +
    "among them; the most connected neighbours first when there are more than limit (default 200). asOf: as it was then.",
  input: {
    entityName,
    asOf: asOfInput.describe("An ISO 8601 time: the neighbourhood as it was then."),
    limit: resultLimit.optional().describe("The most entities returned (1-2000, default 200)."),
  },
  output: graphSliceShape,
  annotations: READ_ONLY,
  app: { resourceUri: APP_RESOURCE_URI, visibility: ["app"] },
  async handler(args, { services, workspace }) {
    return { workspaceName: workspace, ...(await services.apps.expand(workspace, args)) };
  },
  text: sliceText,
});
