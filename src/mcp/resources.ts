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

/** Reading a graph resource needs read access, like read_graph. */
const READ_GRAPH = { name: "read_graph", annotations: { readOnlyHint: true } };

export function registerResources(
  server: Server,
  context: { services: Pick<Services, "graph">; principal: Principal; toolsets: Toolsets; boundWorkspace?: string },
): void {
  server.setRequestHandler("resources/list", () => ({
    resources: context.boundWorkspace !== undefined ? [KNOWLEDGE_GRAPH] : [],
  }));
  server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [WORKSPACE_GRAPH_TEMPLATE] }));
  server.setRequestHandler("resources/read", async (request) => {
    const { uri } = request.params;
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
