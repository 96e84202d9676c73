import { z } from "zod";

import { IDEMPOTENT_WRITE } from "../annotations.js";
import { entityName, entityType, expectedVersion, metadataInput, observations, validityInput, versionOutput } from "../schemas.js";
import { defineTool } from "../tool.js";

export const upsertEntity = defineTool({
  name: "upsert_entity",
  toolsets: ["core"],
  title: "Create or update an entity",
  description:
    "Create an entity, or update the one with this exact name in the workspace. entityType and metadata replace the stored values; " +
    "observations are merged: new ones are appended, stored ones are kept (nothing is ever dropped). Returns the entity's id and version. " +
    "Pass expectedVersion (from a read) to update only if nobody changed it since: otherwise a ConflictError with currentVersion. " +
    "validFrom, validTo and expiresAt (or ttlSeconds) apply to the observations it adds; adding one that was superseded or ended reopens it. " +
    "On a key declared single-valued (declare_fact_keys), an observation 'key: value' supersedes the entity's current value for it.",
  input: {
    name: entityName,
    entityType,
    observations: observations.optional().describe("Facts to add; existing facts are kept."),
    metadata: metadataInput.optional(),
    expectedVersion: expectedVersion.optional(),
    ...validityInput,
  },
  output: {
    success: z.literal(true),
    id: z.string(),
    workspace: z.string(),
    name: z.string(),
    created: z.boolean().describe("true if the entity did not exist before this call"),
    version: versionOutput,
  },
  annotations: IDEMPOTENT_WRITE,
  async handler(args, { services, workspace, actor }) {
    const result = await services.core.upsertEntity(workspace, actor, args);
    return { success: true as const, id: result.id, workspace, name: args.name, created: result.created, version: result.version };
  },
});
