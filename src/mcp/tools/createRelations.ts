import { z } from "zod";

import { ADDITIVE_WRITE } from "../annotations.js";
import { indentedJson, officialRelation } from "../graphShapes.js";
import { validityInput } from "../schemas.js";
import { defineTool } from "../tool.js";

/** Official memory-server parity (see createEntities.ts). */
export const createRelations = defineTool({
  name: "create_relations",
  toolsets: ["graph"],
  title: "Create Relations",
  description: "Create multiple new relations between entities in the knowledge graph. Relations should be in active voice",
  // Beyond the official schema, optional: the relations' valid time and expiry (docs/history.md#two-times).
  input: { relations: z.array(officialRelation), ...validityInput },
  output: { relations: z.array(officialRelation) },
  annotations: ADDITIVE_WRITE,
  exactOutputSchema: true,
  text: (result) => indentedJson(result.relations),
  async handler(args, { services, workspace, actor }) {
    const { relations, ...times } = args;
    return { relations: await services.graph.createRelations(workspace, actor, relations, times) };
  },
});
