import { METADATA_PREFIX } from "./auth/resourceMetadata.js";

/**
 * The routes (docs/usage.md#routes), as data: each path pattern in Hono syntax. handler.ts and viewer.ts give each its
 * methods; every other method on a known path is 405 with `Allow` (Hono's method-not-allowed, which reads the methods off
 * the routes), and an unknown path a JSON 404. HEAD is answered wherever GET is (Hono runs the GET handler without the body).
 */
export const ROUTE_PATHS = {
  health: ["/api/health"],
  ready: ["/api/ready"],
  /** RFC 9728 metadata: the host-wide document and the per-route ones below it. */
  metadata: [METADATA_PREFIX, `${METADATA_PREFIX}/*`],
  mcp: ["/api/mcp", "/api/workspaces/:workspaceName/mcp"],
  /** The read-only variants of the MCP routes (docs/usage.md#read-only-routes): only readOnlyHint tools, whatever the key. */
  mcpReadOnly: ["/api/mcp/readonly", "/api/workspaces/:workspaceName/mcp/readonly"],
  /** The viewer (docs/viewer.md): its page, its session exchange, its read-only data route, and its script and style. */
  viewer: ["/api/workspaces/:workspaceName/view"],
  viewerSession: ["/api/workspaces/:workspaceName/view/session"],
  viewerData: ["/api/workspaces/:workspaceName/view/mcp"],
  viewerAssets: ["/api/viewer/:file"],
} satisfies Record<string, string[]>;

/**
 * Which probe route a path is, for the invalid-configuration handler, which answers health and readiness without the app
 * (every other path gets its 503). A trailing slash is accepted, as the app accepts it.
 */
export function probeRouteOf(path: string): "health" | "ready" | undefined {
  const bare = path.length > 1 ? path.replace(/\/$/, "") : path;
  if (ROUTE_PATHS.health.includes(bare)) return "health";
  if (ROUTE_PATHS.ready.includes(bare)) return "ready";
  return undefined;
}

const UNBOUND_ROUTE = /^\/api\/mcp(?:\/readonly)?$/;
const WORKSPACE_ROUTE = /^\/api\/workspaces\/([^/]*)\/mcp(?:\/readonly)?\/?$/;

/** Whether a metadata document describes this resource path: one of the MCP routes or their read-only variants. */
export function isMcpRoute(path: string): boolean {
  return UNBOUND_ROUTE.test(path) || WORKSPACE_ROUTE.test(path);
}
