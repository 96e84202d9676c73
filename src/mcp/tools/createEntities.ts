import { z } from "zod";

import { ADDITIVE_WRITE } from "../annotations.js";
import { indentedJson, officialEntity } from "../graphShapes.js";
import { defineTool } from "../tool.js";

/** Official memory-server parity: name, description, schemas, annotations and text as server-memory 2026.8.31. */
export const createEntities = defineTool({
  name: "create_entities",
  toolsets: ["graph"],
  title: "Create Entities",
  description: "Create multiple new entities in the knowledge graph",
  input: { entities: z.array(officialEntity) },
  output: { entities: z.array(officialEntity) },
  annotations: ADDITIVE_WRITE,
  exactOutputSchema: true,
  text: (result) => indentedJson(result.entities),
  async handler(args, { services, workspace, actor }) {
    return { entities: await services.graph.createEntities(workspace, actor, args.entities) };
  },
});
