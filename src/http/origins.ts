import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";

import type { AuthSettings } from "../config/auth.js";
import { isLoopbackHost } from "../config/kinds.js";
import { errorResponse } from "./responses.js";

/**
 * Browser access (CORS) and DNS-rebinding protection, as the MCP transport spec asks. A request
 * that carries an Origin is served only from a listed origin (MEMORY_ALLOWED_ORIGINS) or, when the
 * server listens on loopback only, from a loopback origin; any other is refused before anything
 * runs. Listed origins get the CORS headers a browser client needs, preflight included.
 */

/**
 * Request headers an MCP browser client sends: credentials, content negotiation and the MCP transport's own, the
 * 2026-07-28 routing headers included (docs/gateway.md).
 */
const MCP_REQUEST_HEADERS = [
  "Authorization",
  "X-Api-Key",
  "Content-Type",
  "Accept",
  "Mcp-Protocol-Version",
  "Mcp-Session-Id",
  "Last-Event-ID",
  "Mcp-Method",
  "Mcp-Param-Workspace",
  "Mcp-Name",
];
/** Response headers a browser client must be able to read: the transport's, and the 401 challenge that starts discovery. */
const MCP_RESPONSE_HEADERS = ["Mcp-Session-Id", "Mcp-Protocol-Version", "WWW-Authenticate"];
/** How long a browser may reuse a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600;

function isAllowedOrigin(origin: string, settings: AuthSettings): boolean {
  return settings.allowedOrigins.includes(origin) || (settings.loopbackOnly === true && isLoopbackOrigin(origin));
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

/**
 * On the MCP routes and their read-only variants: POST and its preflight from an unlisted origin are 403; listed origins get
 * CORS headers.
 */
export function mcpBrowserAccess(settings: AuthSettings): MiddlewareHandler[] {
  const refuseForeignOrigin: MiddlewareHandler = async (c, next) => {
    const origin = c.req.header("origin");
    if (origin !== undefined && (c.req.method === "POST" || c.req.method === "OPTIONS") && !isAllowedOrigin(origin, settings)) {
      return errorResponse(403, {
        kind: "Forbidden",
        message: `Origin ${origin} is not allowed. List it in MEMORY_ALLOWED_ORIGINS to let a browser app call this server.`,
      });
    }
    await next();
  };
  const access = cors({
    origin: (origin) => (isAllowedOrigin(origin, settings) ? origin : null),
    allowMethods: ["POST"],
    allowHeaders: MCP_REQUEST_HEADERS,
    exposeHeaders: MCP_RESPONSE_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
  });
  return [refuseForeignOrigin, access];
}

/** The protected-resource metadata is public: any origin may read it (the SDK's discovery sends Mcp-Protocol-Version). */
export const metadataBrowserAccess: MiddlewareHandler = cors({
  origin: "*",
  allowMethods: ["GET", "HEAD"],
  allowHeaders: ["Mcp-Protocol-Version"],
  maxAge: PREFLIGHT_MAX_AGE,
});

/**
 * A server on loopback answers only requests addressed to a loopback host: a page on a foreign
 * name that resolves to 127.0.0.1 (DNS rebinding) sends that name as Host, and is refused.
 */
export const loopbackHostOnly: MiddlewareHandler = async (c, next) => {
  const host = new URL(c.req.url).hostname;
  if (!isLoopbackHost(host)) {
    return errorResponse(403, {
      kind: "Forbidden",
      message:
        `This server listens on a loopback address and answers only requests addressed to localhost, 127.0.0.1 or [::1], not ${host}. ` +
        "Use one of those in the URL (or set HOST and MEMORY_AUTH to serve other addresses).",
    });
  }
  await next();
};

/**
 * The viewer's page calls only its own origin. A POST to its session or data route from any other origin is refused
 * before anything runs, so no other site can spend a viewer's cookie (SameSite=Strict already keeps the browser from
 * sending it cross-site).
 */
export function ownOriginOnly(settings: AuthSettings): MiddlewareHandler {
  const publicOrigin = settings.publicUrl !== undefined ? new URL(settings.publicUrl).origin : undefined;
  return async (c, next) => {
    const origin = c.req.header("origin");
    if (origin !== undefined && origin !== new URL(c.req.url).origin && origin !== publicOrigin) {
      return errorResponse(403, { kind: "Forbidden", message: `The viewer answers only its own pages, not requests from ${origin}.` });
    }
    await next();
  };
}
