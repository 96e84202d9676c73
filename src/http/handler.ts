import { Hono } from "hono";
import { methodNotAllowed } from "hono/method-not-allowed";

import type { AuthSettings } from "../config/auth.js";
import { presentError } from "../domain/model/errors.js";
import type { Toolsets } from "../mcp/tool.js";
import { parseToolsets } from "../mcp/toolsets.js";
import type { Authenticate } from "./auth/authenticate.js";
import { METADATA_PREFIX, metadataDocument, resourceUrl, variesWithHost } from "./auth/resourceMetadata.js";
import { gate } from "./gate.js";
import { answerMcp, type ExchangeDeps } from "./mcpExchange.js";
import { loopbackHostOnly, mcpBrowserAccess, metadataBrowserAccess } from "./origins.js";
import type { ReadinessProbe } from "./readiness.js";
import { errorResponse, json, refuseMethod } from "./responses.js";
import { isMcpRoute, ROUTE_PATHS } from "./routes.js";
import { serveViewer } from "./viewer.js";

export interface HandlerDeps extends ExchangeDeps {
  readiness: ReadinessProbe;
  auth: { settings: AuthSettings; authenticate: Authenticate };
  /** The toolsets a connection gets unless its URL names others with `?toolsets=`. */
  toolsets: Toolsets;
  /** The shared key the viewer's session cookies are signed with (derived from it): the cursor key. */
  sessionKey?: () => Promise<Uint8Array>;
}

export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * The one request path (docs/architecture.md). Both doors (Azure Functions, the local server) hand
 * every request here as a web-standard Request and return the Response unchanged. Routing, 405 with
 * Allow (Hono's method-not-allowed), CORS preflight and the 404 are Hono's; the gate (gate.ts) admits
 * every caller of a workspace route; what each route answers is ours.
 */
export function createHandler(deps: HandlerDeps): FetchHandler {
  const { settings } = deps.auth;
  const app = new Hono({ strict: false });
  if (settings.loopbackOnly) app.use(loopbackHostOnly);
  // Any other method on a known path: 405 naming the path's methods (GET brings HEAD), in the one error shape.
  app.use(methodNotAllowed({ app, onMethodNotAllowed: (_c, methods) => refuseMethod(methods.join(", ")) }));

  app.on("GET", ROUTE_PATHS.health, () => json(200, { status: "ok", version: deps.version }));
  app.on("GET", ROUTE_PATHS.ready, async () => {
    const state = await deps.readiness.check();
    return json(state.ready ? 200 : 503, state.ready ? { status: "ready" } : { status: "unavailable", reason: state.reason });
  });

  for (const path of ROUTE_PATHS.metadata) app.use(path, metadataBrowserAccess);
  app.on("GET", ROUTE_PATHS.metadata, (c) =>
    protectedResourceMetadata(c.req.raw, settings, new URL(c.req.url).pathname.slice(METADATA_PREFIX.length)),
  );

  // Stateless MCP (mcpExchange.ts), behind the Origin check (origins.ts) and the gate; the read-only variants alike, their
  // server told to list and run only readOnlyHint tools (src/mcp/server.ts), whatever the caller's grant.
  for (const path of [...ROUTE_PATHS.mcp, ...ROUTE_PATHS.mcpReadOnly]) app.use(path, ...mcpBrowserAccess(settings));
  const mcpGate = gate({ auth: deps.auth, challenge: true, params: (request) => toolsetsOf(request, deps.toolsets) });
  const variants = [
    [ROUTE_PATHS.mcp, false],
    [ROUTE_PATHS.mcpReadOnly, true],
  ] as const;
  for (const [paths, readOnly] of variants) {
    app.on("POST", paths, mcpGate, (c) => {
      const { principal, workspace, params: toolsets } = c.var.admission;
      return answerMcp(c.req.raw, deps, { principal, toolsets, boundWorkspace: workspace, readOnly });
    });
  }

  serveViewer(app, deps);
  app.notFound((c) =>
    errorResponse(404, {
      kind: "NotFound",
      message:
        `No route for ${c.req.path}. MCP is served at POST /api/mcp and POST /api/workspaces/{workspaceName}/mcp, ` +
        "and read-only at the same paths followed by /readonly.",
    }),
  );
  // A failure no route turned into an answer: a 500 in the one error shape, without the error's text.
  app.onError((error) => {
    console.error(JSON.stringify({ event: "http_unhandled_error", error: error instanceof Error ? error.name : typeof error }));
    return json(500, presentError(error, { as: "http" }));
  });
  return async (request) => app.fetch(request);
}

/** The client's choice of toolsets for this connection (`?toolsets=`) replaces the server's default. */
function toolsetsOf(request: Request, serverDefault: Toolsets): Toolsets {
  const chosen = new URL(request.url).searchParams.getAll("toolsets");
  return chosen.length > 0 ? parseToolsets(chosen.join(","), "The toolsets URL parameter") : serverDefault;
}

/**
 * RFC 9728 metadata for the host ("") or for one MCP route ("/api/mcp", "/api/workspaces/{ws}/mcp", either with /readonly).
 * Anonymous.
 */
function protectedResourceMetadata(request: Request, settings: AuthSettings, resourcePath: string): Response {
  const known = resourcePath === "" || isMcpRoute(resourcePath);
  if (settings.mode.kind === "none" || !known) {
    return errorResponse(404, { kind: "NotFound", message: "No protected resource is described here." });
  }
  const resource = resourceUrl(request, settings, resourcePath || "/");
  // Cacheable by anyone when the public URL is configured; built from the Host header, only by the caller itself
  // (a shared cache must not hand one caller's Host to the next).
  const caching = settings.publicUrl !== undefined ? "public, max-age=300" : "private, max-age=300";
  return json(200, metadataDocument(resource, settings), { "cache-control": caching, ...variesWithHost(settings) });
}
