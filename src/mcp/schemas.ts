import { z } from "zod";
import { ERROR_KINDS } from "../domain/errors.js";
import { LIMITS } from "../domain/limits.js";

/**
 * Field schemas shared by the tools, with Table Storage's size limits (domain/limits.ts) so
 * oversized input is refused before any storage call.
 */

/** Rejects lone surrogates: they cannot be encoded as UTF-8 and would be corrupted in storage. */
const wellFormed = (schema: z.ZodString) =>
  schema.refine((value) => value.isWellFormed(), { message: "contains an unpaired UTF-16 surrogate" });

export const entityName = wellFormed(z.string().min(1).max(LIMITS.entityName)).describe(
  "Entity name, unique within the workspace and matched exactly.",
);
export const entityType = wellFormed(z.string().min(1).max(LIMITS.entityType)).describe("Kind of entity, e.g. person, project, service.");
export const relationType = wellFormed(z.string().min(1).max(LIMITS.relationType)).describe(
  "Relation type in active voice, e.g. works_on, depends_on.",
);
export const observation = wellFormed(z.string().min(1).max(LIMITS.observation)).describe(
  `One fact, up to ${LIMITS.observation} characters.`,
);
export const observations = z.array(observation).max(LIMITS.observationsPerCall);
export const tagName = wellFormed(z.string().min(1).max(LIMITS.tagName)).describe(
  "Tag name, matched exactly, e.g. high-priority, source:slack, confidence:low.",
);
export const tagNames = z
  .array(tagName)
  .min(1)
  .max(LIMITS.tagsPerCall)
  .describe(`Tag names (1-${LIMITS.tagsPerCall}), matched exactly. Reuse names get_all_tags lists rather than inventing near-duplicates.`);
export const tagCategory = wellFormed(z.string().max(LIMITS.tagCategory)).describe("A group of tags, e.g. priority, source, confidence.");
export const tagDescription = wellFormed(z.string().max(LIMITS.tagDescription)).describe("What the tag means and when to use it.");
export const entityId = z.string().describe("Entity id (GUID) as returned by upsert_entity.");
export const metadataInput = z
  .union([z.record(z.string(), z.unknown()), z.string()])
  .describe("JSON object of extra properties, or a string holding one.");
export const metadataOutput = z.record(z.string(), z.unknown());
export const workspaceName = z.string().describe("Workspace (memory partition) name: 1-63 letters, digits, '.', '_' or '-'.");

/** The structured content of every error result (design §4). */
export const errorOutput = z.object({
  success: z.literal(false),
  error: z.enum(ERROR_KINDS),
  message: z.string(),
});
