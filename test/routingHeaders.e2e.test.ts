import { describe, expect, test } from "@jest/globals";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";

import { type McpTestClient, ok, type TestServer, uniqueWorkspace, withTestServers } from "./support/harness.js";
import type { GraphOut } from "./support/outputs.js";

/**
 * The routing headers (`Mcp-Method`, `Mcp-Name`; docs/gateway.md) on both protocol eras: a header that agrees with the
 * body is served, one that disagrees is HTTP 400 with JSON-RPC error -32020 and nothing runs. Each disagreement is sent on
 * a write (upsert_entity), and a read afterwards shows it wrote nothing. 2025-era requests are raw POSTs (the check is
 * ours, in mcpExchange.ts); 2026-07-28 requests come from the SDK's own client (the check is the SDK's).
 */

let server: TestServer;
let reader: McpTestClient;

withTestServers({ servers: { server: {} }, clients: { reader: {} } }, (started) => void ({ server, reader } = started));

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** A 2025-era request: no `_meta` envelope, no protocol-version header, so the SDK's classifier calls it legacy. */
async function legacyPost(path: string, method: string, params: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await fetch(new URL(path, server.url), {
    method: "POST",
    headers: { ...HEADERS, ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const upsert = (ws: string, name: string) => ({ name: "upsert_entity", arguments: { workspaceName: ws, name, entityType: "note" } });

async function entityNames(ws: string): Promise<string[]> {
  return ok<GraphOut>(await reader.call("read_graph", { workspaceName: ws })).entities.map((entity) => entity.name);
}

/** The refusal both eras send: 400, the request's id, -32020, a message naming the header and the body's value. */
function expectMismatch(answer: { status: number; body: Record<string, unknown> }, id: unknown, ...named: string[]): void {
  expect(answer.status).toBe(400);
  expect(answer.body).toMatchObject({ jsonrpc: "2.0", id, error: { code: -32020 } });
  const message = (answer.body.error as { message: string }).message;
  expect(message).toMatch(/^Bad Request: the request headers and body disagree: /);
  for (const text of named) expect(message).toContain(text);
}

describe("2025-era requests", () => {
  test("without routing headers are served, as 2025 clients send none", async () => {
    const ws = uniqueWorkspace("rh");
    const answer = await legacyPost("/api/mcp", "tools/call", upsert(ws, "Plain"));
    expect(answer.status).toBe(200);
    expect(await entityNames(ws)).toEqual(["Plain"]);
  });

  test("with routing headers that agree are served, on every MCP route", async () => {
    const ws = uniqueWorkspace("rh");
    const agreeing = { "mcp-method": "tools/call", "mcp-name": "upsert_entity" };
    expect((await legacyPost("/api/mcp", "tools/call", upsert(ws, "Unbound"), agreeing)).status).toBe(200);
    expect((await legacyPost(`/api/workspaces/${ws}/mcp`, "tools/call", upsert(ws, "Bound"), agreeing)).status).toBe(200);
    // A name a header cannot carry as it is goes Base64-encoded in the revision's sentinel.
    const encoded = { "mcp-method": "tools/call", "mcp-name": `=?base64?${Buffer.from("upsert_entity").toString("base64")}?=` };
    expect((await legacyPost("/api/mcp", "tools/call", upsert(ws, "Encoded"), encoded)).status).toBe(200);
    const list = await legacyPost("/api/mcp/readonly", "tools/list", {}, { "mcp-method": "tools/list" });
    expect(list.status).toBe(200);
    expect((await entityNames(ws)).sort()).toEqual(["Bound", "Encoded", "Unbound"]);
  });

  test("an Mcp-Method that disagrees with the body is 400 -32020, and nothing runs", async () => {
    const ws = uniqueWorkspace("rh");
    const answer = await legacyPost("/api/mcp", "tools/call", upsert(ws, "Smuggled"), { "mcp-method": "tools/list" });
    expectMismatch(answer, 7, "Mcp-Method", "tools/list", "tools/call");
    expect(await entityNames(ws)).toEqual([]);
  });

  test.each([
    ["/api/mcp", { "mcp-method": "tools/call", "mcp-name": "read_graph" }, ["Mcp-Name", "read_graph", 'params.name="upsert_entity"']],
    ["/api/workspaces/WS/mcp", { "mcp-name": "open_nodes" }, ["Mcp-Name", "open_nodes", 'params.name="upsert_entity"']],
    ["/api/mcp", { "mcp-name": "=?base64?not base64?=" }, ["Mcp-Name", "invalid Base64"]],
  ])("an Mcp-Name that disagrees with tools/call's name on %s (%j) is 400 -32020, and nothing runs", async (route, headers, named) => {
    const ws = uniqueWorkspace("rh");
    const answer = await legacyPost(route.replace("WS", ws), "tools/call", upsert(ws, "Smuggled"), headers);
    expectMismatch(answer, 7, ...named);
    expect(await entityNames(ws)).toEqual([]);
  });

  test("an Mcp-Name that disagrees with resources/read's uri is 400 -32020", async () => {
    const ws = uniqueWorkspace("rh");
    const uri = `memory://workspaces/${ws}/graph`;
    const answer = await legacyPost("/api/mcp", "resources/read", { uri }, { "mcp-name": "memory://workspaces/other/graph" });
    expectMismatch(answer, 7, "Mcp-Name", "memory://workspaces/other/graph", `params.uri="${uri}"`);
  });

  test("a notification's Mcp-Method is checked too; a batch carrying routing headers is refused, one without is served", async () => {
    const notification = await fetch(new URL("/api/mcp", server.url), {
      method: "POST",
      headers: { ...HEADERS, "mcp-method": "tools/call" },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    expectMismatch({ status: notification.status, body: (await notification.json()) as Record<string, unknown> }, null, "Mcp-Method");
    const ws = uniqueWorkspace("rh");
    const batchOf = (name: string) => JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "tools/call", params: upsert(ws, name) }]);
    // One header cannot describe several calls, so a gateway's decision on it would not be a decision about what runs.
    const headers: Record<string, string>[] = [
      { "mcp-method": "tools/call" },
      { "mcp-name": "read_graph" },
      { "mcp-param-workspace": "elsewhere" },
    ];
    for (const header of headers) {
      const refused = await fetch(new URL("/api/mcp", server.url), {
        method: "POST",
        headers: { ...HEADERS, ...header },
        body: batchOf("Smuggled"),
      });
      expectMismatch({ status: refused.status, body: (await refused.json()) as Record<string, unknown> }, null, "JSON-RPC batch");
    }
    expect(await entityNames(ws)).toEqual([]);
    const served = await fetch(new URL("/api/mcp", server.url), { method: "POST", headers: HEADERS, body: batchOf("Batched") });
    expect(served.status).toBe(200);
    await served.arrayBuffer();
    expect(await entityNames(ws)).toEqual(["Batched"]);
  });
});

/** What the 2026-07-28 client sent and what it got back, per POST. */
interface Exchange {
  method: string | undefined;
  headers: Headers;
  status: number;
  body: Record<string, unknown> | undefined;
}

/**
 * A 2026-07-28 client (the SDK's own, pinned to the revision) whose fetch records each exchange and may rewrite a
 * tools/call's headers on the way out, as a broken proxy or a forged request would.
 */
async function modernClient(path: string, tamper: (headers: Headers) => void = () => {}) {
  const exchanges: Exchange[] = [];
  const observe: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    const sent = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string }) : undefined;
    if (sent?.method === "tools/call") tamper(headers);
    const response = await fetch(input, { ...init, headers });
    const text = await response.clone().text();
    exchanges.push({
      method: sent?.method,
      headers,
      status: response.status,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
    });
    return response;
  };
  const client = new ModernClient(
    { name: "central-memory-tests-2026", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(new ModernTransport(new URL(path, server.url), { fetch: observe }));
  return { client, exchanges };
}

describe("2026-07-28 requests (the SDK's check)", () => {
  test("carry Mcp-Method on every request and Mcp-Name on tools/call; agreeing, they are served", async () => {
    const ws = uniqueWorkspace("rh");
    const { client, exchanges } = await modernClient("/api/mcp");
    try {
      // As clients do: the listing tells the client which arguments it mirrors into headers (workspaceName).
      await client.listTools();
      const result = await client.callTool(upsert(ws, "Modern"));
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    // The 2026-07-28 era: the client opened with server/discover, not initialize.
    expect(exchanges[0]?.method).toBe("server/discover");
    expect(exchanges.some((exchange) => exchange.method === "initialize")).toBe(false);
    const call = exchanges.find((exchange) => exchange.method === "tools/call");
    expect(call?.status).toBe(200);
    expect(call?.headers.get("mcp-method")).toBe("tools/call");
    expect(call?.headers.get("mcp-name")).toBe("upsert_entity");
    expect(call?.headers.get("mcp-param-workspace")).toBe(ws);
    for (const exchange of exchanges) expect(exchange.headers.get("mcp-method")).toBe(exchange.method);
    expect(await entityNames(ws)).toEqual(["Modern"]);
  });

  test.each([
    ["names another workspace", (headers: Headers) => headers.set("mcp-param-workspace", "somewhere-else"), ["somewhere-else"]],
    ["is left out", (headers: Headers) => headers.delete("mcp-param-workspace"), ["Mcp-Param-Workspace header is absent"]],
    ["is invalid Base64", (headers: Headers) => headers.set("mcp-param-workspace", "=?base64?***?="), ["invalid Base64"]],
  ])("a tools/call whose Mcp-Param-Workspace %s is 400 -32020, and nothing runs", async (_case, tamper, named) => {
    const ws = uniqueWorkspace("rh");
    const { client, exchanges } = await modernClient("/api/mcp", tamper);
    try {
      await client.listTools();
      await expect(client.callTool(upsert(ws, "Smuggled"))).rejects.toThrow();
    } finally {
      await client.close();
    }
    const call = exchanges.find((exchange) => exchange.method === "tools/call");
    expect(call).toBeDefined();
    expectMismatch({ status: call!.status, body: call!.body ?? {} }, expect.anything(), ...named);
    expect(await entityNames(ws)).toEqual([]);
  });

  test("the workspace header is listed on every tool's workspaceName (x-mcp-header), and a 2025 client need not send it", async () => {
    const { client } = await modernClient("/api/mcp");
    try {
      const { tools } = await client.listTools();
      const declared = tools.filter((tool) => "workspaceName" in (tool.inputSchema.properties ?? {}));
      expect(declared.length).toBeGreaterThan(30);
      for (const tool of declared) {
        expect((tool.inputSchema.properties as Record<string, Record<string, unknown>>).workspaceName!["x-mcp-header"]).toBe("Workspace");
      }
    } finally {
      await client.close();
    }
    const ws = uniqueWorkspace("rh");
    ok(await reader.call("upsert_entity", { workspaceName: ws, name: "Plain", entityType: "note" }));
    expect(await entityNames(ws)).toEqual(["Plain"]);
  });

  test.each([
    ["Mcp-Name", (headers: Headers) => headers.set("mcp-name", "read_graph"), ["Mcp-Name", "read_graph", "upsert_entity"]],
    ["Mcp-Method", (headers: Headers) => headers.set("mcp-method", "tools/list"), ["Mcp-Method", "tools/list", "tools/call"]],
    ["Mcp-Name (left out)", (headers: Headers) => headers.delete("mcp-name"), ["Mcp-Name header is absent", "upsert_entity"]],
  ])("a tools/call whose %s disagrees with the body is 400 -32020, and nothing runs", async (_header, tamper, named) => {
    const ws = uniqueWorkspace("rh");
    const { client, exchanges } = await modernClient(`/api/workspaces/${ws}/mcp`, tamper);
    try {
      await expect(client.callTool({ name: "upsert_entity", arguments: { name: "Smuggled", entityType: "note" } })).rejects.toThrow();
    } finally {
      await client.close();
    }
    const call = exchanges.find((exchange) => exchange.method === "tools/call");
    expect(call).toBeDefined();
    expectMismatch({ status: call!.status, body: call!.body ?? {} }, expect.anything(), ...named);
    expect(await entityNames(ws)).toEqual([]);
  });
});
