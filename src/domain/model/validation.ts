import { ValidationError } from "./errors.js";
import { LIMITS } from "./limits.js";
import type { Metadata } from "./model.js";

export function assertWorkspaceName(name: unknown): string {
  if (typeof name !== "string" || !LIMITS.workspaceNamePattern.test(name)) {
    const shown = typeof name === "string" ? `'${name.slice(0, 80)}'` : String(typeof name);
    throw new ValidationError(
      `Invalid workspaceName ${shown}: use 1-63 characters, letters, digits, '.', '_' or '-', starting with a letter or digit.`,
    );
  }
  return name;
}

/**
 * The one key metadata may not hold, at any depth. JavaScript treats an assignment to `__proto__` as
 * setting the object's prototype, so the key is dropped by any code that copies metadata by
 * assignment (zod did, for metadata sent as an object, while a JSON string kept it) and can pollute
 * the prototypes of readers that merge it. Refused with a clear error rather than kept inconsistently.
 */
const FORBIDDEN_KEY = "__proto__";

/**
 * How deeply metadata nests, and where (if anywhere) it holds the forbidden key: one walk, without
 * recursion (the point is to survive any depth). Stops as soon as the depth limit is passed.
 */
function inspectMetadata(root: unknown): { depth: number; forbiddenAt?: string } {
  let deepest = 0;
  const pending: [unknown, number, string][] = [[root, 1, "metadata"]];
  while (pending.length > 0) {
    const [value, depth, path] = pending.pop()!;
    if (value === null || typeof value !== "object") continue;
    deepest = Math.max(deepest, depth);
    if (deepest > LIMITS.metadataDepth) return { depth: deepest };
    if (Array.isArray(value)) {
      value.forEach((child, i) => pending.push([child, depth + 1, `${path}[${i}]`]));
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      if (key === FORBIDDEN_KEY) return { depth: deepest, forbiddenAt: `${path}.${key}` };
      pending.push([child, depth + 1, `${path}.${key}`]);
    }
  }
  return { depth: deepest };
}

/**
 * Metadata is a JSON object, or a string holding one (as the seed API accepted). It is stored as
 * JSON text in one property, so its serialised size is bounded by the property limit. Both forms
 * are held to the same rules.
 */
export function normalizeMetadata(value: unknown): Metadata | undefined {
  if (value === undefined || value === null) return undefined;
  let parsed: unknown = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new ValidationError('metadata is a string but not valid JSON. Pass a JSON object, e.g. {"source":"slack"}.');
    }
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ValidationError('metadata must be a JSON object (or a string holding one), e.g. {"source":"slack"}.');
  }
  const { depth, forbiddenAt } = inspectMetadata(parsed);
  if (depth > LIMITS.metadataDepth) {
    throw new ValidationError(`metadata is nested more than ${LIMITS.metadataDepth} levels deep. Flatten it.`);
  }
  if (forbiddenAt !== undefined) {
    throw new ValidationError(
      `metadata key ${forbiddenAt} is not allowed: JavaScript treats '${FORBIDDEN_KEY}' as an object's prototype, so clients would ` +
        `lose it or misread it. Rename the key (e.g. 'proto'); nothing was written.`,
    );
  }
  const text = JSON.stringify(parsed);
  if (text.length > LIMITS.metadataJson) {
    throw new ValidationError(
      `metadata is ${text.length} characters as JSON; the limit is ${LIMITS.metadataJson}. Store less, or split it.`,
    );
  }
  return parsed as Metadata;
}

/**
 * The text rules: the one place every limit on text is enforced, for every entry point (MCP tools,
 * whose schemas only describe types, and the import CLI), before any id is derived or storage is
 * called. `where` names the field in the message, e.g. "entities[2].name", so the caller can find it.
 */
function checkText(value: string, where: string, rule: { max: number; allowEmpty?: boolean }): string {
  if (!rule.allowEmpty && value.length === 0) throw new ValidationError(`${where} is empty. Give a non-empty value.`);
  if (value.length > rule.max) {
    throw new ValidationError(`${where} is ${value.length} characters; the limit is ${rule.max}. Shorten it, or split it into several.`);
  }
  // A lone surrogate cannot be encoded as UTF-8: storage would corrupt it, and ids cannot be derived from it.
  if (!value.isWellFormed()) throw new ValidationError(`${where} contains an unpaired UTF-16 surrogate. Send well-formed text.`);
  return value;
}

