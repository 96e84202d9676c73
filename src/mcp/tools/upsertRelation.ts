import { z } from "zod";

import { IDEMPOTENT_WRITE } from "../annotations.js";
import { entityId, entityName, expectedVersion, metadataInput, relationType, validityInput, versionOutput } from "../schemas.js";
import { defineTool } from "../tool.js";

export const upsertRelation = defineTool({
  name: "upsert_relation",
  toolsets: ["core"],
  title: "Create or update a relation",
  description:
    "Create a directed relation between two existing entities, or update its metadata if it already exists (never duplicated). " +
    "Give each endpoint by id (fromEntityId/toEntityId) or by name (from/to). Create missing entities with upsert_entity first. " +
    "Returns the relation's version; pass expectedVersion to update only if nobody changed it since (else a ConflictError). " +
    "validFrom, validTo and expiresAt (or ttlSeconds) set when it holds and when it expires; on an existing relation a validFrom " +
    "without validTo starts a new period (reopens an ended relation).",
  input: {
    fromEntityId: entityId.optional().describe("Source entity id (GUID)."),
    toEntityId: entityId.optional().describe("Target entity id (GUID)."),
    from: entityName.optional().describe("Source entity name, instead of fromEntityId."),
    to: entityName.optional().describe("Target entity name, instead of toEntityId."),
    relationType,
    metadata: metadataInput.optional(),
    expectedVersion: expectedVersion.optional(),
    ...validityInput,
  },
  output: {
    success: z.literal(true),
    relationId: z.string(),
    workspace: z.string(),
    fromEntityId: z.string(),
    toEntityId: z.string(),
    relationType: z.string(),
    version: versionOutput,
  },
  annotations: IDEMPOTENT_WRITE,
  async handler(args, { services, workspace, actor }) {
    const result = await services.core.upsertRelation(workspace, actor, {
      from: { id: args.fromEntityId, name: args.from },
      to: { id: args.toEntityId, name: args.to },
      relationType: args.relationType,
      metadata: args.metadata,
      expectedVersion: args.expectedVersion,
      validFrom: args.validFrom,
      validTo: args.validTo,
      expiresAt: args.expiresAt,
      ttlSeconds: args.ttlSeconds,
    });
    return {
      success: true as const,
      relationId: result.relationId,
      workspace,
      fromEntityId: result.fromEntityId,
      toEntityId: result.toEntityId,
      relationType: args.relationType,
      version: result.version,
    };
  },
});
