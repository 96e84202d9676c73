import { z } from "zod";

import { ADDITIVE_WRITE } from "../annotations.js";
import { indentedJson, officialEntity } from "../graphShapes.js";
import { validityInput } from "../schemas.js";
import { defineTool } from "../tool.js";

/** Official memory-server parity: name, description, schemas, annotations and text as server-memory 2026.8.31. */
export const createEntities = defineTool({
  name: "create_entities",
  toolsets: ["graph"],
  title: "Create Entities",
  description: "Create multiple new entities in the knowledge graph",
  // Beyond the official schema, optional (like workspaceName): validFrom/validTo for every observation written, and
  // expiresAt/ttlSeconds for the entities created (docs/history.md#two-times).
  input: { entities: z.array(officialEntity), ...validityInput },
  output: { entities: z.array(officialEntity) },
  annotations: ADDITIVE_WRITE,
  exactOutputSchema: true,
  text: (result) => indentedJson(result.entities),
  async handler(args, { services, workspace, actor }) {
    const { entities, ...times } = args;
    return { entities: await services.graph.createEntities(workspace, actor, entities, times) };
  },
});
