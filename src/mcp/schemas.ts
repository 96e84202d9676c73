import { z } from "zod";

import { ERROR_KINDS } from "../domain/model/errors.js";
import { LIMITS } from "../domain/model/limits.js";

/**
 * Field schemas shared by the tools. They give each argument's type and shape, and describe the
 * limits for clients (tools/list), but enforce none: the domain (domain/model/validation.ts) is the one
 * authority on every limit and text rule, so a tool, the import CLI and any later entry point are
 * held to the same rules with the same messages.
 */

export const entityName = z
  .string()
  .describe(`Entity name (1-${LIMITS.entityName} characters), unique within the workspace and matched exactly.`);
export const entityType = z.string().describe(`Kind of entity, e.g. person, project, service (up to ${LIMITS.entityType} characters).`);
export const relationType = z
  .string()
  .describe(`Relation type in active voice, e.g. works_on, depends_on (1-${LIMITS.relationType} characters).`);
export const observation = z.string().describe(`One fact, up to ${LIMITS.observation} characters.`);
export const observations = z.array(observation).describe(`Up to ${LIMITS.observationsPerCall} facts per call.`);
export const tagName = z
  .string()
  .describe(`Tag name (1-${LIMITS.tagName} characters), matched exactly, e.g. high-priority, source:slack, confidence:low.`);
export const tagNames = z
  .array(tagName)
  .describe(`Tag names (1-${LIMITS.tagsPerCall}), matched exactly. Reuse names get_all_tags lists rather than inventing near-duplicates.`);
export const tagCategory = z
  .string()
  .describe(`A group of tags, e.g. priority, source, confidence (up to ${LIMITS.tagCategory} characters).`);
export const tagDescription = z.string().describe(`What the tag means and when to use it (up to ${LIMITS.tagDescription} characters).`);
/**
 * A page size or result limit: a whole number from 1 to the per-call item limit, which the domain
 * checks. Listed as an integer; zod's int() would also list the safe-integer bounds as the range.
 */
export const resultLimit = z.number().meta({ type: "integer" });
export const entityId = z.string().describe("Entity id (GUID) as returned by upsert_entity.");
/**
 * Passed through unparsed: the domain checks it (normalizeMetadata), whichever form it comes in.
 * A zod record would rebuild the object by assignment, which silently drops a `__proto__` key.
 */
export const metadataInput = z.unknown().meta({
  description: "JSON object of extra properties, or a string holding one.",
  anyOf: [{ type: "object", propertyNames: { type: "string" }, additionalProperties: {} }, { type: "string" }],
});
export const metadataOutput = z.record(z.string(), z.unknown());
/**
 * The workspace argument is mirrored into the `Mcp-Param-Workspace` header by 2026-07-28 clients (the revision's
 * `x-mcp-header`), so a gateway can route or rate-limit on it without reading the body (docs/gateway.md); the server
 * refuses a header that disagrees with the argument (src/http/routingHeaders.ts).
 */
export const WORKSPACE_PARAM_HEADER = "Workspace";
export const workspaceName = z
  .string()
  .describe("Workspace (memory partition) name: 1-63 letters, digits, '.', '_' or '-'.")
  .meta({ "x-mcp-header": WORKSPACE_PARAM_HEADER });

/** The structured content of every error result (docs/architecture.md#errors). */
export const errorOutput = z.object({
  success: z.literal(false),
  error: z.enum(ERROR_KINDS),
  message: z.string(),
  currentVersion: z.string().nullable().optional().describe("On a version conflict: the version stored now (null: it does not exist)."),
});

/** A version a read returned, to write only while it is still the stored one (docs/curate.md#versions). */
export const expectedVersion = z
  .string()
  .describe(
    "Write only if the stored version is still this one (the `version` a read returned); otherwise the call fails with a " +
      "ConflictError carrying currentVersion, and nothing is written.",
  );

/** The version of an entity's or relation's own fields, as reads return it. */
export const versionOutput = z.string().describe("The version of its own fields: pass it as expectedVersion to update it safely.");

/**
 * The valid time and expiry a write may set (docs/history.md#two-times): extra optional top-level arguments of
 * create_entities, add_observations, create_relations, upsert_entity and upsert_relation. The domain checks them
 * (checkValidityInput): validTo after validFrom, an expiry in the future, not both expiresAt and ttlSeconds.
 */
export const validityInput = {
  validFrom: z
    .string()
    .optional()
    .describe("ISO 8601 time from which the facts written hold (may be in the past: backdating). Default: when written."),
  validTo: z.string().optional().describe("ISO 8601 time at which they stop holding (after validFrom, or after now without it)."),
  expiresAt: z
    .string()
    .optional()
    .describe("ISO 8601 time in the future at which they expire: gone from every read, deleted later by the sweep."),
  ttlSeconds: z.number().optional().describe("Instead of expiresAt: seconds from now until they expire (whole, 1 to ten years)."),
};
