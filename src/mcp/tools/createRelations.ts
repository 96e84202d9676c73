import { z } from "zod";

import { ADDITIVE_WRITE } from "../annotations.js";
import { indentedJson, officialRelation } from "../graphShapes.js";
import { defineTool } from "../tool.js";

/** Official memory-server parity (see createEntities.ts). */
export const createRelations = defineTool({
  name: "create_relations",
  toolsets: ["graph"],
  title: "Create Relations",
  description: "Create multiple new relations between entities in the knowledge graph. Relations should be in active voice",
  input: { relations: z.array(officialRelation) },
  output: { relations: z.array(officialRelation) },
  annotations: ADDITIVE_WRITE,
  exactOutputSchema: true,
  text: (result) => indentedJson(result.relations),
  async handler(args, { services, workspace, actor }) {
    return { relations: await services.graph.createRelations(workspace, actor, args.relations) };
  },
});
