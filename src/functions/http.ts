import { app } from "@azure/functions";
import { handleFunctionsRequest } from "./adapter.js";

/**
 * HTTP triggers. Methods the route does not serve are still routed here, so the shared handler
 * answers them (405 with Allow) instead of the host's bare 404.
 */
const MCP_METHODS = ["GET", "POST", "DELETE"] as const;

app.http("mcp", { route: "mcp", methods: [...MCP_METHODS], authLevel: "anonymous", handler: handleFunctionsRequest });
app.http("workspaceMcp", { route: "workspaces/{workspaceName}/mcp", methods: [...MCP_METHODS], authLevel: "anonymous", handler: handleFunctionsRequest });
app.http("health", { route: "health", methods: ["GET"], authLevel: "anonymous", handler: handleFunctionsRequest });
app.http("ready", { route: "ready", methods: ["GET"], authLevel: "anonymous", handler: handleFunctionsRequest });
