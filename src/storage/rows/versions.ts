import { randomBytes } from "node:crypto";

import { LEGACY_VERSION, versionConflict } from "../../domain/model/expectedVersion.js";
import { text } from "./rows.js";

/** A fresh version token for a row whose own fields a write changes (rules in domain/model/expectedVersion.ts). */
export const newVersion = (): string => randomBytes(8).toString("hex");

/** The version a stored row reports. */
export const versionOf = (row: Record<string, unknown>): string => text(row.version) || LEGACY_VERSION;

/** Throws the conflict when `expected` is given and the row read (undefined: absent) does not carry it. */
export function checkVersion(subject: string, expected: string | undefined, row: Record<string, unknown> | undefined): void {
  if (expected === undefined) return;
  const current = row ? versionOf(row) : null;
  if (current !== expected) throw versionConflict(subject, expected, current);
}
