import { METADATA_PREFIX } from "./auth/resourceMetadata.js";

/**
 * The routes of docs/architecture.md (one request path), as data: each path pattern (Hono syntax)
 * with the methods it serves. Every other method on a known path is 405 with `Allow`; an unknown
 * path is a JSON 404. HEAD is answered wherever GET is (Hono runs the GET handler without the body).
 */
export const ROUTE_PATHS = {
  health: ["/api/health"],
  ready: ["/api/ready"],
  /** RFC 9728 metadata: the host-wide document and the per-route ones below it. */
  metadata: [METADATA_PREFIX, `${METADATA_PREFIX}/*`],
  mcp: ["/api/mcp", "/api/workspaces/:workspaceName/mcp"],
} as const;

/** The routes of the handler, told apart by path alone (the method is each route's own business). */
export type Route =
  | { kind: "health" }
  | { kind: "ready" }
  /** RFC 9728 metadata; `resourcePath` is "" for the host, or the MCP route it describes. */
  | { kind: "metadata"; resourcePath: string }
  /** `workspace` is the raw (still URL-encoded) {workspaceName} of the bound route; absent on /api/mcp. */
  | { kind: "mcp"; workspace?: string };

const WORKSPACE_ROUTE = /^\/api\/workspaces\/([^/]*)\/mcp\/?$/;

/** For the invalid-configuration handler, which answers the same paths without the app. */
export function routeOf(path: string): Route | undefined {
  if (path === "/api/health" || path === "/api/health/") return { kind: "health" };
  if (path === "/api/ready" || path === "/api/ready/") return { kind: "ready" };
  if (path === METADATA_PREFIX || path.startsWith(`${METADATA_PREFIX}/`))
    return { kind: "metadata", resourcePath: path.slice(METADATA_PREFIX.length) };
  if (path === "/api/mcp" || path === "/api/mcp/") return { kind: "mcp" };
  const bound = WORKSPACE_ROUTE.exec(path);
  return bound ? { kind: "mcp", workspace: bound[1] ?? "" } : undefined;
}

/** Whether a metadata document describes this resource path: one of the MCP routes. */
export function isMcpRoute(path: string): boolean {
  return path === "/api/mcp" || WORKSPACE_ROUTE.test(path);
}
