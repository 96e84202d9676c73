import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Principal } from "../../domain/access.js";
import type { ApiKeyEntry } from "./settings.js";

/** The prefix marks a string as one of our keys, for secret scanners and for people. */
const KEY_PREFIX = "cmk_";

/** 32 random bytes: a key is never derived from anything guessable. */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString("base64url");
}

/** What MEMORY_API_KEYS stores for a key: its SHA-256, as lower-case hex. */
export function hashApiKey(key: string): string {
  return digestOf(key).toString("hex");
}

function digestOf(key: string): Buffer {
  return createHash("sha256").update(key, "utf8").digest();
}

/**
 * Finds the configured key a presented key belongs to. The presented key is hashed and the
 * digest compared with every entry's in constant time, without stopping at a match, so timing
 * tells an attacker neither how much of a key was right nor which entry matched.
 */
export function apiKeyVerifier(entries: readonly ApiKeyEntry[]): (presented: string) => Principal | undefined {
  const digests = entries.map((entry) => ({ entry, digest: Buffer.from(entry.sha256, "hex") }));
  return (presented) => {
    const digest = digestOf(presented);
    let found: ApiKeyEntry | undefined;
    for (const candidate of digests) {
      if (timingSafeEqual(digest, candidate.digest) && found === undefined) found = candidate.entry;
    }
    return found && { id: `key:${found.id}`, kind: "key", grants: [{ workspaces: found.workspaces, access: found.access }] };
  };
}