export const checkEntityName = (value: string, where: string) => checkText(value, where, { max: LIMITS.entityName });
/** A fact key's text (its form is checked by rules/validity.ts checkFactKey). */
export const checkFactKeyText = (value: string, where: string) => checkText(value, where, { max: LIMITS.factKey });
export const checkEntityType = (value: string, where: string) => checkText(value, where, { max: LIMITS.entityType, allowEmpty: true });
export const checkRelationType = (value: string, where: string) => checkText(value, where, { max: LIMITS.relationType });
export const checkTagName = (value: string, where: string) => checkText(value, where, { max: LIMITS.tagName });
export const checkObservation = (value: string, where: string) => checkText(value, where, { max: LIMITS.observation, allowEmpty: true });
export const checkTagCategory = (value: string, where: string) => checkText(value, where, { max: LIMITS.tagCategory, allowEmpty: true });
export const checkTagDescription = (value: string, where: string) =>
  checkText(value, where, { max: LIMITS.tagDescription, allowEmpty: true });
/** A principal id to filter the history by (get_changes): as long as a tag name may be. */
export const checkPrincipal = (value: string, where: string) => checkText(value, where, { max: LIMITS.tagName });
/** search_nodes' query: any text an observation could hold. */
export const checkQuery = (value: string, where: string) => checkText(value, where, { max: LIMITS.observation, allowEmpty: true });
/** search_entities' query: free text of a few words, not a document. */
export const checkSearchQuery = (value: string, where: string) => checkText(value, where, { max: LIMITS.searchQuery, allowEmpty: true });

/**
 * Names and types that only find or delete something (open_nodes, the delete tools) keep the size and
 * text rules, but may be empty: an empty one names nothing, so nothing is found or deleted.
 */
export const checkEntityNameLookup = (value: string, where: string) =>
  checkText(value, where, { max: LIMITS.entityName, allowEmpty: true });
const checkRelationTypeLookup = (value: string, where: string) => checkText(value, where, { max: LIMITS.relationType, allowEmpty: true });

/** A page size or result limit: 1 to the per-call item limit. */
export function checkLimit(limit: number, where: string): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > LIMITS.itemsPerCall) {
    throw new ValidationError(`${where} must be a whole number from 1 to ${LIMITS.itemsPerCall}.`);
  }
}

/** Bounds the work (and the transactions) a single call can ask for. */
export function checkCount(items: readonly unknown[], where: string, max: number): void {
  if (items.length > max) throw new ValidationError(`${where} has ${items.length} items; the limit is ${max} per call. Split the call.`);
}

/** An entity as the official memory server describes it. */
export interface EntityInput {
  name: string;
  entityType: string;
  observations: string[];
}

/** A relation between two entities named exactly. */
export interface RelationInput {
  from: string;
  to: string;
  relationType: string;
}

/** The text limits of an entity (how many observations one call may carry is the caller's rule). */
export function checkEntityInput(entity: EntityInput, where: string): void {
  checkEntityName(entity.name, `${where}.name`);
  checkEntityType(entity.entityType, `${where}.entityType`);
  entity.observations.forEach((content, i) => checkObservation(content, `${where}.observations[${i}]`));
}

export function checkRelationInput(relation: RelationInput, where: string): void {
  checkEntityName(relation.from, `${where}.from`);
  checkEntityName(relation.to, `${where}.to`);
  checkRelationType(relation.relationType, `${where}.relationType`);
}

/** A relation named to be deleted: the rules of checkRelationInput, empty parts allowed (see checkEntityNameLookup). */
export function checkRelationLookup(relation: RelationInput, where: string): void {
  checkEntityNameLookup(relation.from, `${where}.from`);
  checkEntityNameLookup(relation.to, `${where}.to`);
  checkRelationTypeLookup(relation.relationType, `${where}.relationType`);
}

/** A time given as ISO 8601 text (a date, or a date and time), as milliseconds; a ValidationError otherwise. */
export function parseTime(text: string, field: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) throw new ValidationError(`${field} '${text.slice(0, 100)}' is not an ISO 8601 time, e.g. 2026-01-31T12:00:00Z.`);
  return ms;
}
