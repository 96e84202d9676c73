import { createHash, randomBytes } from "node:crypto";

/** The prefix marks a string as one of our keys, for secret scanners and for people. */
const KEY_PREFIX = "cmk_";

/** 32 random bytes: a key is never derived from anything guessable. */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString("base64url");
}

/** What MEMORY_API_KEYS stores for a key: its SHA-256, as lower-case hex. */
export function hashApiKey(key: string): string {
  return apiKeyDigest(key).toString("hex");
}

export function apiKeyDigest(key: string): Buffer {
  return createHash("sha256").update(key, "utf8").digest();
}
