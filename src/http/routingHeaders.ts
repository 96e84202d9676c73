import { isJSONRPCNotification, isJSONRPCRequest, type RequestId } from "@modelcontextprotocol/server";

import { WORKSPACE_PARAM_HEADER } from "../mcp/schemas.js";

/** The JSON-RPC error code of a routing header that disagrees with the body (the 2026-07-28 revision's HeaderMismatch). */
const HEADER_MISMATCH = -32020;

/** Which body field `Mcp-Name` mirrors, by method (the revision's table; the tasks methods are not served here). */
const MCP_NAME_SOURCE: Record<string, "name" | "uri"> = { "tools/call": "name", "resources/read": "uri", "prompts/get": "name" };

/** The header a 2026-07-28 client mirrors the workspace argument into (the revision's `Mcp-Param-{Name}`). */
const WORKSPACE_HEADER = `Mcp-Param-${WORKSPACE_PARAM_HEADER}`;

/**
 * The headers a gateway may route or rate-limit on (docs/gateway.md), checked against the body, so that it cannot be told
 * one thing while the server runs another. A disagreement is HTTP 400 with JSON-RPC error -32020 naming the header and the
 * body's value, before any server is built.
 *
 * - `Mcp-Method` and `Mcp-Name`: on a 2025-era request, as the SDK checks them on 2026-07-28 requests (there the SDK's
 *   entry does it). Absent headers are fine (2025 clients send none). A batch that carries any routing header is refused:
 *   one header cannot describe several calls.
 * - `Mcp-Param-Workspace`: every tool declares its `workspaceName` as this header (`x-mcp-header`, src/mcp/schemas.ts), so
 *   a 2026-07-28 client sends it with a tools/call that names a workspace, as the revision requires, and the server refuses
 *   such a call without it: but only for a tool this connection lists, since a client learns the header from the listing
 *   (a write called by name on a read-only route gets its own refusal instead). When present it must agree, in both eras;
 *   a 2025-era client need not send it. The SDK's entry checks these headers only for its high-level McpServer, so this
 *   server does it itself.
 */
export function headerMismatchResponse(
  request: Request,
  message: unknown,
  era: "legacy" | "modern",
  listed: (tool: string) => boolean = () => false,
): Response | undefined {
  if (Array.isArray(message)) return batchWithRoutingHeaders(request);
  if (!isJSONRPCRequest(message) && !isJSONRPCNotification(message)) return undefined;
  const id = isJSONRPCRequest(message) ? message.id : null;
  if (era === "legacy") return routingHeadersDisagree(request, message, id) ?? workspaceHeaderDisagrees(request, message, id, false);
  const tool = message.params?.name;
  return workspaceHeaderDisagrees(request, message, id, typeof tool === "string" && listed(tool));
}

/**
 * A JSON-RPC batch (2025 era only: the 2026-07-28 revision has none) that carries a routing header: one header cannot speak
 * for several calls, and a gateway deciding on it would decide for all of them. No client sends both, so it is refused.
 */
function batchWithRoutingHeaders(request: Request): Response | undefined {
  const sent = [...request.headers.keys()].find((name) => ROUTING_HEADER.test(name));
  if (sent === undefined) return undefined;
  return headerMismatch(
    null,
    sent,
    `the body is a JSON-RPC batch, which routing headers (${sent} here) cannot describe; send each call on its own`,
  );
}

const ROUTING_HEADER = /^mcp-(method|name|param-.+)$/i;

type Message = { method: string; params?: Record<string, unknown> | undefined };

function workspaceHeaderDisagrees(request: Request, message: Message, id: RequestId | null, required: boolean): Response | undefined {
  if (message.method !== "tools/call") return undefined;
  const workspace = (message.params?.arguments as Record<string, unknown> | undefined)?.workspaceName;
  if (typeof workspace !== "string") return undefined;
  const sent = request.headers.get(WORKSPACE_HEADER);
  if (sent === null) {
    if (!required) return undefined;
    return headerMismatch(
      id,
      WORKSPACE_HEADER,
      `the body carries workspaceName="${workspace}" but the ${WORKSPACE_HEADER} header is absent`,
    );
  }
  const decoded = decodeHeaderValue(sent);
  if (decoded === undefined) return headerMismatch(id, sent, `the ${WORKSPACE_HEADER} header carries an invalid Base64 sentinel value`);
  if (decoded !== workspace) {
    return headerMismatch(id, sent, `the ${WORKSPACE_HEADER} header names "${decoded}" but the body carries workspaceName="${workspace}"`);
  }
  return undefined;
}

function routingHeadersDisagree(request: Request, message: Message, id: RequestId | null): Response | undefined {
  const method = request.headers.get("mcp-method");
  if (method !== null && method !== message.method) {
    return headerMismatch(id, method, `the body names method ${message.method} but the Mcp-Method header names ${method}`);
  }
  const name = request.headers.get("mcp-name");
  const field = Object.hasOwn(MCP_NAME_SOURCE, message.method) ? MCP_NAME_SOURCE[message.method] : undefined;
  if (name === null || field === undefined) return undefined;
  const value = message.params?.[field];
  const decoded = decodeHeaderValue(name);
  if (decoded === undefined) return headerMismatch(id, name, "the Mcp-Name header carries an invalid Base64 sentinel value");
  if (typeof value === "string" && decoded !== value) {
    return headerMismatch(id, name, `the body carries params.${field}="${value}" but the Mcp-Name header names "${decoded}"`);
  }
  return undefined;
}

/**
 * A header value as the revision encodes it: plain, or `=?base64?…?=` for a value a header cannot carry as it is (non-ASCII
 * text). Undefined when the Base64 is not canonical.
 */
function decodeHeaderValue(value: string): string | undefined {
  const sentinel = /^=\?base64\?(.*)\?=$/.exec(value);
  if (!sentinel) return value;
  const encoded = sentinel[1] ?? "";
  const bytes = Buffer.from(encoded, "base64");
  if (bytes.toString("base64") !== encoded) return undefined;
  const text = new TextDecoder("utf-8", { fatal: true });
  try {
    return text.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The SDK's own words and shape for the same refusal on a 2026-07-28 request, so both eras read alike. */
function headerMismatch(id: RequestId | null, sent: string, disagreement: string): Response {
  const error = {
    code: HEADER_MISMATCH,
    message: `Bad Request: the request headers and body disagree: ${disagreement}`,
    data: { mismatch: { header: sent, body: disagreement } },
  };
  return new Response(JSON.stringify({ jsonrpc: "2.0", id, error }), { status: 400, headers: { "content-type": "application/json" } });
}
