import { ValidationError } from "./errors.js";
import { isGuid } from "./ids.js";

/**
 * read_graph's continuation cursor: opaque to callers (base64url JSON), so the position it holds can
 * change form later without breaking them. It holds the last entity id of the previous page.
 */
const FORMAT = 1;

export function encodeCursor(afterEntityId: string): string {
  return Buffer.from(JSON.stringify({ v: FORMAT, after: afterEntityId }), "utf8").toString("base64url");
}

export function decodeCursor(cursor: string): string {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    value = undefined;
  }
  const { v, after } = (value ?? {}) as { v?: unknown; after?: unknown };
  if (v !== FORMAT || typeof after !== "string" || !isGuid(after)) {
    throw new ValidationError(
      "cursor is not one read_graph returned. Pass the cursor of the previous page unchanged, or omit it to start again.",
    );
  }
  return after.toLowerCase();
}
