import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  ProtocolErrorCode,
  type RequestId,
  type Transport,
} from "@modelcontextprotocol/server";

import { presentError } from "../domain/model/errors.js";

/**
 * What one HTTP request may cost, whatever JSON-RPC batch it carries. The SDK accepts batches of
 * up to 100 messages and would start them all at once: 25 read_graph calls on a 5,000-entity
 * workspace held ~600 MB and answered 96 MB. Constants, not settings: a client that needs more
 * sends more HTTP requests, which the platform scales out.
 */
export const BATCH_LIMITS = {
  /** JSON-RPC requests answered per HTTP request; the rest get an error saying to send them separately. */
  requests: 20,
  /** Requests of one batch that run at the same time. One: a batch costs what its largest call costs, not their sum. */
  concurrent: 1,
  /**
   * Once the answers so far hold this many characters of JSON, no further request of the batch
   * starts. The first request always runs, so a single large read_graph is answered as before.
   */
  responseChars: 4_000_000,
} as const;

type Limits = { readonly requests: number; readonly concurrent: number; readonly responseChars: number };

/**
 * Puts the limits on a connected transport (the server has set its onmessage): requests are
 * started at most `concurrent` at a time, in order; those past the caps are answered with a
 * JSON-RPC error without reaching the server, so nothing is done for them. Answer sizes are
 * measured only while requests are waiting, so a single-request POST costs nothing extra.
 */
export function limitBatch(transport: Transport, limits: Limits = BATCH_LIMITS): { started(id: RequestId): boolean } {
  const deliver = transport.onmessage;
  const send = transport.send.bind(transport);
  const waiting: { message: JSONRPCMessage & { id: RequestId }; extra: MessageExtraInfo | undefined }[] = [];
  const running = new Set<RequestId>();
  const seen = new Set<RequestId>();
  const started = new Set<RequestId>();
  let received = 0;
  let answeredChars = 0;

  const refuse = (id: RequestId, message: string) =>
    send({
      jsonrpc: "2.0",
      id,
      error: presentError({ kind: "BatchLimit", message }, { as: "jsonrpc", code: ProtocolErrorCode.InvalidRequest }),
    });

  const startNext = () => {
    while (running.size < limits.concurrent && waiting.length > 0) {
      const next = waiting.shift()!;
      if (answeredChars >= limits.responseChars) {
        void refuse(
          next.message.id,
          `The answers to earlier requests in this batch already hold ${answeredChars} characters (the limit per HTTP request is ` +
            `${limits.responseChars}), so this request was not run and nothing was done. Send it again in a separate HTTP request.`,
        );
        continue;
      }
      running.add(next.message.id);
      started.add(next.message.id);
      deliver?.(next.message, next.extra);
    }
  };

  transport.onmessage = (message, extra) => {
    if (!isJSONRPCRequest(message)) return deliver?.(message, extra);
    // A second request with an id already in this batch breaks JSON-RPC, and the SDK answers by id: its answer would be taken
    // for the first one's, and it could run after the HTTP response went out. It is not run, so nothing is done for it.
    if (seen.has(message.id)) return;
    seen.add(message.id);
    received += 1;
    if (received > limits.requests) {
      void refuse(
        message.id,
        `This HTTP request carries more than ${limits.requests} JSON-RPC requests, the most this server answers in one; this one ` +
          `(number ${received}) was not run and nothing was done. Send it again in a separate HTTP request.`,
      );
      return;
    }
    waiting.push({ message, extra });
    startNext();
  };

  transport.send = async (message, options) => {
    const answered =
      (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id !== undefined && running.delete(message.id);
    if (answered && waiting.length > 0) answeredChars += JSON.stringify(message).length;
    await send(message, options);
    if (answered) startNext();
  };
  return { started: (id) => started.has(id) };
}
