import type { AnyTool } from "../tool.js";
import { getEntityRelations } from "./getEntityRelations.js";
import { readGraph } from "./readGraph.js";
import { upsertEntity } from "./upsertEntity.js";
import { upsertRelation } from "./upsertRelation.js";

/** Every tool, in the order tools/list shows them. Add a tool: write its module, list it here. */
export const ALL_TOOLS: readonly AnyTool[] = [upsertEntity, upsertRelation, getEntityRelations, readGraph];
