import type { Context } from "hono";
import { generateCookie } from "hono/cookie";

import type { AuthSettings } from "../../config/auth.js";
import { accessTo, type Principal } from "../../domain/model/access.js";
import { credentialFingerprint, mintSession, SESSION_COOKIE, SESSION_SECONDS, sessionKeyFrom, verifySession } from "../viewerSession.js";

/**
 * The viewer's session cookie as a credential (docs/viewer.md#sessions): the gate reads it on the viewer's page and data
 * routes, and those routes set it after a caller signed in with a credential header. The token format is viewerSession.ts.
 */
export interface SessionCookies {
  /** The principal a session token stands for in `workspace`, or undefined when it is not valid there (any more). */
  principalOf(token: string, workspace: string): Promise<Principal | undefined>;
  /** The Set-Cookie value of a fresh session for `principal` in `workspace`; undefined with auth off or no signing key. */
  setCookie(c: Context, workspace: string, principal: Principal): Promise<string | undefined>;
}

/**
 * @example
 * const cookies = sessionCookies(settings, runtime.cursorKey);
 * const principal = await cookies.principalOf(token, "team-a"); // undefined: expired, another workspace, or a rotated key
 */
export function sessionCookies(settings: AuthSettings, sessionKey: (() => Promise<Uint8Array>) | undefined): SessionCookies {
  const keyEntryOf = (principalId: string) =>
    settings.mode.kind === "required" ? settings.mode.keys?.find((candidate) => `key:${candidate.id}` === principalId) : undefined;

  return {
    /**
     * A key's session also ends as soon as the key is no longer configured with a grant for the workspace, or its secret
     * is replaced under the same id (the token carries a fingerprint of the secret it was minted with); an Entra session
     * lasts until it expires.
     */
    async principalOf(token, workspace) {
      if (!sessionKey) return undefined;
      const key = sessionKeyFrom(await sessionKey());
      const session = verifySession(key, token, workspace, Math.floor(Date.now() / 1000));
      if (!session) return undefined;
      const principal: Principal = {
        id: session.principalId,
        kind: session.kind,
        grants: [{ workspaces: [workspace], access: session.access }],
      };
      if (session.kind !== "key") return principal;
      const entry = keyEntryOf(session.principalId);
      if (!entry || session.credential !== credentialFingerprint(key, entry.sha256)) return undefined;
      const stillGranted = accessTo({ ...principal, grants: [{ workspaces: entry.workspaces, access: entry.access }] }, workspace);
      return stillGranted ? principal : undefined;
    },

    async setCookie(c, workspace, principal) {
      if (!sessionKey || settings.mode.kind === "none") return undefined;
      const key = sessionKeyFrom(await sessionKey());
      const entry = principal.kind === "key" ? keyEntryOf(principal.id) : undefined;
      const credential = entry ? credentialFingerprint(key, entry.sha256) : undefined;
      const token = mintSession(key, {
        workspace,
        principalId: principal.id,
        kind: principal.kind,
        access: accessTo(principal, workspace) ?? "read",
        expires: Math.floor(Date.now() / 1000) + SESSION_SECONDS,
        ...(credential !== undefined ? { credential } : {}),
      });
      const secure = new URL(c.req.url).protocol === "https:" || settings.publicUrl?.startsWith("https:") === true;
      // Scoped to the workspace's viewer routes: the browser sends it nowhere else, the MCP routes included.
      return generateCookie(SESSION_COOKIE, token, {
        path: `/api/workspaces/${workspace}/view`,
        maxAge: SESSION_SECONDS,
        httpOnly: true,
        sameSite: "Strict",
        secure,
      });
    },
  };
}
