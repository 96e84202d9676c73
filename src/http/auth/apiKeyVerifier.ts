import { timingSafeEqual } from "node:crypto";

import { apiKeyDigest } from "../../config/apiKeyMaterial.js";
import type { ApiKeyEntry } from "../../config/auth.js";
import type { Principal } from "../../domain/model/access.js";

// Key material is configuration (the keys CLI makes it); re-exported for the verifier's callers and tests.
export { hashApiKey } from "../../config/apiKeyMaterial.js";

/**
 * Finds the configured key a presented key belongs to. The presented key is hashed and the
 * digest compared with every entry's in constant time, without stopping at a match, so timing
 * tells an attacker neither how much of a key was right nor which entry matched.
 */
export function apiKeyVerifier(entries: readonly ApiKeyEntry[]): (presented: string) => Principal | undefined {
  const digests = entries.map((entry) => ({ entry, digest: Buffer.from(entry.sha256, "hex") }));
  return (presented) => {
    const digest = apiKeyDigest(presented);
    let found: ApiKeyEntry | undefined;
    for (const candidate of digests) {
      if (timingSafeEqual(digest, candidate.digest) && found === undefined) found = candidate.entry;
    }
    return found && { id: `key:${found.id}`, kind: "key", grants: [{ workspaces: found.workspaces, access: found.access }] };
  };
}
