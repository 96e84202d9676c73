import { ValidationError } from "../../domain/model/errors.js";
import { READ_ONLY } from "../annotations.js";
import { eventsOutput, pageInput, toEventsOutput } from "../historyShapes.js";
import { entityId, entityName } from "../schemas.js";
import { defineTool } from "../tool.js";

export const getEntityHistory = defineTool({
  name: "get_entity_history",
  toolsets: ["history"],
  title: "An entity's history",
  description:
    "Every recorded change that touched one entity (given by entityName or entityId), oldest first: its creation, updates, " +
    "observations, relations and tags, and its deletion. Works after the entity was deleted, to see what it held. Each event " +
    "lists only its changes to this entity (get_changes gives whole events), with its time and principal.",
  input: { entityName: entityName.optional(), entityId: entityId.optional(), ...pageInput },
  output: eventsOutput,
  annotations: READ_ONLY,
  async handler(args, { services, workspace }) {
    if (args.entityId === undefined && args.entityName === undefined) throw new ValidationError("Give entityName or entityId.");
    const page = await services.history.entityHistory(
      workspace,
      { id: args.entityId, name: args.entityName },
      { limit: args.limit, cursor: args.cursor },
    );
    return toEventsOutput(workspace, page);
  },
});
