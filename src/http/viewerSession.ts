import { createHmac, timingSafeEqual } from "node:crypto";

import type { Access, Principal } from "../domain/model/access.js";
import { derivedKey } from "../domain/model/derivedKey.js";

/**
 * The viewer's session cookie (docs/viewer.md#sessions): a credential sent once as a header is exchanged for a short-lived
 * token that names the workspace, the principal, its access and the expiry, signed with HMAC-SHA256. The signing key is
 * derived from the cursor key every instance already shares (src/storage/cursorKey.ts), so no second secret is stored and
 * any instance accepts a cookie another minted. Only the viewer's routes read it: the MCP routes never accept cookies.
 */
export const SESSION_COOKIE = "cm_view";
/** Short, so a key removed from configuration or a token revoked in Entra stops working soon after. */
export const SESSION_SECONDS = 15 * 60;

export interface ViewSession {
  workspace: string;
  principalId: string;
  kind: Principal["kind"];
  access: Access;
  /** Seconds since the epoch. */
  expires: number;
  /**
   * For a key's session: the fingerprint of the key's secret it was minted with (credentialFingerprint), so replacing
   * the secret under the same id ends the session at once (docs/viewer.md#sessions).
   */
  credential?: string;
}

/** The session key: HMAC(cursor key, "view-session"), so a session token can never pass as a cursor or the reverse. */
export function sessionKeyFrom(cursorKey: Uint8Array): Buffer {
  return derivedKey(cursorKey, "view-session");
}

const sign = (key: Uint8Array, payload: string) => createHmac("sha256", key).update(payload).digest();

/**
 * A key's secret as a session carries it: HMAC(session key, "credential:" + the secret's SHA-256 digest), truncated.
 * Keyed, so the token (which anyone holding the cookie can decode) tells nothing about the secret or its digest.
 */
export function credentialFingerprint(key: Uint8Array, secretDigestHex: string): string {
  return createHmac("sha256", key).update(`credential:${secretDigestHex.toLowerCase()}`).digest().subarray(0, 16).toString("base64url");
}

export function mintSession(key: Uint8Array, session: ViewSession): string {
  const payload = Buffer.from(
    JSON.stringify({
      ws: session.workspace,
      sub: session.principalId,
      kind: session.kind,
      acc: session.access,
      exp: session.expires,
      ...(session.credential !== undefined ? { cred: session.credential } : {}),
    }),
  ).toString("base64url");
  return `${payload}.${sign(key, payload).toString("base64url")}`;
}

/** The session a token holds when its signature is ours, it has not expired and it was minted for `workspace`. */
export function verifySession(key: Uint8Array, token: string, workspace: string, nowSeconds: number): ViewSession | undefined {
  const [payload, signature, extra] = token.split(".");
  if (!payload || !signature || extra !== undefined) return undefined;
  // Compared as text: base64url decoding ignores a last character's spare bits, so two spellings would decode alike.
  const expected = Buffer.from(sign(key, payload).toString("base64url"));
  const presented = Buffer.from(signature);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
  let claims: { ws?: unknown; sub?: unknown; kind?: unknown; acc?: unknown; exp?: unknown; cred?: unknown };
  try {
    claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as typeof claims;
  } catch {
    return undefined;
  }
  const { ws, sub, kind, acc, exp, cred } = claims;
  if (ws !== workspace || typeof sub !== "string" || typeof exp !== "number" || exp <= nowSeconds) return undefined;
  if ((kind !== "anonymous" && kind !== "key" && kind !== "entra") || (acc !== "read" && acc !== "write")) return undefined;
  if (cred !== undefined && typeof cred !== "string") return undefined;
  return { workspace, principalId: sub, kind, access: acc, expires: exp, ...(cred !== undefined ? { credential: cred } : {}) };
}
