import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ValidationError } from "../domain/errors.js";
import type { MemoryService } from "../domain/memory.js";
import { assertWorkspaceName } from "../domain/validation.js";
import type { ToolInstrument } from "../mcp/instrument.js";
import { createMcpServer } from "../mcp/server.js";
import type { ReadinessProbe } from "./readiness.js";

export interface HandlerDeps {
  memory: MemoryService;
  readiness: ReadinessProbe;
  version: string;
  instrument?: ToolInstrument;
}

export type FetchHandler = (request: Request) => Promise<Response>;

const WORKSPACE_ROUTE = /^\/api\/workspaces\/([^/]*)\/mcp\/?$/;

/**
 * The one request path (design §1). Both doors (Azure Functions, the local server) hand every
 * request here as a web-standard Request and return the Response unchanged.
 */
export function createHandler(deps: HandlerDeps): FetchHandler {
  return async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/api/health" || path === "/api/health/") {
      return request.method === "GET" || request.method === "HEAD" ? json(200, { status: "ok", version: deps.version }) : methodNotAllowed("GET");
    }
    if (path === "/api/ready" || path === "/api/ready/") {
      if (request.method !== "GET" && request.method !== "HEAD") return methodNotAllowed("GET");
      const state = await deps.readiness.check();
      return json(state.ready ? 200 : 503, state.ready ? { status: "ready" } : { status: "unavailable", reason: state.reason });
    }
    if (path === "/api/mcp" || path === "/api/mcp/") return mcp(request, deps, undefined);
    const bound = WORKSPACE_ROUTE.exec(path);
    if (bound) {
      let workspace: string;
      try {
        workspace = assertWorkspaceName(decodeURIComponent(bound[1] ?? ""));
      } catch (error) {
        const message = error instanceof ValidationError ? error.message : "Invalid workspace name in the URL.";
        return json(400, { success: false, error: "ValidationError", message });
      }
      return mcp(request, deps, workspace);
    }
    return json(404, { error: "NotFound", message: `No route for ${path}. MCP is served at POST /api/mcp and POST /api/workspaces/{workspaceName}/mcp.` });
  };
}

/** Stateless MCP: a fresh server and transport per request, JSON responses, no sessions. */
async function mcp(request: Request, deps: HandlerDeps, boundWorkspace: string | undefined): Promise<Response> {
  if (request.method !== "POST") return methodNotAllowed("POST");
  const server = createMcpServer({
    memory: deps.memory,
    version: deps.version,
    ...(deps.instrument ? { instrument: deps.instrument } : {}),
    ...(boundWorkspace ? { boundWorkspace } : {}),
  });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}

function methodNotAllowed(allow: string): Response {
  return json(405, { error: "MethodNotAllowed", message: `Use ${allow}. This server is stateless: no SSE stream and no sessions.` }, { Allow: allow });
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}
