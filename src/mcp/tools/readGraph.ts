import { z } from "zod";
import { defineTool } from "../tool.js";
import { metadataOutput } from "../schemas.js";

export const readGraph = defineTool({
  name: "read_graph",
  group: "core",
  title: "Read the whole graph",
  description: "Read every entity (with its observations, in the order they were added) and every relation in the workspace.",
  input: {},
  output: {
    workspaceName: z.string(),
    entities: z.array(
      z.object({ id: z.string(), name: z.string(), entityType: z.string(), observations: z.array(z.string()), metadata: metadataOutput }),
    ),
    relations: z.array(
      z.object({
        id: z.string(),
        from: z.string(),
        to: z.string(),
        fromEntityId: z.string(),
        toEntityId: z.string(),
        relationType: z.string(),
        metadata: metadataOutput,
      }),
    ),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(_args, { memory, workspace }) {
    const graph = await memory.readGraph(workspace);
    return {
      workspaceName: workspace,
      entities: graph.entities.map((e) => ({ id: e.id, name: e.name, entityType: e.entityType, observations: e.observations, metadata: e.metadata })),
      relations: graph.relations.map((r) => ({
        id: r.id,
        from: r.fromName,
        to: r.toName,
        fromEntityId: r.fromEntityId,
        toEntityId: r.toEntityId,
        relationType: r.relationType,
        metadata: r.metadata,
      })),
    };
  },
});
