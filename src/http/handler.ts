import { Hono, type Context, type MiddlewareHandler } from "hono";
import { accessTo, strongestAccess, type Principal } from "../domain/model/access.js";
import { presentError, ValidationError } from "../domain/model/errors.js";
import type { Services } from "../domain/services/services.js";
import { assertWorkspaceName } from "../domain/model/validation.js";
import type { ToolInstrument } from "../mcp/instrument.js";
import type { Toolsets } from "../mcp/tool.js";
import { parseToolsets } from "../mcp/toolsets.js";
import type { Authenticate } from "./auth/authenticate.js";
import { bearerChallenge, METADATA_PREFIX, metadataDocument, resourceUrl } from "./auth/resourceMetadata.js";
import type { AuthSettings } from "../config/auth.js";
import { answerMcp } from "./mcpExchange.js";
import type { ReadinessProbe } from "./readiness.js";
import { loopbackHostOnly, mcpBrowserAccess, metadataBrowserAccess } from "./origins.js";
import { errorResponse, json, methodNotAllowed } from "./responses.js";
import { isMcpRoute, ROUTE_PATHS } from "./routes.js";
import { serveViewer } from "./viewer.js";

export interface HandlerDeps {
  services: Services;
  readiness: ReadinessProbe;
  version: string;
  auth: { settings: AuthSettings; authenticate: Authenticate };
  /** The tool groups a connection gets unless its URL names others with `?toolsets=`. */
  toolsets: Toolsets;
  instrument?: ToolInstrument;
  /** After this long an MCP request is answered with a JSON-RPC error and its server closed (MEMORY_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  /** The shared key the viewer's session cookies are signed with (derived from it): the cursor key. */
  sessionKey?: () => Promise<Uint8Array>;
}

export type FetchHandler = (request: Request) => Promise<Response>;

type RouteHandler = (context: Context) => Response | Promise<Response>;

/**
 * The one request path (docs/architecture.md). Both doors (Azure Functions, the local server) hand
 * every request here as a web-standard Request and return the Response unchanged. Routing, method
 * handling (405 with Allow), CORS preflight and the 404 are Hono's; what each route answers is ours.
 */
export function createHandler(deps: HandlerDeps): FetchHandler {
  const { settings } = deps.auth;
  const app = new Hono({ strict: false });
  if (settings.loopbackOnly) app.use(loopbackHostOnly);
  serve(app, ROUTE_PATHS.health, { GET: () => json(200, { status: "ok", version: deps.version }) });
  serve(app, ROUTE_PATHS.ready, {
    GET: async () => {
      const state = await deps.readiness.check();
      return json(state.ready ? 200 : 503, state.ready ? { status: "ready" } : { status: "unavailable", reason: state.reason });
    },
  });
  serve(app, ROUTE_PATHS.metadata, { GET: (c) => protectedResourceMetadata(c.req.raw, deps, pathOf(c).slice(METADATA_PREFIX.length)) }, [
    metadataBrowserAccess,
  ]);
  serve(app, ROUTE_PATHS.mcp, { POST: (c) => mcp(c.req.raw, deps, pathOf(c), c.req.param("workspaceName")) }, mcpBrowserAccess(settings));
  serveViewer(app, deps);
  app.notFound((c) =>
    errorResponse(404, {
      kind: "NotFound",
      message: `No route for ${c.req.path}. MCP is served at POST /api/mcp and POST /api/workspaces/{workspaceName}/mcp.`,
    }),
  );
  // A failure no route turned into an answer: a 500 in the one error shape, without the error's text.
  app.onError((error) => {
    console.error(JSON.stringify({ event: "http_unhandled_error", error: error instanceof Error ? error.name : typeof error }));
    return json(500, presentError(error, { as: "http" }));
  });
  return async (request) => app.fetch(request);
}

/** The path as sent (still URL-encoded), as resource URLs carry it. */
function pathOf(context: Context): string {
  return new URL(context.req.url).pathname;
}

/**
 * Registers a route's paths: `middleware` first (CORS answers preflight there), then the methods it
 * serves (GET also answers HEAD), then 405 with `Allow` for every other method.
 */
