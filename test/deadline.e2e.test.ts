import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";

import { readAuthSettings } from "../src/config/auth.js";
import { createAuthenticator } from "../src/http/auth/authenticate.js";
import { createHandler, type FetchHandler } from "../src/http/handler.js";
import { tableReadiness } from "../src/http/readiness.js";
import { listen, type RunningServer } from "../src/local/nodeServer.js";
import type { ToolInstrument } from "../src/mcp/instrument.js";
import { ALL_TOOLSETS } from "../src/mcp/toolsets.js";
import { createServices } from "../src/runtime.js";
import { connectStorage } from "../src/storage/table/client.js";
import { connectClient, TEST_TABLE, testConnectionString, uniqueWorkspace } from "./support/harness.js";
import { partitionRows, rawTable } from "./support/rawRows.js";

/**
 * The overall deadline on an MCP request (MEMORY_REQUEST_TIMEOUT_MS). The hang is the SDK's own:
 * in JSON response mode, a result that JSON cannot serialize makes sending it throw, and the HTTP
 * response is then never settled. The real handler, transport and tool run against Azurite; the
 * only addition is an instrument (the handler's per-call wrapper) that adds such a value to the
 * real result. Without the deadline every call below hangs until the test times out.
 */
const DEADLINE_MS = 300;

const unserializable: ToolInstrument = async (_call, work) => {
  const result = await work();
  return { ...result, structuredContent: { ...(result.structuredContent as Record<string, unknown>), size: 1n } };
};

let handler: FetchHandler;
let server: RunningServer;

beforeAll(async () => {
  const storage = connectStorage({
    kind: "connectionString",
    connectionString: testConnectionString(),
    tableName: TEST_TABLE,
    source: "test",
  });
  const auth = readAuthSettings({ MEMORY_AUTH: "none" });
  handler = createHandler({
    services: createServices(storage),
    readiness: tableReadiness(storage),
    version: "test",
    toolsets: ALL_TOOLSETS,
    auth: { settings: auth, authenticate: createAuthenticator(auth.mode) },
    instrument: unserializable,
    requestTimeoutMs: DEADLINE_MS,
  });
  await storage.ensureTable();
  server = await listen(handler, { host: "127.0.0.1", port: 0 });
});

afterAll(async () => {
  await server.close();
});

const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };

describe("a request whose response the SDK never settles", () => {
  test("the MCP SDK client gets a JSON-RPC error for its call, naming the deadline", async () => {
    const mcp = await connectClient(server.url);
    try {
      await expect(mcp.call("read_graph", { workspaceName: uniqueWorkspace("deadline") })).rejects.toMatchObject({
        code: -32603,
        message: expect.stringContaining("MEMORY_REQUEST_TIMEOUT_MS"),
      });
    } finally {
      await mcp.close();
    }
  });

  test("the answer is HTTP 200 with the request's own JSON-RPC id", async () => {
    const body = {
      jsonrpc: "2.0",
      id: "deadline-7",
      method: "tools/call",
      params: { name: "read_graph", arguments: { workspaceName: uniqueWorkspace("deadline") } },
    };
    const response = await fetch(`${server.url}/api/mcp`, { method: "POST", headers, body: JSON.stringify(body) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: "deadline-7",
      error: { code: -32603, message: expect.stringContaining(`within ${DEADLINE_MS} ms`) },
    });
  });

  test("a batch gets one error per request id", async () => {
    const call = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "read_graph", arguments: { workspaceName: uniqueWorkspace("deadline") } },
    });
    const response = await fetch(`${server.url}/api/mcp`, { method: "POST", headers, body: JSON.stringify([call(1), call(2)]) });
    const answers = (await response.json()) as { id: number; error: { code: number } }[];
    expect(answers.map((answer) => [answer.id, answer.error.code])).toEqual([
      [1, -32603],
      [2, -32603],
    ]);
  });
});

test("a request whose body never arrives gets 408 with a null id: nothing reached the server", async () => {
  const never = new ReadableStream<Uint8Array>({ start: () => undefined });
  const request = new Request("http://localhost/api/mcp", { method: "POST", headers, body: never, duplex: "half" } as RequestInit);
  const response = await handler(request);
  expect(response.status).toBe(408);
  expect(await response.json()).toMatchObject({
    jsonrpc: "2.0",
    id: null,
    error: { message: expect.stringContaining("nothing was done") },
  });
});

test("a body that arrives after the 408 runs nothing: the answer said nothing was done, and nothing is", async () => {
  const ws = uniqueWorkspace("deadline");
  const call = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "create_entities",
      arguments: { workspaceName: ws, entities: [{ name: "Late", entityType: "note", observations: [] }] },
    },
  };
  let deliver!: () => void;
  const late = new ReadableStream<Uint8Array>({
    start: (controller) => {
      deliver = () => {
        controller.enqueue(new TextEncoder().encode(JSON.stringify(call)));
        controller.close();
      };
    },
  });
  const request = new Request("http://localhost/api/mcp", { method: "POST", headers, body: late, duplex: "half" } as RequestInit);
  const response = await handler(request);
  expect(response.status).toBe(408);
  // Now the body arrives, whole; the exchange already ended. Give a write that should not happen the time to happen.
  deliver();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(await partitionRows(rawTable(), ws)).toEqual([]);
});
