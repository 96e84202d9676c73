import { ConflictError, ValidationError } from "./errors.js";

/**
 * Versions (docs/curate.md#versions): every entity row and canonical relation row carries an opaque
 * `version`, a fresh 16-hex-digit token written by each write that changes the row's own fields
 * (never by observation, tag or guard writes, so adding observations never conflicts). Rows written
 * before versions existed report LEGACY_VERSION. A write with `expectedVersion` applies only while the
 * stored version is that one.
 */
export const LEGACY_VERSION = "0";
const VERSION_PATTERN = /^(0|[0-9a-f]{16})$/;

export function checkExpectedVersion(value: string | undefined, field: string): void {
  if (value === undefined || VERSION_PATTERN.test(value)) return;
  throw new ValidationError(
    `${field} '${value.slice(0, 40)}' is not a version: pass the \`version\` a read returned (16 hex digits, or "0" for data written before versions).`,
  );
}

/** The refusal of a write whose expectedVersion is not the stored one; nothing was written. */
export function versionConflict(subject: string, expected: string, current: string | null): ConflictError {
  const now = current === null ? "it does not exist" : `its version is now '${current}'`;
  return new ConflictError(
    `${subject} changed since you read it: you expected version '${expected}', ${now}. Nothing was written. ` +
      "Re-read it, re-apply your change to what is stored now, and retry with the new version.",
    current,
  );
}
