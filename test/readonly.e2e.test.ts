import { readFileSync } from "node:fs";

import type { HttpFunctionOptions, HttpHandler } from "@azure/functions";
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { hashApiKey } from "../src/http/auth/apiKeyVerifier.js";
import { TOOLSETS } from "../src/mcp/tool.js";
import { ALL_TOOLS } from "../src/mcp/tools/index.js";
import { refusal } from "./support/auth.js";
import { invokeFunction, registerFunctions } from "./support/functions.js";
import {
  connectClient,
  failed,
  type McpTestClient,
  ok,
  testConnectionString,
  type TestServer,
  uniqueWorkspace,
  withTestServers,
} from "./support/harness.js";
import type { GraphOut } from "./support/outputs.js";
import { partitionRows, rawTable } from "./support/rawRows.js";

/**
 * The read-only variants of the MCP routes (`/api/mcp/readonly`, `/api/workspaces/{ws}/mcp/readonly`; docs/usage.md):
 * they list exactly the readOnlyHint tools of the connection's toolsets and refuse every other tool called by name,
 * whatever the caller's grant, with storage untouched. Through the local server (real SDK clients of both eras) and the
 * Azure Functions handler (test mode); with keys on, a write key is held to reading there and a read key reads.
 */

const KEYS = { writer: "ro-writer-key-0123456789", reader: "ro-reader-key-0123456789" };
const ENTRIES = [
  { id: "ro-writer", sha256: hashApiKey(KEYS.writer), workspaces: ["ro-*"], access: "write" },
  { id: "ro-reader", sha256: hashApiKey(KEYS.reader), workspaces: ["ro-*"], access: "read" },
];
const KEYS_ENV = { MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify(ENTRIES), MEMORY_ALLOWED_ORIGINS: "https://ui.example.com" };
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** Every write tool and every read tool, by annotation (the source of truth), never by hand. */
const WRITE_TOOLS = ALL_TOOLS.filter((tool) => !tool.annotations.readOnlyHint);
const readToolsIn = (toolsets?: readonly string[]) =>
  ALL_TOOLS.filter((tool) => tool.annotations.readOnlyHint && (!toolsets || tool.toolsets.some((t) => toolsets.includes(t))))
    .map((tool) => tool.name)
    .sort();

/**
 * Arguments that would change the seeded workspace (see seed) if the call ran, so that a refusal that let one through would
 * show in storage. A write tool added later without an entry is still called (with none) and must still be refused.
 */
const WRITE_ARGS: Record<string, (ws: string) => Record<string, unknown>> = {
  add_observations: () => ({ observations: [{ entityName: "A", contents: ["smuggled"] }] }),
  create_entities: () => ({ entities: [{ name: "C", entityType: "note", observations: [] }] }),
  create_relations: () => ({ relations: [{ from: "B", to: "A", relationType: "knows" }] }),
  define_tag: () => ({ name: "smuggled-tag" }),
  delete_entities: () => ({ entityNames: ["A"] }),
  delete_observations: () => ({ deletions: [{ entityName: "A", observations: ["fact one"] }] }),
  delete_relations: () => ({ relations: [{ from: "A", to: "B", relationType: "knows" }] }),
  delete_tags: () => ({ tagNames: ["t1"] }),
  delete_workspace: (ws) => ({ confirm: ws }),
  execute_batch: () => ({ operations: [{ op: "upsert_entity", args: { name: "C", entityType: "note" } }] }),
  merge_entities: () => ({ target: "A", sources: ["B"], confirm: true }),
  remove_tags_from_entity: () => ({ entityName: "A", tagNames: ["t1"] }),
  restore_entity: () => ({ entityName: "Gone" }),
  tag_entity: () => ({ entityName: "B", tagNames: ["t1"] }),
  tag_observation: () => ({ entityName: "A", observationContent: "fact one", tagNames: ["t1"] }),
  untag_observation: () => ({ entityName: "A", observationContent: "fact one", tagNames: ["t2"] }),
  upsert_entity: () => ({ name: "A", entityType: "note", observations: ["smuggled"] }),
  upsert_relation: () => ({ from: "B", to: "A", relationType: "likes" }),
  supersede_observation: () => ({ entityName: "A", observation: "fact one", replacement: "fact two" }),
  end_relation: () => ({ from: "A", to: "B", relationType: "knows" }),
  declare_fact_keys: () => ({ keys: [{ key: "owner", singleValued: true }] }),
  set_expiry: () => ({ entityName: "A", pinned: true }),
  sweep_expired: () => ({}),
  reject_duplicate_pair: () => ({ a: "A", b: "B" }),
};

