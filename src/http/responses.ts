import { presentError, type Problem } from "../domain/errors.js";

/** Small JSON responses the handlers share. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

/** Every HTTP error body this server sends: `{error, message, ...details}`, built by the one presenter. */
export function errorResponse(status: number, problem: Problem, headers: Record<string, string> = {}): Response {
  return json(status, presentError(problem, { as: "http" }), headers);
}

export function methodNotAllowed(allow: string): Response {
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
