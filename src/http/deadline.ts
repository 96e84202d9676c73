import { isJSONRPCRequest, ProtocolErrorCode, type RequestId, type Transport } from "@modelcontextprotocol/server";

import { presentError } from "../domain/model/errors.js";
import { json } from "./responses.js";

const INTERNAL = { as: "jsonrpc", code: ProtocolErrorCode.InternalError } as const;

/**
 * An overall deadline on one MCP request. The SDK's transport (1.x, JSON response mode) never
 * settles its response if sending the result throws (e.g. a value JSON cannot serialize), and a
 * handler that never returns would hang the HTTP request the same way. After `timeoutMs` the
 * client gets a JSON-RPC error instead; the caller closes the server either way.
 *
 * The ids of the requests the transport handed to the server are recorded on the way in, so the
 * answer carries the client's own id. Then it is HTTP 200, as any JSON-RPC error from this server:
 * the MCP client matches it to the pending call and surfaces it as that call's error, whereas a 5xx
 * fails the transport and tells the caller less. With no id recorded the request never reached the
 * server (its body had not arrived), so nothing ran: 408, with the JSON-RPC id null. `started` (from the batch limits) tells
 * the requests that ran from those still queued or refused, which are told that nothing was done for them.
 */
export async function withDeadline(
  handle: () => Promise<Response>,
  timeoutMs: number,
  requestIds: readonly RequestId[],
  started: (id: RequestId) => boolean = () => true,
): Promise<Response> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Response>((resolve) => {
    timer = setTimeout(() => resolve(deadlineAnswer(requestIds, timeoutMs, started)), timeoutMs);
  });
  try {
    return await Promise.race([handle(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The ids of the JSON-RPC requests a connected transport hands its server, as they arrive: what a deadline answer names. */
export function recordRequestIds(transport: Transport, requestIds: RequestId[]): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (isJSONRPCRequest(message)) requestIds.push(message.id);
    deliver?.(message, extra);
  };
}

function deadlineAnswer(requestIds: readonly RequestId[], timeoutMs: number, started: (id: RequestId) => boolean): Response {
  // One line for the operator: this is a server fault (or a client too slow to send its body), never a tool result.
  console.warn(JSON.stringify({ event: "mcp_request_deadline", timeoutMs, requests: requestIds.length }));
  if (requestIds.length === 0) {
    const message = `The request did not arrive completely within ${timeoutMs} ms (MEMORY_REQUEST_TIMEOUT_MS), so nothing was done. Send it again.`;
    return json(408, { jsonrpc: "2.0", id: null, error: presentError({ kind: "Timeout", message }, INTERNAL) });
  }
  const ran = presentError(
    {
      kind: "Timeout",
      message:
        `The server did not finish this request within ${timeoutMs} ms (MEMORY_REQUEST_TIMEOUT_MS). ` +
        "A write may or may not have been applied: read the affected entities before retrying it.",
    },
    INTERNAL,
  );
  const notRun = presentError(
    {
      kind: "Timeout",
      message:
        `The server did not finish this batch within ${timeoutMs} ms (MEMORY_REQUEST_TIMEOUT_MS), and this request had not ` +
        "started, so nothing was done for it. Send it again in a separate HTTP request.",
    },
    INTERNAL,
  );
  const answers = requestIds.map((id) => ({ jsonrpc: "2.0", id, error: started(id) ? ran : notRun }));
  return json(200, answers.length === 1 ? answers[0] : answers);
}