const refusalMessage = (tool: string) =>
  `Forbidden: ${tool} changes memory, and this is a read-only route (…/mcp/readonly), which offers only tools that read. ` +
  "To change memory, connect to the same URL without /readonly, with a credential that may write.";

let open: TestServer;
let keyed: TestServer;
let writer: McpTestClient;

withTestServers(
  { servers: { open: {}, keyed: { env: KEYS_ENV } }, clients: { writer: { on: "open" } } },
  (started) => void ({ open, keyed, writer } = started),
);

/** A workspace with entities, observations, a relation, tags and a deleted entity: something for every write to change. */
async function seed(client: McpTestClient, prefix = "ro"): Promise<string> {
  const ws = uniqueWorkspace(prefix);
  ok(await client.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "note", observations: ["fact one"] }));
  ok(await client.call("upsert_entity", { workspaceName: ws, name: "B", entityType: "note" }));
  ok(await client.call("upsert_entity", { workspaceName: ws, name: "Gone", entityType: "note" }));
  ok(await client.call("upsert_relation", { workspaceName: ws, from: "A", to: "B", relationType: "knows" }));
  ok(await client.call("tag_entity", { workspaceName: ws, entityName: "A", tagNames: ["t1"] }));
  ok(await client.call("tag_observation", { workspaceName: ws, entityName: "A", observationContent: "fact one", tagNames: ["t2"] }));
  ok(await client.call("delete_entities", { workspaceName: ws, entityNames: ["Gone"] }));
  return ws;
}

/** Every row of the workspace, the feed and the registry row included, with its etag: any write changes this. */
async function storageOf(ws: string): Promise<string[]> {
  return (await partitionRows(rawTable(), ws)).map((row) => `${row.rowKey} ${String(row.etag)}`).sort();
}

const withWorkspace = (ws: string, bound: boolean, args: Record<string, unknown>) => (bound ? args : { workspaceName: ws, ...args });

