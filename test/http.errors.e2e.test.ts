import { describe, expect, test } from "@jest/globals";

import { type TestServer, withTestServer } from "./support/harness.js";

/**
 * Every HTTP error answer has the documented body `{error, message}` (docs/usage.md), including the refusals the MCP SDK's
 * transport writes itself (a wrong Accept or Content-Type header), which used to carry a JSON-RPC error body instead.
 */
let server: TestServer;

withTestServer((started) => {
  server = started;
});

const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
const JSON_AND_SSE = "application/json, text/event-stream";

async function post(path: string, headers: Record<string, string>, body = LIST) {
  const response = await fetch(`${server.url}${path}`, { method: "POST", headers, body });
  return { status: response.status, type: response.headers.get("content-type"), body: (await response.json()) as Record<string, unknown> };
}

describe.each(["/api/mcp", "/api/workspaces/http-errors/mcp"])("refusals on %s", (path) => {
  test("a request that does not accept JSON and SSE is a 406 in the one error shape, saying what to send", async () => {
    const answer = await post(path, { "content-type": "application/json", accept: "text/html" });
    expect(answer).toEqual({
      status: 406,
      type: "application/json",
      body: { error: "NotAcceptable", message: expect.stringMatching(/accept.*application\/json.*text\/event-stream/i) },
    });
  });

  test("a body that is not JSON by its Content-Type is a 415 in the one error shape", async () => {
    const answer = await post(path, { "content-type": "text/plain", accept: JSON_AND_SSE });
    expect(answer).toEqual({
      status: 415,
      type: "application/json",
      body: { error: "UnsupportedMediaType", message: expect.stringMatching(/Content-Type must be application\/json/) },
    });
  });

  test("a message that is not JSON-RPC stays a JSON-RPC error response (400), as JSON-RPC clients read it", async () => {
    const answer = await post(path, { "content-type": "application/json", accept: JSON_AND_SSE }, "{ not json");
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ jsonrpc: "2.0", error: { code: -32700, message: expect.any(String) } });
  });
});
