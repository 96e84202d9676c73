import {
  createMcpHandler,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  isJSONRPCRequest,
  isLegacyRequest,
  type McpHttpHandler,
  type RequestId,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";

import { createMcpServer, listedTools, type McpContext } from "../mcp/server.js";
import { limitBatch } from "./batchLimits.js";
import { recordRequestIds, withDeadline } from "./deadline.js";
import { inErrorShape } from "./responses.js";
import { headerMismatchResponse } from "./routingHeaders.js";
import { appHtml } from "./viewerAssets.js";

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
    // The apps' HTML, read from the build (src/mcp reads no files): every MCP route serves the `ui://` resource alike.
    appHtml,
    ...caller,
  };
  // The deadline covers the whole exchange, reading the body included; each era fills in what its answer needs.
  const exchange = new Exchange();
  const answer = async () => {
    const body = await jsonBodyOf(request);
    // The deadline answered while the body was arriving, saying nothing was done: so nothing may start now.
    if (exchange.ended) return new Response(null, { status: 408 });
    const legacy = body === undefined ? await isLegacyRequest(request) : await isLegacyRequest(request, body.parsed);
    return legacy ? answerLegacy(request, body, context, exchange) : answerModern(request, body, context, deps, exchange);
  };
  try {
    return await inErrorShape(await withDeadline(answer, deps.requestTimeoutMs, exchange.requestIds, (id) => exchange.started(id)));
  } finally {
    await exchange.end();
  }
}

/**
 * One exchange's state: what the deadline answer names (the JSON-RPC requests that arrived, which of them started), and the
 * servers it built, closed when it ends. An exchange ends when its answer is sent, by its server or by the deadline; a
 * server built after that (its body came late) is closed at once and runs nothing.
 */
class Exchange {
  readonly requestIds: RequestId[] = [];
  started: (id: RequestId) => boolean = () => true;
  ended = false;
  private readonly servers: Server[] = [];

  /** Takes a server built for this exchange; false when the exchange already ended, and the server is then closed. */
  adopt(server: Server): boolean {
    if (this.ended) {
      void server.close();
      return false;
    }
    this.servers.push(server);
    return true;
  }

  async end(): Promise<void> {
    this.ended = true;
    await Promise.all(this.servers.map((server) => server.close().catch(() => undefined)));
  }
}

type ParsedBody = { parsed: unknown } | undefined;

/**
 * The POST body, parsed once for the classifier and whichever era answers (both take it pre-parsed). Undefined when there
 * is none, it is not JSON, or it is larger than the SDK's bound: the SDK then reads the request itself and answers the
 * parse error, or 413, in its era's words. The bound is counted in bytes as they arrive, so a body without a
 * Content-Length is never read past it.
 */
async function jsonBodyOf(request: Request): Promise<ParsedBody> {
  if (request.method !== "POST" || request.body === null) return undefined;
  if (Number(request.headers.get("content-length") ?? 0) > DEFAULT_MAX_REQUEST_BODY_SIZE) return undefined;
  const bytes = await readBounded(request.clone().body!, DEFAULT_MAX_REQUEST_BODY_SIZE);
  if (bytes === undefined) return undefined;
  try {
    return { parsed: JSON.parse(new TextDecoder().decode(bytes)) as unknown };
  } catch {
    return undefined;
  }
}

/** A stream's bytes, or undefined (and the stream cancelled) as soon as they pass `limit`. */
async function readBounded(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array | undefined> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** 2025-era: the web-standard streamable HTTP transport in JSON mode, with the batch limits; routing headers checked first. */
async function answerLegacy(request: Request, body: ParsedBody, context: McpContext, exchange: Exchange): Promise<Response> {
  const refusal = headerMismatchResponse(request, body?.parsed, "legacy");
  if (refusal) return refusal;
  const server = createMcpServer(context);
  if (!exchange.adopt(server)) return new Response(null, { status: 408 });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
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
const callers = new WeakMap<Request, { context: McpContext; exchange: Exchange }>();

function modernEntry(deps: ExchangeDeps): McpHttpHandler {
  let entry = modernEntries.get(deps);
  if (!entry) {
    entry = createMcpHandler(
      ({ requestInfo }) => {
        const caller = requestInfo && callers.get(requestInfo);
        if (!caller) throw new Error("The modern MCP entry was handed a request answerMcp did not register.");
        const server = createMcpServer(caller.context);
        // Past the deadline the server is closed at once, and the SDK answers a closed exchange without running it.
        caller.exchange.adopt(server);
        return server;
      },
      { legacy: "reject", responseMode: "auto" },
    );
    modernEntries.set(deps, entry);
  }
  return entry;
}

async function answerModern(request: Request, body: ParsedBody, context: McpContext, deps: ExchangeDeps, exchange: Exchange) {
  const listed = new Set(listedTools(context).map((tool) => tool.name));
  const refusal = headerMismatchResponse(request, body?.parsed, "modern", (tool) => listed.has(tool));
  if (refusal) return refusal;
  if (isJSONRPCRequest(body?.parsed)) exchange.requestIds.push(body.parsed.id);
  callers.set(request, { context, exchange });
  return modernEntry(deps).fetch(request, body ? { parsedBody: body.parsed } : undefined);
}
