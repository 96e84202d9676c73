import { z } from "zod";

import { READ_ONLY } from "../annotations.js";
import { authorshipFields, authorshipOf, lensInput, relationValidityFields, relationValidityOf, versionOrLegacy } from "../graphShapes.js";
import { asOfInput } from "../historyShapes.js";
import { entityId, entityName, metadataOutput, versionOutput } from "../schemas.js";
import { defineTool } from "../tool.js";

export const getEntityRelations = defineTool({
  name: "get_entity_relations",
  toolsets: ["core"],
  title: "List an entity's relations",
  description:
    "List the relations of one entity, given by entityId or entityName (if both, they must name the same entity). direction: 'out' (default) for relations it starts, " +
    "'in' for relations pointing at it, 'both' for all. Each relation says who created it (createdBy) and last changed it (updatedBy). " +
    "version is the entity's own version, to pass as expectedVersion to upsert_entity (absent with asOf). By default only " +
    "relations true now are listed (not ended, not expired); `validAt` lists those true then, `includeSuperseded` all, each marked " +
    "with its `status`; with `asOf`, as the memory held them then, true at `validAt` (default: at asOf). An expired entity is not found.",
  input: {
    entityId: entityId.optional(),
    entityName: entityName.optional(),
    direction: z.enum(["out", "in", "both"]).default("out"),
    asOf: asOfInput,
    ...lensInput,
  },
  output: {
    success: z.literal(true),
    workspaceName: z.string(),
    entityId: z.string(),
    version: versionOutput
      .optional()
      .describe("The entity's own version: pass it as expectedVersion to update it safely. Absent with asOf."),
    relations: z.array(
      z.object({
        relationId: z.string(),
        relationType: z.string(),
        fromEntityId: z.string(),
        fromName: z.string(),
        toEntityId: z.string(),
        toName: z.string(),
        metadata: metadataOutput,
        ...authorshipFields,
        version: versionOutput.optional(),
        ...relationValidityFields,
      }),
    ),
  },
  annotations: READ_ONLY,
  async handler(args, { services, workspace }) {
    const {
      entityId: id,
      entity,
      relations,
      lens,
    } = await services.core.getEntityRelations(workspace, { id: args.entityId, name: args.entityName }, args.direction, {
      asOf: args.asOf,
      validAt: args.validAt,
      includeSuperseded: args.includeSuperseded,
    });
    return {
      success: true as const,
      workspaceName: workspace,
      entityId: id,
      ...(entity ? { version: versionOrLegacy(entity) } : {}),
      relations: relations.map((r) => ({
        relationId: r.id,
        relationType: r.relationType,
        fromEntityId: r.fromEntityId,
        fromName: r.fromName,
        toEntityId: r.toEntityId,
        toName: r.toName,
        metadata: r.metadata,
        ...authorshipOf(r),
        version: versionOrLegacy(r),
        ...relationValidityOf(r, lens),
      })),
    };
  },
});
