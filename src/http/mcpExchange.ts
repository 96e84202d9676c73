import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { createMcpServer, type McpContext } from "../mcp/server.js";
import { limitBatch } from "./batchLimits.js";
import { withDeadline } from "./deadline.js";
import { inErrorShape } from "./responses.js";

/**
 * Stateless MCP: a fresh server and transport for one request, JSON responses, no sessions, the batch limits of
 * batchLimits.ts and the request deadline. Every route that speaks MCP (the MCP routes, the viewer's read-only data
 * route) answers through here, after its own authentication and grant checks.
 */
export async function answerMcp(request: Request, context: McpContext, requestTimeoutMs: number): Promise<Response> {
  const server = createMcpServer(context);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  const batch = limitBatch(transport);
  try {
    return await inErrorShape(await withDeadline(transport, () => transport.handleRequest(request), requestTimeoutMs, batch.started));
  } finally {
    await server.close();
  }
}
