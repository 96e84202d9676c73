import { app, type HttpMethod } from "@azure/functions";

import { handleFunctionsRequest } from "./adapter.js";

/**
 * HTTP triggers. Every trigger takes every method, so the shared handler answers each request
 * exactly as the local server does (405 with Allow, CORS preflight) instead of the host's bare
 * 404. host.json's routePrefix is empty so that the OAuth metadata can live at the host's root,
 * where RFC 9728 puts it; the routes spell out the `api/` prefix themselves.
 */
const ALL_METHODS: HttpMethod[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

const TRIGGERS: { name: string; route: string }[] = [
  { name: "mcp", route: "api/mcp" },
  { name: "workspaceMcp", route: "api/workspaces/{workspaceName}/mcp" },
  // The read-only variants (docs/usage.md#read-only-routes). One more literal segment than the routes above, so neither
  // shadows the other, and `mcp` is not `view`, so the viewer's catch-all below never takes them.
  { name: "mcpReadOnly", route: "api/mcp/readonly" },
  { name: "workspaceMcpReadOnly", route: "api/workspaces/{workspaceName}/mcp/readonly" },
  { name: "health", route: "api/health" },
  { name: "ready", route: "api/ready" },
  // The viewer (docs/viewer.md): its page, session and data routes under one catch-all, and its script and style.
  { name: "viewer", route: "api/workspaces/{workspaceName}/view/{*rest}" },
  { name: "viewerAssets", route: "api/viewer/{file}" },
  // A catch-all also matches the empty remainder: the host-wide and the per-route documents.
  { name: "protectedResourceMetadata", route: ".well-known/oauth-protected-resource/{*resourcePath}" },
];

for (const { name, route } of TRIGGERS) {
  app.http(name, { route, methods: ALL_METHODS, authLevel: "anonymous", handler: handleFunctionsRequest });
}