function serve(
  app: Hono,
  paths: readonly string[],
  methods: Partial<Record<"GET" | "POST", RouteHandler>>,
  middleware: MiddlewareHandler[] = [],
) {
  const served = Object.keys(methods) as ("GET" | "POST")[];
  const allow = served.flatMap((method) => (method === "GET" ? ["GET", "HEAD"] : [method])).join(", ");
  for (const path of paths) {
    if (middleware.length > 0) app.use(path, ...middleware);
    for (const method of served) app.on(method, path, methods[method]!);
    app.all(path, () => methodNotAllowed(allow));
  }
}

/**
 * Stateless MCP: a fresh server and transport per request, JSON responses, no sessions, and the
 * batch limits of batchLimits.ts. Before any MCP processing: the Origin check (middleware, in
 * origins.ts), authentication, and on a bound route the grant.
 */
async function mcp(request: Request, deps: HandlerDeps, path: string, workspace: string | undefined): Promise<Response> {
  const { settings, authenticate } = deps.auth;
  const authentication = await authenticate(request);
  if (!authentication.ok) {
    if (authentication.status === 503)
      return errorResponse(503, { kind: "Unavailable", message: authentication.message }, { "retry-after": "5" });
    const error = authentication.error && { code: authentication.error, description: authentication.message };
    const resource = resourceUrl(request, settings, path.replace(/\/$/, ""));
    return errorResponse(
      401,
      { kind: "Unauthorized", message: authentication.message },
      { "www-authenticate": bearerChallenge(resource, error), ...fromRequestHost(settings) },
    );
  }
  const { principal } = authentication;

  let boundWorkspace: string | undefined;
  let toolsets = deps.toolsets;
  try {
    // Hono has decoded the path parameter (a malformed escape stays as sent, and fails validation).
    if (workspace !== undefined) boundWorkspace = assertWorkspaceName(workspace);
    // The client's choice of groups for this connection replaces the server's default.
    const chosen = new URL(request.url).searchParams.getAll("toolsets");
    if (chosen.length > 0) toolsets = parseToolsets(chosen.join(","), "The toolsets URL parameter");
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return errorResponse(400, { kind: "ValidationError", message: error.message });
  }
  const denied = forbidden(principal, boundWorkspace);
  if (denied) return errorResponse(403, { kind: "Forbidden", message: denied });

  const context = {
    services: deps.services,
    version: deps.version,
    principal,
    toolsets,
    ...(deps.instrument ? { instrument: deps.instrument } : {}),
    ...(boundWorkspace ? { boundWorkspace } : {}),
  };
  return answerMcp(request, context, deps.requestTimeoutMs);
}

/** A bound route needs a grant for its workspace; /api/mcp needs some grant (tool calls are checked one by one). */
function forbidden(principal: Principal, boundWorkspace: string | undefined): string | undefined {
  if (boundWorkspace !== undefined) {
    return accessTo(principal, boundWorkspace) ? undefined : `This caller has no grant for workspace '${boundWorkspace}'.`;
  }
  return strongestAccess(principal)
    ? undefined
    : `This caller (${principal.id}) is authenticated but has no grant for any workspace. Ask an administrator for one.`;
}

/** RFC 9728 metadata for the host ("") or for one MCP route ("/api/mcp", "/api/workspaces/{ws}/mcp"). Anonymous. */
function protectedResourceMetadata(request: Request, deps: HandlerDeps, resourcePath: string): Response {
  const { settings } = deps.auth;
  const known = resourcePath === "" || isMcpRoute(resourcePath);
  if (settings.mode.kind === "none" || !known) {
    return errorResponse(404, { kind: "NotFound", message: "No protected resource is described here." });
  }
  const resource = resourceUrl(request, settings, resourcePath || "/");
  // Cacheable by anyone when the public URL is configured; built from the Host header, only by the caller itself
  // (a shared cache must not hand one caller's Host to the next).
  const caching = settings.publicUrl !== undefined ? "public, max-age=300" : "private, max-age=300";
  return json(200, metadataDocument(resource, settings), { "cache-control": caching, ...fromRequestHost(settings) });
}

/** A response that names this server by the request's Host header (no public URL is configured) varies with it. */
function fromRequestHost(settings: AuthSettings): Record<string, string> {
  return settings.publicUrl !== undefined ? {} : { vary: "Host" };
}
