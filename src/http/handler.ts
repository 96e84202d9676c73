import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { accessTo, strongestAccess, type Principal } from "../domain/access.js";
import { ValidationError } from "../domain/errors.js";
import type { MemoryService } from "../domain/memory.js";
import { assertWorkspaceName } from "../domain/validation.js";
import type { ToolInstrument } from "../mcp/instrument.js";
import { createMcpServer } from "../mcp/server.js";
import type { Toolsets } from "../mcp/tool.js";
import { parseToolsets } from "../mcp/toolsets.js";
import type { Authenticate } from "./auth/authenticate.js";
import { bearerChallenge, metadataDocument, resourceUrl } from "./auth/resourceMetadata.js";
import type { AuthSettings } from "./auth/settings.js";
import { withDeadline } from "./deadline.js";
import type { ReadinessProbe } from "./readiness.js";
import { isRead, json, methodNotAllowed } from "./responses.js";
import { isMcpRoute, routeOf } from "./routes.js";

export interface HandlerDeps {
  memory: MemoryService;
  readiness: ReadinessProbe;
  version: string;
  auth: { settings: AuthSettings; authenticate: Authenticate };
  /** The tool groups a connection gets unless its URL names others with `?toolsets=`. */
  toolsets: Toolsets;
  instrument?: ToolInstrument;
  /** After this long an MCP request is answered with a JSON-RPC error and its server closed (MEMORY_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
}

export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * The one request path (design §1). Both doors (Azure Functions, the local server) hand every
 * request here as a web-standard Request and return the Response unchanged.
 */
export function createHandler(deps: HandlerDeps): FetchHandler {
  return async (request) => {
    const path = new URL(request.url).pathname;
    const route = routeOf(path);
    switch (route?.kind) {
      case "health":
        return isRead(request) ? json(200, { status: "ok", version: deps.version }) : methodNotAllowed("GET");
      case "ready": {
        if (!isRead(request)) return methodNotAllowed("GET");
        const state = await deps.readiness.check();
        return json(state.ready ? 200 : 503, state.ready ? { status: "ready" } : { status: "unavailable", reason: state.reason });
      }
      case "metadata":
        return protectedResourceMetadata(request, deps, route.resourcePath);
      case "mcp":
        return mcp(request, deps, path, route.workspace);
    }
    return json(404, {
      error: "NotFound",
      message: `No route for ${path}. MCP is served at POST /api/mcp and POST /api/workspaces/{workspaceName}/mcp.`,
    });
  };
}

/**
 * Stateless MCP: a fresh server and transport per request, JSON responses, no sessions.
 * Before any MCP processing: the Origin check, authentication, and on a bound route the grant.
 */
async function mcp(request: Request, deps: HandlerDeps, path: string, rawWorkspace: string | undefined): Promise<Response> {
  if (request.method !== "POST") return methodNotAllowed("POST");
  const { settings, authenticate } = deps.auth;
  const origin = request.headers.get("origin");
  // DNS-rebinding protection (MCP transport spec): a browser page may call only from a listed origin.
  if (origin !== null && !settings.allowedOrigins.includes(origin)) {
    return json(403, {
      error: "Forbidden",
      message: `Origin ${origin} is not allowed. List it in MEMORY_ALLOWED_ORIGINS to let a browser app call this server.`,
    });
  }
  const authentication = await authenticate(request);
  if (!authentication.ok) {
    if (authentication.status === 503) return json(503, { error: "Unavailable", message: authentication.message }, { "retry-after": "5" });
    const error = authentication.error && { code: authentication.error, description: authentication.message };
    const resource = resourceUrl(request, settings, path.replace(/\/$/, ""));
    return json(401, { error: "Unauthorized", message: authentication.message }, { "www-authenticate": bearerChallenge(resource, error) });
  }
  const { principal } = authentication;

  let boundWorkspace: string | undefined;
  let toolsets = deps.toolsets;
  try {
    if (rawWorkspace !== undefined) boundWorkspace = assertWorkspaceName(decodeURIComponent(rawWorkspace));
    // The client's choice of groups for this connection replaces the server's default.
    const chosen = new URL(request.url).searchParams.getAll("toolsets");
    if (chosen.length > 0) toolsets = parseToolsets(chosen.join(","), "The toolsets URL parameter");
  } catch (error) {
    const message = error instanceof ValidationError ? error.message : "Invalid workspace name in the URL.";
    return json(400, { success: false, error: "ValidationError", message });
  }
  const denied = forbidden(principal, boundWorkspace);
  if (denied) return json(403, { error: "Forbidden", message: denied });

  const server = createMcpServer({
    memory: deps.memory,
    version: deps.version,
    principal,
    toolsets,
    ...(deps.instrument ? { instrument: deps.instrument } : {}),
    ...(boundWorkspace ? { boundWorkspace } : {}),
  });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await withDeadline(transport, () => transport.handleRequest(request), deps.requestTimeoutMs);
  } finally {
    await server.close();
  }
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
  if (!isRead(request)) return methodNotAllowed("GET");
  const { settings } = deps.auth;
  const known = resourcePath === "" || isMcpRoute(resourcePath);
  if (settings.mode.kind === "none" || !known) {
    return json(404, { error: "NotFound", message: "No protected resource is described here." });
  }
  const resource = resourceUrl(request, settings, resourcePath || "/");
  // Public, and fetched by browser-based clients from other origins.
  return json(200, metadataDocument(resource, settings), { "cache-control": "public, max-age=300", "access-control-allow-origin": "*" });
}
