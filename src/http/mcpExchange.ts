import {
  createMcpHandler,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  isJSONRPCRequest,
  isLegacyRequest,
  type McpHttpHandler,
  type RequestId,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";

import { createMcpServer, listedTools, type McpContext } from "../mcp/server.js";
import { limitBatch } from "./batchLimits.js";
import { recordRequestIds, withDeadline } from "./deadline.js";
import { inErrorShape } from "./responses.js";
import { headersDisagree } from "./routingHeaders.js";

/** What every MCP exchange of this server shares, whoever the caller: the handler's dependencies carry it. */
export interface ExchangeDeps {
  services: McpContext["services"];
  version: string;
  instrument?: McpContext["instrument"];
  /** After this long an MCP request is answered with a JSON-RPC error and its server closed (MEMORY_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
}

/** Who an exchange serves and what it offers them: the gated route decides. */
export type ExchangeCaller = Pick<McpContext, "principal" | "boundWorkspace" | "toolsets" | "tools" | "readOnly">;

/**
 * Stateless MCP for both protocol eras on one route (docs/architecture.md#protocol-eras): a fresh server for one request,
 * JSON responses, no sessions, the request deadline. The SDK's own classifier (`isLegacyRequest`) tells the eras apart: a
 * request with the 2026-07-28 `_meta` envelope goes to the SDK's per-request handler; anything else (an `initialize`, a
 * 2025 client's call, a batch) to the streamable HTTP transport as before, with the batch limits of batchLimits.ts. Every
 * route that speaks MCP (the MCP routes, the viewer's read-only data route) answers through here, after the gate (gate.ts).
 */
export async function answerMcp(request: Request, deps: ExchangeDeps, caller: ExchangeCaller): Promise<Response> {
  const context: McpContext = {
    services: deps.services,
    version: deps.version,
    ...(deps.instrument ? { instrument: deps.instrument } : {}),
    ...caller,
  };
  // The deadline covers the whole exchange, reading the body included; each era fills in what its answer needs.
  const exchange: Exchange = { requestIds: [], started: () => true, close: async () => {} };
  const answer = async () => {
    const body = await jsonBodyOf(request);
    const legacy = body === undefined ? await isLegacyRequest(request) : await isLegacyRequest(request, body.parsed);
    return legacy ? answerLegacy(request, body, context, exchange) : answerModern(request, body, context, deps, exchange);
  };
  try {
    return await inErrorShape(await withDeadline(answer, deps.requestTimeoutMs, exchange.requestIds, (id) => exchange.started(id)));
  } finally {
    await exchange.close();
  }
}

/** What the deadline answer names (the JSON-RPC requests that arrived, which of them started) and how the exchange ends. */
interface Exchange {
  requestIds: RequestId[];
  started(id: RequestId): boolean;
  close(): Promise<void>;
}

type ParsedBody = { parsed: unknown } | undefined;

/**
 * The POST body, parsed once for the classifier and whichever era answers (both take it pre-parsed). Undefined when there
 * is none or it is not JSON: the SDK then reads the request itself and answers the parse error in its era's words.
 */
async function jsonBodyOf(request: Request): Promise<ParsedBody> {
  if (request.method !== "POST" || request.body === null) return undefined;
  // Over the SDK's bound the body is left to the SDK, which answers 413 without reading it all.
  if (Number(request.headers.get("content-length") ?? 0) > DEFAULT_MAX_REQUEST_BODY_SIZE) return undefined;
  try {
    const text = await request.clone().text();
    return text.length > DEFAULT_MAX_REQUEST_BODY_SIZE ? undefined : { parsed: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** 2025-era: the web-standard streamable HTTP transport in JSON mode, with the batch limits; routing headers checked first. */
async function answerLegacy(request: Request, body: ParsedBody, context: McpContext, exchange: Exchange): Promise<Response> {
  const disagreement = headersDisagree(request, body?.parsed, "legacy");
  if (disagreement) return disagreement;
  const server = createMcpServer(context);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  exchange.close = () => server.close();
  await server.connect(transport);
  exchange.started = limitBatch(transport).started;
  recordRequestIds(transport, exchange.requestIds);
  return transport.handleRequest(request, body ? { parsedBody: body.parsed } : undefined);
}

/**
 * 2026-07-28: the SDK's per-request entry, strict (`legacy: "reject"`: only modern requests reach it). It checks the
 * envelope, the protocol version and the routing headers against the body before our server runs, then asks the factory
 * for a server; the factory finds this request's caller by the request itself. One entry per handler's dependencies, as
 * the SDK intends; `auto` response mode answers with one JSON body, since no tool of ours sends anything before its result.
 */
const modernEntries = new WeakMap<ExchangeDeps, McpHttpHandler>();
const callers = new WeakMap<Request, McpContext>();

function modernEntry(deps: ExchangeDeps): McpHttpHandler {
  let entry = modernEntries.get(deps);
  if (!entry) {
    entry = createMcpHandler(
      ({ requestInfo }) => {
        const context = requestInfo && callers.get(requestInfo);
        if (!context) throw new Error("The modern MCP entry was handed a request answerMcp did not register.");
        return createMcpServer(context);
      },
      { legacy: "reject", responseMode: "auto" },
    );
    modernEntries.set(deps, entry);
  }
  return entry;
}

async function answerModern(request: Request, body: ParsedBody, context: McpContext, deps: ExchangeDeps, exchange: Exchange) {
  const listed = new Set(listedTools(context).map((tool) => tool.name));
  const disagreement = headersDisagree(request, body?.parsed, "modern", (tool) => listed.has(tool));
  if (disagreement) return disagreement;
  if (isJSONRPCRequest(body?.parsed)) exchange.requestIds.push(body.parsed.id);
  callers.set(request, context);
  return modernEntry(deps).fetch(request, body ? { parsedBody: body.parsed } : undefined);
}
