import { presentError, type Problem } from "../domain/model/errors.js";

/** Small JSON responses the handlers share. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

/** Every HTTP error body this server sends: `{error, message, ...details}`, built by the one presenter. */
export function errorResponse(status: number, problem: Problem, headers: Record<string, string> = {}): Response {
  return json(status, presentError(problem, { as: "http" }), headers);
}

/**
 * The kinds of the HTTP-level refusals the MCP SDK's transport answers itself, by status (the others it has need sessions
 * or SSE streams, which this stateless server has not).
 */
const TRANSPORT_REFUSALS: Record<number, string> = {
  406: "NotAcceptable",
  413: "PayloadTooLarge",
  415: "UnsupportedMediaType",
};

/**
 * The MCP SDK's transport refuses some requests itself (a wrong Accept or Content-Type header: 406, 415) with a JSON-RPC
 * error body; this gives those refusals the one HTTP error shape, keeping status, headers and message. A 400 stays as the
 * transport wrote it: it answers a message that is not valid JSON-RPC (parse error, invalid request, unsupported protocol
 * version) with a JSON-RPC error response, which is what a JSON-RPC client reads; so does the request deadline's 408
 * (deadline.ts), which answers JSON-RPC requests (docs/usage.md, the HTTP routes).
 */
export async function inErrorShape(response: Response): Promise<Response> {
  const kind = TRANSPORT_REFUSALS[response.status];
  if (kind === undefined) return response;
  const text = await response.text();
  let message = text || `HTTP ${response.status}`;
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof body.error?.message === "string") message = body.error.message;
  } catch {
    // not JSON: the text itself is the message
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== "content-type" && name !== "content-length") headers[name] = value;
  });
  return errorResponse(response.status, { kind, message }, headers);
}

/** The 405 in the one error shape: Hono's method-not-allowed sends it (handler.ts), and so does the invalid-configuration handler. */
export function refuseMethod(allow: string): Response {
  return errorResponse(
    405,
    { kind: "MethodNotAllowed", message: `Use ${allow}. This server is stateless: no SSE stream and no sessions.` },
    { Allow: allow },
  );
}

/** Health and readiness answer GET (and HEAD); anything else is 405. */
export function isRead(request: Request): boolean {
  return request.method === "GET" || request.method === "HEAD";
}
