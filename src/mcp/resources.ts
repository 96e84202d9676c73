import { RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import {
  type ListResourceTemplatesResult,
  ProtocolError,
  ProtocolErrorCode,
  type Resource,
  type Server,
  UriTemplate,
} from "@modelcontextprotocol/server";

import type { Principal } from "../domain/model/access.js";
import { ForbiddenError, presentError, ValidationError } from "../domain/model/errors.js";
import type { Services } from "../domain/services/services.js";
import { APP_RESOURCE_URI } from "./appShapes.js";
import { authorize } from "./authorize.js";
import { toGraphOutput } from "./graphShapes.js";
import type { Toolsets } from "./tool.js";
import { resolveWorkspace } from "./workspace.js";

/**
 * The graph as a resource: the template `memory://workspaces/{workspaceName}/graph` on every route,
 * and, on a bound route, `memory://knowledge-graph` (the official memory server's URI) for its
 * workspace. Both return read_graph's JSON. No subscriptions: the server is stateless over HTTP.
 */
const KNOWLEDGE_GRAPH_URI = "memory://knowledge-graph";
const WORKSPACE_GRAPH = new UriTemplate("memory://workspaces/{workspaceName}/graph");

const KNOWLEDGE_GRAPH: Resource = {
  uri: KNOWLEDGE_GRAPH_URI,
  name: "knowledge-graph",
  title: "Knowledge Graph",
  description: "The full knowledge graph with all entities and relations",
  mimeType: "application/json",
};

const WORKSPACE_GRAPH_TEMPLATE: ListResourceTemplatesResult["resourceTemplates"][number] = {
  uriTemplate: WORKSPACE_GRAPH.toString(),
  name: "workspace-graph",
  title: "Workspace knowledge graph",
  description: "The knowledge graph of one workspace (entities with observations, and relations) as JSON, as read_graph returns it.",
  mimeType: "application/json",
};

/**
 * The MCP Apps' one `ui://` resource (docs/apps.md): the viewer as one HTML document, its script and style inline. Its CSP
 * allows no other origin: it loads nothing and reaches the server only through the host's tool calls.
 */
const APP_RESOURCE: Resource = {
  uri: APP_RESOURCE_URI,
  name: "memory-viewer",
  title: "Memory viewer (MCP App)",
  description:
    "The interactive graph, duplicate review and timeline that show_memory_graph, review_duplicates and show_entity_timeline open.",
  mimeType: RESOURCE_MIME_TYPE,
};
const APP_RESOURCE_META = { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } };

/** Reading a graph resource needs read access, like read_graph. */
const READ_GRAPH = { name: "read_graph", annotations: { readOnlyHint: true } };

export function registerResources(
  server: Server,
  context: {
    services: Pick<Services, "graph">;
    principal: Principal;
    toolsets: Toolsets;
    boundWorkspace?: string;
    /** The apps' HTML (McpContext.appHtml); undefined when not built. */
    appHtml?: () => Promise<string | undefined>;
  },
): void {
  server.setRequestHandler("resources/list", () => ({
    resources: [
      ...(context.boundWorkspace !== undefined ? [KNOWLEDGE_GRAPH] : []),
      ...(context.toolsets.has("apps") ? [APP_RESOURCE] : []),
    ],
  }));
  server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [WORKSPACE_GRAPH_TEMPLATE] }));
  server.setRequestHandler("resources/read", async (request) => {
    const { uri } = request.params;
    // Code, no data: any caller the route admitted may read it (the tools it then calls are checked as any call is).
    if (uri === APP_RESOURCE_URI) return { contents: [await appResource(context.appHtml)] };
    const workspace = workspaceOf(uri, context.boundWorkspace);
    try {
      authorize(context.principal, workspace, READ_GRAPH);
      const graph = await context.services.graph.readGraph(workspace);
      return {
        contents: [
          {
            uri,
            mimeType: "application/json",
            text: JSON.stringify(toGraphOutput(workspace, graph, "full", context.toolsets.has("tags"))),
          },
        ],
      };
    } catch (error) {
      // Resource reads have no tool-result form: a failure is a JSON-RPC error, with the presenter's safe message.
      const code = error instanceof ForbiddenError ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError;
      const { message } = presentError(error, { as: "jsonrpc", code });
      throw new ProtocolError(code, message);
    }
  });
}

async function appResource(appHtml: (() => Promise<string | undefined>) | undefined) {
  const html = await appHtml?.();
  if (html === undefined) {
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `The MCP Apps' viewer (${APP_RESOURCE_URI}) is not built on this server: run \`npm run build\`, which writes dist/viewer/mcp-app.html.`,
    );
  }
  return { uri: APP_RESOURCE_URI, mimeType: RESOURCE_MIME_TYPE, text: html, _meta: APP_RESOURCE_META };
}

function workspaceOf(uri: string, bound: string | undefined): string {
  if (uri === KNOWLEDGE_GRAPH_URI) {
    if (bound !== undefined) return bound;
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `${KNOWLEDGE_GRAPH_URI} names no workspace on /api/mcp. Read memory://workspaces/{workspaceName}/graph instead.`,
    );
  }
  const match = WORKSPACE_GRAPH.match(uri);
  if (!match)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource ${uri} not found. Read memory://workspaces/{workspaceName}/graph.`);
  try {
    return resolveWorkspace(decodeURIComponent(String(match.workspaceName)), bound);
  } catch (error) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      error instanceof ValidationError ? error.message : `Invalid resource URI ${uri}.`,
    );
  }
}
