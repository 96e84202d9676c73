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

/** How deeply objects and arrays nest, counted without recursion (the point is to survive any depth). */
function nestingDepth(root: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[root, 1]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (value === null || typeof value !== "object") continue;
    deepest = Math.max(deepest, depth);
    if (deepest > LIMITS.metadataDepth) return deepest;
    for (const child of Object.values(value)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * Metadata is a JSON object, or a string holding one (as the seed API accepted). It is stored as
 * JSON text in one property, so its serialised size is bounded by the property limit.
 */
export function normalizeMetadata(value: unknown): Metadata | undefined {
  if (value === undefined || value === null) return undefined;
  let parsed: unknown = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new ValidationError("metadata is a string but not valid JSON. Pass a JSON object, e.g. {\"source\":\"slack\"}.");
    }
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ValidationError("metadata must be a JSON object (or a string holding one), e.g. {\"source\":\"slack\"}.");
  }
  if (nestingDepth(parsed) > LIMITS.metadataDepth) {
    throw new ValidationError(`metadata is nested more than ${LIMITS.metadataDepth} levels deep. Flatten it.`);
  }
  const text = JSON.stringify(parsed);
  if (text.length > LIMITS.metadataJson) {
    throw new ValidationError(`metadata is ${text.length} characters as JSON; the limit is ${LIMITS.metadataJson}. Store less, or split it.`);
  }
  return parsed as Metadata;
}
