import { z } from "zod";

import { LIMITS } from "../../domain/model/limits.js";
import { READ_ONLY } from "../annotations.js";
import { lensInput, relationEnds, relationEndsOf, relationValidityFields, relationValidityOf } from "../graphShapes.js";
import { entityName, relationType } from "../schemas.js";
import { defineTool } from "../tool.js";

const entityStep = z.object({ kind: z.literal("entity"), id: z.string(), name: z.string() });
const relationStep = z.object({ kind: z.literal("relation"), ...relationEnds, ...relationValidityFields });

export const findPath = defineTool({
  name: "find_path",
  toolsets: ["navigate"],
  title: "Find how two entities are connected",
  description:
    "The shortest chain of relations from one entity to another, by name: `path` alternates entities and relations, from `from` to " +
    `\`to\`. maxDepth bounds its length (1-${LIMITS.pathDepth} relations, default ${LIMITS.pathDepth}). direction: 'out' follows ` +
    "relations forward only (from -> ... -> to), 'in' backward only, 'both' (default) either way. relationTypes limits which " +
    "relations are used. When there is none within maxDepth, `found` is false and `message` says so. The path uses only relations " +
    "true now, through entities that show; validAt asks another time, includeSuperseded lets it use ended relations too.",
  input: {
    from: entityName.describe("Name of the entity the path starts at."),
    to: entityName.describe("Name of the entity the path ends at (not the same as from)."),
    maxDepth: z
      .number()
      .meta({ type: "integer" })
      .optional()
      .describe(`Most relations in the path (1-${LIMITS.pathDepth}, default ${LIMITS.pathDepth}).`),
    direction: z.enum(["out", "in", "both"]).optional().describe("'out', 'in' or 'both' (default)."),
    relationTypes: z.array(relationType).optional().describe("Use only relations of these types."),
    ...lensInput,
  },
  output: {
    workspaceName: z.string(),
    found: z.boolean(),
    hops: z.number().optional().describe("Relations in the path (when found)."),
    path: z
      .array(z.union([entityStep, relationStep]))
      .describe("Entities and relations alternating, from `from` to `to`; empty when not found."),
    message: z.string().optional().describe("Why no path was returned (when not found)."),
    visitedEntities: z.number().describe(`Entities whose relations the search read (at most ${LIMITS.pathVisitedEntities}).`),
  },
  annotations: READ_ONLY,
  async handler(args, { services, workspace }) {
    const options = {
      ...(args.maxDepth !== undefined ? { maxDepth: args.maxDepth } : {}),
      ...(args.direction !== undefined ? { direction: args.direction } : {}),
      ...(args.relationTypes !== undefined ? { relationTypes: args.relationTypes } : {}),
    };
    const lens = services.navigate.lens(args);
    const result = await services.navigate.findPath(workspace, { name: args.from }, { name: args.to }, options, lens);
    if (!result.found) {
      const hops = args.maxDepth ?? LIMITS.pathDepth;
      const message =
        result.reason === "visit-limit"
          ? `No path found from '${args.from}' to '${args.to}' after reading the relations of ${result.visitedEntities} entities ` +
            `(the search's bound). Narrow it with relationTypes, a direction or a smaller maxDepth.`
          : `No path from '${args.from}' to '${args.to}' within ${hops} hops.`;
      return { workspaceName: workspace, found: false, path: [], message, visitedEntities: result.visitedEntities };
    }
    return {
      workspaceName: workspace,
      found: true,
      hops: result.hops,
      path: result.path.map((step) =>
        step.kind === "entity"
          ? step
          : { kind: "relation" as const, ...relationEndsOf(step.relation), ...relationValidityOf(step.relation, lens) },
      ),
      visitedEntities: result.visitedEntities,
    };
  },
});