async function withClient<T>(server: TestServer, path: string, headers: Record<string, string>, work: (c: McpTestClient) => Promise<T>) {
  const client = await connectClient(server.url, path, { headers });
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

/** Calls every write tool by name on a read-only route and expects each refused as such; storage must not move. */
async function expectEveryWriteRefused(
  ws: string,
  bound: boolean,
  call: (name: string, args: Record<string, unknown>) => Promise<CallToolResult>,
) {
  const before = await storageOf(ws);
  for (const tool of WRITE_TOOLS) {
    const result = await call(tool.name, withWorkspace(ws, bound, WRITE_ARGS[tool.name]?.(ws) ?? {}));
    expect({ tool: tool.name, error: failed(result) }).toEqual({
      tool: tool.name,
      error: { success: false, error: "ForbiddenError", message: refusalMessage(tool.name) },
    });
  }
  expect(await storageOf(ws)).toEqual(before);
}

test("the write arguments above are real writes: on the route without /readonly each one changes storage", async () => {
  // What makes "storage is unchanged" below mean something: each call, had it run, would have shown.
  const changed = await Promise.all(
    WRITE_TOOLS.map(async (tool) => {
      const ws = await seed(writer);
      // A sweep changes storage only when something expired: give it an item that expires at once.
      if (tool.name === "sweep_expired") {
        ok(
          await writer.call("add_observations", {
            workspaceName: ws,
            observations: [{ entityName: "B", contents: ["brief"] }],
            ttlSeconds: 1,
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 1_100));
      }
      const before = await storageOf(ws);
      ok(await writer.call(tool.name, withWorkspace(ws, false, WRITE_ARGS[tool.name]?.(ws) ?? {})));
      return { tool: tool.name, changed: JSON.stringify(await storageOf(ws)) !== JSON.stringify(before) };
    }),
  );
  expect(changed).toEqual(WRITE_TOOLS.map((tool) => ({ tool: tool.name, changed: true })));
});

const ROUTES = [
  { label: "/api/mcp/readonly", path: () => "/api/mcp/readonly", bound: false },
  { label: "/api/workspaces/{ws}/mcp/readonly", path: (ws: string) => `/api/workspaces/${ws}/mcp/readonly`, bound: true },
];

describe.each(ROUTES)("$label through the local server", ({ path, bound }) => {
  test("lists exactly the readOnlyHint tools, of every toolset or of the ones ?toolsets= selects", async () => {
    const ws = uniqueWorkspace("ro");
    await withClient(open, path(ws), {}, async (client) => {
      const { tools } = await client.client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(readToolsIn());
      expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
    });
    await withClient(open, `${path(ws)}?toolsets=core,graph`, {}, async (client) => {
      expect((await client.client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(readToolsIn(["core", "graph"]));
    });
    const badToolsets = await fetch(new URL(`${path(ws)}?toolsets=everything`, open.url), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(badToolsets.status).toBe(400);
    expect(((await badToolsets.json()) as { error: string }).error).toBe("ValidationError");
  });

  test("refuses every write tool called by name, saying how to write, and storage is unchanged", async () => {
    const ws = await seed(writer);
    await withClient(open, path(ws), {}, (client) => expectEveryWriteRefused(ws, bound, client.call));
  });

  test("reads: tools and the graph resource", async () => {
    const ws = await seed(writer);
    await withClient(open, path(ws), {}, async (client) => {
      const graph = ok<GraphOut>(await client.call("read_graph", withWorkspace(ws, bound, {})));
      expect(graph.entities.map((entity) => entity.name).sort()).toEqual(["A", "B"]);
      const uri = bound ? "memory://knowledge-graph" : `memory://workspaces/${ws}/graph`;
      const read = await client.client.readResource({ uri });
      const text = (read.contents[0] as { text: string }).text;
      expect((JSON.parse(text) as GraphOut).relations.map((r) => [r.from, r.relationType, r.to])).toEqual([["A", "knows", "B"]]);
    });
  });

  test("answers GET and DELETE with 405 naming POST, as the MCP routes do", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(new URL(path(uniqueWorkspace("ro")), open.url), { method });
      expect({ method, status: response.status, allow: response.headers.get("allow") }).toEqual({ method, status: 405, allow: "POST" });
      await response.arrayBuffer();
    }
  });

  test("a 2026-07-28 client sees the same list and the same refusal", async () => {
    const ws = await seed(writer);
    const client = new ModernClient({ name: "ro-2026", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new ModernTransport(new URL(path(ws), open.url)));
    // Less the app-only tools: a 2026-07-28 client that declares no MCP Apps extension is not listed them (docs/apps.md).
    const appOnly = new Set(ALL_TOOLS.filter((tool) => tool.app?.visibility?.includes("model") === false).map((tool) => tool.name));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(readToolsIn().filter((name) => !appOnly.has(name)));
      const before = await storageOf(ws);
      const result = await client.callTool({ name: "upsert_entity", arguments: withWorkspace(ws, bound, WRITE_ARGS.upsert_entity!(ws)) });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain("To change memory, connect to the same URL without /readonly");
      expect(await storageOf(ws)).toEqual(before);
    } finally {
      await client.close();
    }
  });
});

test("docs/tools.md's read-only table lists, per toolset, exactly what the read-only route offers with that toolset", async () => {
  const section = readFileSync("docs/tools.md", "utf8").split("## Read-only routes")[1]?.split("\n## ")[0] ?? "";
  for (const toolset of TOOLSETS) {
    const row = section.split("\n").find((line) => line.startsWith(`| \`${toolset}\` |`));
    const documented = [...(row?.split(" | ")[1] ?? "").matchAll(/\[`([a-z_]+)`\]/g)].map((match) => match[1]).sort();
    await withClient(open, `/api/mcp/readonly?toolsets=${toolset}`, {}, async (client) => {
      const offered = (await client.client.listTools()).tools.map((tool) => tool.name).sort();
      expect({ toolset, documented }).toEqual({ toolset, documented: offered });
    });
  }
});

describe.each(ROUTES)("$label with API keys", ({ path, bound }) => {
  test("a write key reads but cannot write there, though it writes on the route without /readonly", async () => {
    const ws = await seed(writer);
    await withClient(keyed, path(ws), bearer(KEYS.writer), async (client) => {
      expect((await client.client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(readToolsIn());
      await expectEveryWriteRefused(ws, bound, client.call);
      expect(ok<GraphOut>(await client.call("read_graph", withWorkspace(ws, bound, {}))).entities).toHaveLength(2);
    });
    const writable = path(ws).replace(/\/readonly$/, "");
    await withClient(keyed, writable, bearer(KEYS.writer), async (client) => {
      ok(await client.call("upsert_entity", withWorkspace(ws, bound, { name: "C", entityType: "note" })));
    });
  });

  test("a read key reads there, and its write is refused as on a read-only route", async () => {
    const ws = await seed(writer);
    await withClient(keyed, path(ws), { "x-api-key": KEYS.reader }, async (client) => {
      expect((await client.client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(readToolsIn());
      expect(ok<GraphOut>(await client.call("read_graph", withWorkspace(ws, bound, {}))).entities).toHaveLength(2);
      expect(failed(await client.call("upsert_entity", withWorkspace(ws, bound, WRITE_ARGS.upsert_entity!(ws)))).message).toBe(
        refusalMessage("upsert_entity"),
      );
    });
  });

  test("without a key: 401 whose challenge names the route's own RFC 9728 metadata, which describes it", async () => {
    const ws = uniqueWorkspace("ro");
    const refused = await refusal(keyed.url, path(ws));
    expect(refused.status).toBe(401);
    expect(refused.wwwAuthenticate).toBe(`Bearer resource_metadata="${keyed.url}/.well-known/oauth-protected-resource${path(ws)}"`);
    const metadata = await fetch(`${keyed.url}/.well-known/oauth-protected-resource${path(ws)}`);
    expect(metadata.status).toBe(200);
    expect(((await metadata.json()) as { resource: string }).resource).toBe(`${keyed.url}${path(ws)}`);
  });

  test("a key without a grant for the workspace is 403; a foreign browser origin is 403 before anything runs", async () => {
    if (bound) {
      const refused = await refusal(keyed.url, path(uniqueWorkspace("other")), bearer(KEYS.writer));
      expect(refused.status).toBe(403);
    }
    const foreign = await fetch(new URL(path(uniqueWorkspace("ro")), keyed.url), {
      method: "POST",
      headers: { ...bearer(KEYS.writer), origin: "https://evil.example.com", "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { message: string }).message).toMatch(/MEMORY_ALLOWED_ORIGINS/);
    const preflight = await fetch(new URL(path(uniqueWorkspace("ro")), keyed.url), {
      method: "OPTIONS",
      headers: { origin: "https://ui.example.com", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://ui.example.com");
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("mcp-name");
  });
});

describe("through the Azure Functions handler", () => {
  let registered: Map<string, HttpFunctionOptions>;

  beforeAll(async () => {
    process.env.MEMORY_STORAGE_CONNECTION_STRING = testConnectionString();
    process.env.MEMORY_AUTH = "none";
    registered = await registerFunctions();
  });

  afterAll(() => {
    delete process.env.MEMORY_STORAGE_CONNECTION_STRING;
    delete process.env.MEMORY_AUTH;
  });

  const TRIGGERS = [
    { trigger: "mcpReadOnly", route: "api/mcp/readonly", path: () => "/api/mcp/readonly", bound: false },
    {
      trigger: "workspaceMcpReadOnly",
      route: "api/workspaces/{workspaceName}/mcp/readonly",
      path: (ws: string) => `/api/workspaces/${ws}/mcp/readonly`,
      bound: true,
    },
  ];

  async function rpc(trigger: string, path: string, ws: string, method: string, params: Record<string, unknown>) {
    const handler = registered.get(trigger)!.handler as HttpHandler;
    const response = await invokeFunction(handler, {
      method: "POST",
      url: `http://localhost:7071${path}`,
      params: { workspaceName: ws },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    expect(response.status).toBe(200);
    return (JSON.parse(response.body) as { result: Record<string, unknown> }).result;
  }

  test.each(TRIGGERS)("$trigger is registered on $route, lists the read tools and refuses every write", async (route) => {
    expect(registered.get(route.trigger)).toMatchObject({ route: route.route, authLevel: "anonymous" });
    const ws = await seed(writer, "ro");
    const listed = (await rpc(route.trigger, route.path(ws), ws, "tools/list", {})) as { tools: { name: string }[] };
    expect(listed.tools.map((tool) => tool.name).sort()).toEqual(readToolsIn());
    await expectEveryWriteRefused(ws, route.bound, async (name, args) => {
      return (await rpc(route.trigger, route.path(ws), ws, "tools/call", { name, arguments: args })) as CallToolResult;
    });
    const graph = (await rpc(route.trigger, route.path(ws), ws, "tools/call", {
      name: "read_graph",
      arguments: withWorkspace(ws, route.bound, {}),
    })) as { structuredContent: GraphOut };
    expect(graph.structuredContent.entities.map((entity) => entity.name).sort()).toEqual(["A", "B"]);
  });
});
