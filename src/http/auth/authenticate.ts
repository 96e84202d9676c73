import type { AuthMode } from "../../config/auth.js";
import { ANONYMOUS, type Principal } from "../../domain/model/access.js";
import { apiKeyVerifier } from "./apiKeyVerifier.js";
import { entraTokenVerifier } from "./entraTokens.js";

type Authentication =
  | { ok: true; principal: Principal }
  /** 401. `error` is the RFC 6750 code; absent when no credential was sent at all. */
  | { ok: false; status: 401; error?: "invalid_request" | "invalid_token"; message: string }
  /** 503: a valid token could not be checked right now. */
  | { ok: false; status: 503; message: string };

export type Authenticate = (request: Request) => Promise<Authentication>;

/** Three base64url parts: a JWS in compact form (the third is empty for `alg: none`). */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;

/**
 * Turns a request's credential into a Principal. An API key comes as `Authorization: Bearer <key>`
 * or `x-api-key: <key>`; an Entra ID token as `Authorization: Bearer <jwt>`. Authorization wins
 * when both headers are sent.
 */
export function createAuthenticator(mode: AuthMode): Authenticate {
  if (mode.kind === "none") return async () => ({ ok: true, principal: ANONYMOUS });
  if (mode.kind === "unset") {
    const message =
      "Authentication is not configured on this server: set MEMORY_AUTH to keys, entra or keys,entra " +
      "(or to none, explicitly, to let anyone in). Until then every MCP request is refused.";
    return async () => ({ ok: false, status: 401, message });
  }
  const verifyKey = mode.keys ? apiKeyVerifier(mode.keys) : undefined;
  const verifyToken = mode.entra ? entraTokenVerifier(mode.entra) : undefined;
  const accepted = [verifyKey && "an API key", verifyToken && "an Entra ID access token"].filter(Boolean).join(" or ");

  return async (request) => {
    const authorization = request.headers.get("authorization");
    let credential: string | undefined;
    if (authorization !== null) {
      const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
      if (!match)
        return {
          ok: false,
          status: 401,
          error: "invalid_request",
          message: `Send the credential as 'Authorization: Bearer <${accepted}>'.`,
        };
      credential = match[1];
    } else if (verifyKey) {
      credential = request.headers.get("x-api-key")?.trim() || undefined;
    }
    if (credential === undefined)
      return { ok: false, status: 401, message: `This server requires ${accepted}, sent as 'Authorization: Bearer <credential>'.` };

    const keyPrincipal = verifyKey?.(credential);
    if (keyPrincipal) return { ok: true, principal: keyPrincipal };
    if (verifyToken && authorization !== null && (COMPACT_JWS.test(credential) || !verifyKey)) {
      const checked = await verifyToken(credential);
      if (checked.ok) return checked;
      return checked.problem === "invalid"
        ? { ok: false, status: 401, error: "invalid_token", message: checked.message }
        : { ok: false, status: 503, message: checked.message };
    }
    return { ok: false, status: 401, error: "invalid_token", message: "The API key is not recognised." };
  };
}
