import { z } from "zod";

import { checkMaxChars } from "../../domain/model/budget.js";
import { LIMITS } from "../../domain/model/limits.js";
import { READ_ONLY } from "../annotations.js";
import { maxCharsInput, truncationOutput, withinBudget } from "../budgets.js";
import {
  entityValidityFields,
  entityValidityOf,
  lensInput,
  relationEnds,
  relationEndsOf,
  relationValidityFields,
  relationValidityOf,
  taggedEntity,
  toOfficialGraph,
} from "../graphShapes.js";
import { entityId, entityName, entityType, relationType, resultLimit } from "../schemas.js";
import { defineTool } from "../tool.js";

const direction = z.enum(["out", "in", "both"]);

const neighborRelation = z.object({ ...relationEnds, ...relationValidityFields });

export const getNeighbors = defineTool({
  name: "get_neighbors",
  toolsets: ["navigate"],
  title: "Get an entity's neighbourhood",
  description:
    "What is around an entity: the entities within `depth` relations of it (1-3, default 1), each with its observations and its " +
    "`distance`, and every relation between the entities returned, once each. Give entityName or entityId. direction: 'out' follows " +
    "relations the entity starts, 'in' those pointing at it, 'both' (default) either way. relationTypes limits which relations are " +
    "followed; entityTypes which entities are returned and walked through (the start is always returned). Use it to explore " +
    "context before reading more; use find_path to ask how two entities are connected. The walk follows only relations true now, " +
    "to entities that show (expired ones never); validAt walks the graph as it was true then, includeSuperseded walks ended relations too.",
  input: {
    entityName: entityName.optional(),
    entityId: entityId.optional(),
    depth: z.number().meta({ type: "integer" }).optional().describe(`How many relations away (1-${LIMITS.neighborDepth}, default 1).`),
    direction: direction.optional().describe("'out', 'in' or 'both' (default)."),
    relationTypes: z.array(relationType).optional().describe("Follow only relations of these types."),
    entityTypes: z.array(entityType).optional().describe("Return and walk through only entities of these types."),
    limit: resultLimit
      .optional()
      .describe(`Most entities to return (1-${LIMITS.itemsPerCall}, default ${LIMITS.neighborLimit}), nearest first.`),
    maxChars: maxCharsInput,
    ...lensInput,
    cursor: z.string().optional().describe("The cursor a truncated answer returned, with the same other arguments."),
  },
  output: {
    workspaceName: z.string(),
    entities: z.array(
      taggedEntity.extend({
        id: z.string(),
        distance: z.number().describe("Relations between it and the start entity."),
        ...entityValidityFields,
      }),
    ),
    relations: z.array(neighborRelation),
    limited: z.literal(true).optional().describe("Present when `limit` stopped the walk: more entities are within depth."),
    ...truncationOutput,
  },
  annotations: READ_ONLY,
  async handler(args, { services, workspace, toolsets }) {
    const { cursor, maxChars, entityName: name, entityId: id, validAt, includeSuperseded, ...options } = args;
    if (maxChars !== undefined) checkMaxChars(maxChars);
    const lens = services.navigate.lens({ validAt, includeSuperseded });
    // The cursor holds for exactly these arguments: a position in this walk's order.
    const scope = { workspace, tool: "get_neighbors" as const, mode: JSON.stringify({ name, id, ...options, validAt, includeSuperseded }) };
    const offset = cursor === undefined ? 0 : Number(await services.cursors.decode(scope, cursor));
    const hood = await services.navigate.getNeighbors(workspace, { name, id }, options, lens);
    const position = new Map(hood.entities.map(({ entity }, i) => [entity.id, i]));
    // A relation is listed with the later of its endpoints, so following the cursor lists each once.
    const listedAt = (r: { fromEntityId: string; toEntityId: string }) =>
      Math.max(position.get(r.fromEntityId)!, position.get(r.toEntityId)!);
    return withinBudget({
      total: hood.entities.length,
      offset,
      maxChars,
      render: (answer) => JSON.stringify(answer),
      build: async (end) => {
        const page = hood.entities.slice(offset, end);
        const shown = toOfficialGraph({ entities: page.map(({ entity }) => entity), relations: [] }, toolsets.has("tags")).entities;
        return {
          workspaceName: workspace,
          entities: page.map(({ entity, distance }, i) => ({ ...shown[i]!, id: entity.id, distance, ...entityValidityOf(entity, lens) })),
          relations: hood.relations
            .filter((r) => listedAt(r) >= offset && listedAt(r) < end)
            .map((r) => ({ ...relationEndsOf(r), ...relationValidityOf(r, lens) })),
          ...(hood.limited ? { limited: true as const } : {}),
          ...(end < hood.entities.length ? { truncated: true as const, cursor: await services.cursors.encode(scope, String(end)) } : {}),
        };
      },
    });
  },
});
