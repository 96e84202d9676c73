import { createHmac } from "node:crypto";

/**
 * A key for one purpose, derived from the deployment's shared key (the cursor key every instance already holds,
 * docs/architecture.md#the-viewer): HMAC-SHA256(shared, label). Each purpose has its own label, so a value signed for one
 * (a viewer session, a confirmation's request state) never verifies as another, and no second secret is stored.
 */
export function derivedKey(shared: Uint8Array, label: "view-session" | "confirmation-state"): Buffer {
  return createHmac("sha256", shared).update(label).digest();
}
