import type { HttpFunctionOptions, HttpHandler } from "@azure/functions";
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";

import { invokeFunction, registerFunctions } from "./support/functions.js";
import { testConnectionString, uniqueWorkspace } from "./support/harness.js";

/** The Azure Functions door, in-process, with real HttpRequest/InvocationContext (see support/functions.ts). */
let registered: Map<string, HttpFunctionOptions>;

beforeAll(async () => {
  process.env.MEMORY_STORAGE_CONNECTION_STRING = testConnectionString();
  process.env.MEMORY_AUTH = "none"; // chosen explicitly, as a deployment must (auth.test.ts covers the other modes)
  registered = await registerFunctions();
});

afterAll(() => {
  delete process.env.MEMORY_STORAGE_CONNECTION_STRING;
  delete process.env.MEMORY_AUTH;
});

function rpc(id: number, method: string, params: Record<string, unknown>) {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

function invoke(name: string, init: { method: string; path: string; body?: string; params?: Record<string, string> }) {
  const handler = registered.get(name)!.handler as HttpHandler;
  return invokeFunction(handler, { ...init, url: `http://localhost:7071${init.path}` });
}

describe("Azure Functions triggers", () => {
  test("register the routes, anonymous, on the shared handler", () => {
    expect([...registered.keys()].sort()).toEqual([
      "health",
      "mcp",
      "mcpReadOnly",
      "protectedResourceMetadata",
      "ready",
      "viewer",
      "viewerAssets",
      "workspaceMcp",
      "workspaceMcpReadOnly",
    ]);
    // host.json's routePrefix is empty (the OAuth metadata lives at the host root), so routes spell out api/.
    expect(registered.get("mcp")).toMatchObject({
      route: "api/mcp",
      authLevel: "anonymous",
      methods: expect.arrayContaining(["POST", "GET", "DELETE"]),
    });
    expect(registered.get("workspaceMcp")!.route).toBe("api/workspaces/{workspaceName}/mcp");
    expect(registered.get("mcpReadOnly")!.route).toBe("api/mcp/readonly");
    expect(registered.get("workspaceMcpReadOnly")!.route).toBe("api/workspaces/{workspaceName}/mcp/readonly");
    expect(registered.get("health")!.route).toBe("api/health");
    expect(registered.get("ready")!.route).toBe("api/ready");
    expect(registered.get("protectedResourceMetadata")!.route).toBe(".well-known/oauth-protected-resource/{*resourcePath}");
    expect(registered.get("viewer")!.route).toBe("api/workspaces/{workspaceName}/view/{*rest}");
    expect(registered.get("viewerAssets")!.route).toBe("api/viewer/{file}");
    for (const options of registered.values()) expect(options.authLevel).toBe("anonymous");
  });

  test("a real MCP tools/call through the Functions handler writes and reads the graph", async () => {
    const ws = uniqueWorkspace("fn");
    const call = await invoke("mcp", {
      method: "POST",
      path: "/api/mcp",
      body: rpc(1, "tools/call", {
        name: "upsert_entity",
        arguments: { workspaceName: ws, name: "Alice", entityType: "person", observations: ["via Functions"] },
      }),
    });
    expect(call.status).toBe(200);
    const created = JSON.parse(call.body);
    expect(created.result.structuredContent).toMatchObject({ success: true, workspace: ws, name: "Alice", created: true });

    const read = await invoke("workspaceMcp", {
      method: "POST",
      path: `/api/workspaces/${ws}/mcp`,
      params: { workspaceName: ws },
      body: rpc(2, "tools/call", { name: "read_graph", arguments: {} }),
    });
    const graph = JSON.parse(read.body).result.structuredContent;
    expect(graph.entities).toEqual([expect.objectContaining({ name: "Alice", observations: ["via Functions"] })]);
  });

  test("tools/list answers through the Functions handler", async () => {
    const response = await invoke("mcp", { method: "POST", path: "/api/mcp", body: rpc(3, "tools/list", {}) });
    const names = JSON.parse(response.body).result.tools.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(["upsert_entity", "upsert_relation", "get_entity_relations", "read_graph"]));
  });

  test("?toolsets= on the URL reaches the handler through the Functions door", async () => {
    const response = await invoke("mcp", { method: "POST", path: "/api/mcp?toolsets=core", body: rpc(4, "tools/list", {}) });
    const names = JSON.parse(response.body).result.tools.map((t: { name: string }) => t.name);
    expect(names.sort()).toEqual(["get_entity_relations", "read_graph", "upsert_entity", "upsert_relation"]);
    expect((await invoke("mcp", { method: "POST", path: "/api/mcp?toolsets=nope", body: rpc(5, "tools/list", {}) })).status).toBe(400);
  });

  test("GET on the MCP route is 405 with Allow: POST", async () => {
    const response = await invoke("mcp", { method: "GET", path: "/api/mcp" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });

  test("health and ready", async () => {
    const health = await invoke("health", { method: "GET", path: "/api/health" });
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ status: "ok" });
    expect((await invoke("ready", { method: "GET", path: "/api/ready" })).status).toBe(200);
  });
});
