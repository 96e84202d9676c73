import { app } from "@azure/functions";
import { handleFunctionsRequest } from "./adapter.js";

/**
 * HTTP triggers. Methods the route does not serve are still routed here, so the shared handler
 * answers them (405 with Allow) instead of the host's bare 404. host.json's routePrefix is empty
 * so that the OAuth metadata can live at the host's root, where RFC 9728 puts it; the routes
 * spell out the `api/` prefix themselves.
 */
const MCP_METHODS = ["GET", "POST", "DELETE"] as const;

app.http("mcp", { route: "api/mcp", methods: [...MCP_METHODS], authLevel: "anonymous", handler: handleFunctionsRequest });
app.http("workspaceMcp", {
  route: "api/workspaces/{workspaceName}/mcp",
  methods: [...MCP_METHODS],
  authLevel: "anonymous",
  handler: handleFunctionsRequest,
});
app.http("health", { route: "api/health", methods: ["GET"], authLevel: "anonymous", handler: handleFunctionsRequest });
app.http("ready", { route: "api/ready", methods: ["GET"], authLevel: "anonymous", handler: handleFunctionsRequest });
// A catch-all also matches the empty remainder: the host-wide and the per-route documents.
app.http("protectedResourceMetadata", {
  route: ".well-known/oauth-protected-resource/{*resourcePath}",
  methods: ["GET"],
  authLevel: "anonymous",
  handler: handleFunctionsRequest,
});
