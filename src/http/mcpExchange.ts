import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

import { createMcpServer, type McpContext } from "../mcp/server.js";
import { limitBatch } from "./batchLimits.js";
import { withDeadline } from "./deadline.js";
import { inErrorShape } from "./responses.js";

/** What every MCP exchange of this server shares, whoever the caller: the handler's dependencies carry it. */
export interface ExchangeDeps {
  services: McpContext["services"];
  version: string;
  instrument?: McpContext["instrument"];
  /** After this long an MCP request is answered with a JSON-RPC error and its server closed (MEMORY_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
}

/** Who an exchange serves and what it offers them: the gated route decides. */
export type ExchangeCaller = Pick<McpContext, "principal" | "boundWorkspace" | "toolsets" | "tools">;

/**
 * Stateless MCP: a fresh server and transport for one request, JSON responses, no sessions, the batch limits of
 * batchLimits.ts and the request deadline. Every route that speaks MCP (the MCP routes, the viewer's read-only data
 * route) answers through here, after the gate (gate.ts) let its caller in.
 */
export async function answerMcp(request: Request, deps: ExchangeDeps, caller: ExchangeCaller): Promise<Response> {
  const { services, version, instrument, requestTimeoutMs } = deps;
  const server = createMcpServer({ services, version, ...(instrument ? { instrument } : {}), ...caller });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  const batch = limitBatch(transport);
  try {
    return await inErrorShape(await withDeadline(transport, () => transport.handleRequest(request), requestTimeoutMs, batch.started));
  } finally {
    await server.close();
  }
}
