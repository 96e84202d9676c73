import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";

import type { AuthSettings } from "../config/auth.js";
import { accessOnRoute, ANONYMOUS, type Principal } from "../domain/model/access.js";
import { ValidationError } from "../domain/model/errors.js";
import { assertWorkspaceName } from "../domain/model/validation.js";
import type { Authenticate } from "./auth/authenticate.js";
import { bearerChallenge, resourceUrl, variesWithHost } from "./auth/resourceMetadata.js";
import type { SessionCookies } from "./auth/sessionCookies.js";
import { errorResponse } from "./responses.js";
import { SESSION_COOKIE } from "./viewerSession.js";

/** Who the gate let in, for which workspace, and with what the route's own URL parameters said. */
interface Admission<Params> {
  principal: Principal;
  /** The route's `:workspaceName`, validated; undefined on a route without one (/api/mcp). */
  workspace: string | undefined;
  /** "header" when a credential header signed the caller in (the viewer then mints a cookie); "cookie"; "none" with auth off. */
  credential: "header" | "cookie" | "none";
  params: Params;
}

/** The Hono environment of a gated route: the admission is `c.var.admission`. */
export type Gated<Params = undefined> = { Variables: { admission: Admission<Params> } };

export interface GateOptions<Params> {
  auth: { settings: AuthSettings; authenticate: Authenticate };
  /** The viewer's session cookie, accepted in place of a credential header where given; the MCP routes never take it. */
  cookies?: SessionCookies;
  /** The MCP routes: a 401 carries the RFC 6750 challenge pointing at the route's metadata (RFC 9728), which starts discovery. */
  challenge?: boolean;
  /** The route's own URL parameters, read after authentication and before the grant; a ValidationError is a 400. */
  params?: (request: Request) => Params;
  /**
   * How a refusal of the caller (401, 403, 503) is sent; by default as it is (the viewer's page sends itself, with the
   * refusal's status and headers). A 400 (the URL is wrong, whoever asks) always goes as it is.
   */
  refused?: (c: Context, refusal: Response) => Response | Promise<Response>;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; refusal: Response };

/**
 * The one gate in front of every route that reads or writes a workspace (docs/authentication.md#what-a-caller-may-do): the
 * MCP routes and the viewer's page, session and data routes. In this order, each refusal before anything of the route runs:
 * authenticate (401, or 503 when a token cannot be checked now), validate the route's workspace and parameters (400), check
 * the grant (403: a grant for the route's workspace, or on /api/mcp any grant; tool calls are checked one by one later).
 * The Origin checks stand before it (origins.ts). The admitted caller is `c.var.admission`.
 *
 * @example
 * app.on("POST", ROUTE_PATHS.mcp, gate({ auth, challenge: true }), (c) => answer(c.var.admission.principal));
 */
export function gate<Params = undefined>(options: GateOptions<Params>): MiddlewareHandler<Gated<Params>> {
  return async (c, next) => {
    const admitted = await admit(c, options);
    if (!admitted.ok) {
      const { refusal } = admitted;
      return options.refused && refusal.status !== 400 ? options.refused(c, refusal) : refusal;
    }
    c.set("admission", admitted.value);
    await next();
  };
}

async function admit<Params>(c: Context, options: GateOptions<Params>): Promise<Outcome<Admission<Params>>> {
  const named = c.req.param("workspaceName");
  const caller = await authenticate(c, options, named);
  if (!caller.ok) return caller;
  let workspace: string | undefined;
  let params: Params;
  try {
    // Hono has decoded the path parameter (a malformed escape stays as sent, and fails validation).
    if (named !== undefined) workspace = assertWorkspaceName(named);
    params = options.params ? options.params(c.req.raw) : (undefined as Params);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return { ok: false, refusal: errorResponse(400, { kind: "ValidationError", message: error.message }) };
  }
  const denied = forbidden(caller.value.principal, workspace);
  if (denied) return { ok: false, refusal: errorResponse(403, { kind: "Forbidden", message: denied }) };
  return { ok: true, value: { ...caller.value, workspace, params } };
}

type Caller = Pick<Admission<unknown>, "principal" | "credential">;

const EXPIRED_SESSION =
  "The viewer session has expired, was not issued for this workspace, or its key was changed or removed. Sign in again with your key.";

/**
 * A credential header (Authorization or x-api-key) always wins; without one, where the route takes the session cookie
 * and auth is on, the cookie minted for this workspace. The cookie is read against the workspace as named: a token is
 * only ever minted for a valid name, so an invalid one matches none.
 */
async function authenticate<Params>(c: Context, options: GateOptions<Params>, workspace: string | undefined): Promise<Outcome<Caller>> {
  const { settings, authenticate: verify } = options.auth;
  if (settings.mode.kind === "none") return { ok: true, value: { principal: ANONYMOUS, credential: "none" } };
  const request = c.req.raw;
  const hasHeader = request.headers.has("authorization") || request.headers.has("x-api-key");
  const token = options.cookies && !hasHeader ? getCookie(c, SESSION_COOKIE) : undefined;
  if (options.cookies && token !== undefined && workspace !== undefined) {
    const principal = await options.cookies.principalOf(token, workspace);
    if (principal) return { ok: true, value: { principal, credential: "cookie" } };
    return { ok: false, refusal: errorResponse(401, { kind: "Unauthorized", message: EXPIRED_SESSION }) };
  }
  const authentication = await verify(request);
  if (authentication.ok) return { ok: true, value: { principal: authentication.principal, credential: "header" } };
  const { message } = authentication;
  if (authentication.status === 503) {
    return { ok: false, refusal: errorResponse(503, { kind: "Unavailable", message }, { "retry-after": "5" }) };
  }
  return {
    ok: false,
    refusal: errorResponse(401, { kind: "Unauthorized", message }, options.challenge ? challenge(c, settings, authentication) : {}),
  };
}

/** The WWW-Authenticate of a 401 on an MCP route, naming the route's metadata document. */
function challenge(c: Context, settings: AuthSettings, refused: { error?: string; message: string }): Record<string, string> {
  const error = refused.error !== undefined ? { code: refused.error, description: refused.message } : undefined;
  // The path as sent (still URL-encoded), as resource URLs carry it.
  const resource = resourceUrl(c.req.raw, settings, new URL(c.req.url).pathname.replace(/\/$/, ""));
  return { "www-authenticate": bearerChallenge(resource, error), ...variesWithHost(settings) };
}

/** A route's workspace needs a grant for it; /api/mcp needs some grant (tool calls are checked one by one). */
function forbidden(principal: Principal, workspace: string | undefined): string | undefined {
  if (accessOnRoute(principal, workspace)) return undefined;
  return workspace !== undefined
    ? `This caller has no grant for workspace '${workspace}'.`
    : `This caller (${principal.id}) is authenticated but has no grant for any workspace. Ask an administrator for one.`;
}
