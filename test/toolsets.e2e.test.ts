import { describe, expect, test } from "@jest/globals";

import { readSettings } from "../src/config/settings.js";
import { TOOLSETS } from "../src/mcp/tool.js";
import { ALL_TOOLS } from "../src/mcp/tools/index.js";
import {
  connectClient,
  failed,
  type McpTestClient,
  ok,
  startTestServer,
  type TestServer,
  uniqueWorkspace,
  withTestServer,
} from "./support/harness.js";

/** Toolsets: MEMORY_TOOLSETS sets the default, `?toolsets=` on the MCP URL chooses per connection. */

let server: TestServer;

withTestServer((started) => {
  server = started;
});

const namesIn = (...toolsets: string[]) =>
  ALL_TOOLS.filter((tool) => tool.toolsets.some((toolset) => toolsets.includes(toolset)))
    .map((tool) => tool.name)
    .sort();

async function listed(client: McpTestClient): Promise<string[]> {
  return (await client.client.listTools()).tools.map((tool) => tool.name).sort();
}

async function withClient<T>(url: string, path: string, work: (client: McpTestClient) => Promise<T>): Promise<T> {
  const client = await connectClient(url, path);
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

/** A raw MCP POST, to see the HTTP status the handler answers before any MCP processing. */
function post(path: string) {
  return fetch(new URL(path, server.url), {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
}

describe("toolsets", () => {
  test("every tool is in a known toolset, and by default every toolset is offered", async () => {
    for (const tool of ALL_TOOLS) {
      expect(tool.toolsets.length).toBeGreaterThan(0);
      for (const toolset of tool.toolsets) expect(TOOLSETS).toContain(toolset);
    }
    expect(namesIn("core")).toEqual(["get_entity_relations", "read_graph", "upsert_entity", "upsert_relation"]);
    await withClient(server.url, "/api/mcp", async (client) =>
      expect(await listed(client)).toEqual(ALL_TOOLS.map((tool) => tool.name).sort()),
    );
  });

  test("?toolsets= narrows tools/list on both routes", async () => {
    await withClient(server.url, "/api/mcp?toolsets=graph", async (client) => expect(await listed(client)).toEqual(namesIn("graph")));
    await withClient(server.url, `/api/workspaces/${uniqueWorkspace()}/mcp?toolsets=core, graph`, async (client) =>
      expect(await listed(client)).toEqual(namesIn("core", "graph")),
    );
  });

  test("calling a tool of a toolset the connection did not select is a ValidationError naming the toolset, and does nothing", async () => {
    const ws = uniqueWorkspace();
    await withClient(server.url, "/api/mcp?toolsets=graph", async (client) => {
      const error = failed(await client.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "t" }));
      expect(error.error).toBe("ValidationError");
      expect(error.message).toBe(
        "upsert_entity is in the toolset 'core', which this connection did not select (toolsets: graph). " +
          "Add 'core' to ?toolsets= on the MCP URL, or leave toolsets out for the server's default toolsets.",
      );
      expect(ok<{ entities: unknown[] }>(await client.call("open_nodes", { workspaceName: ws, names: ["A"] })).entities).toEqual([]);
    });
  });

  test.each([
    [
      "an unknown toolset",
      "?toolsets=graph,everything",
      "The toolsets URL parameter names unknown toolset 'everything'. Toolsets: core, graph, tags, history, search, navigate, curate, admin, apps.",
    ],
    [
      "no toolset at all",
      "?toolsets=",
      "The toolsets URL parameter names no toolset. Toolsets: core, graph, tags, history, search, navigate, curate, admin, apps.",
    ],
  ])("%s in the URL is HTTP 400 with a ValidationError", async (_label, query, message) => {
    for (const path of [`/api/mcp${query}`, `/api/workspaces/${uniqueWorkspace()}/mcp${query}`]) {
      const response = await post(path);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: "ValidationError", message });
    }
  });
});

describe("the apps toolset (docs/apps.md)", () => {
  test("?toolsets=apps lists the tools that open an app and the app-only tools, and the app's ui:// resource", async () => {
    const APPS = ["app_entity_details", "app_expand", "app_filter", "review_duplicates", "show_entity_timeline", "show_memory_graph"];
    expect(namesIn("apps")).toEqual(APPS);
    await withClient(server.url, "/api/mcp?toolsets=apps", async (client) => {
      expect(await listed(client)).toEqual(APPS);
      const { resources } = await client.client.listResources();
      expect(resources.map((resource) => resource.uri)).toEqual(["ui://central-memory/viewer.html"]);
    });
    // Without the apps toolset, no app resource is listed.
    await withClient(server.url, "/api/mcp?toolsets=graph", async (client) => {
      expect((await client.client.listResources()).resources).toEqual([]);
    });
  });
});

describe("the official server's tool set is complete on its own", () => {
  const OFFICIAL = [
    "add_observations",
    "create_entities",
    "create_relations",
    "delete_entities",
    "delete_observations",
    "delete_relations",
    "open_nodes",
    "read_graph",
    "search_nodes",
  ];

  test("read_graph is in both core and graph, so ?toolsets=graph lists all nine official tools", async () => {
    expect(namesIn("core")).toContain("read_graph");
    expect(namesIn("graph")).toEqual(OFFICIAL);
    await withClient(server.url, "/api/mcp?toolsets=graph", async (client) => expect(await listed(client)).toEqual(OFFICIAL));
    await withClient(server.url, `/api/workspaces/${uniqueWorkspace()}/mcp?toolsets=graph,tags`, async (client) =>
      expect(await listed(client)).toEqual(namesIn("graph", "tags")),
    );
  });

  test.each(["graph", "graph,tags"])("on ?toolsets=%s, read_graph reads the graph written there", async (toolsets) => {
    const ws = uniqueWorkspace();
    await withClient(server.url, `/api/workspaces/${ws}/mcp?toolsets=${toolsets}`, async (client) => {
      ok(await client.call("create_entities", { entities: [{ name: "A", entityType: "t", observations: ["x"] }] }));
      const graph = ok<{ entities: { name: string; observations: string[] }[] }>(await client.call("read_graph", {}));
      expect(graph.entities).toMatchObject([{ name: "A", observations: ["x"] }]);
    });
  });

  test("a tool in several toolsets is refused only when the connection selected none of them, and the message names them all", async () => {
    await withClient(server.url, "/api/mcp?toolsets=tags", async (client) => {
      const error = failed(await client.call("read_graph", { workspaceName: uniqueWorkspace() }));
      expect(error.error).toBe("ValidationError");
      expect(error.message).toBe(
        "read_graph is in the toolsets 'core' and 'graph', neither of which this connection selected (toolsets: tags). " +
          "Add one of them to ?toolsets= on the MCP URL, or leave toolsets out for the server's default toolsets.",
      );
    });
  });
});

describe("MEMORY_TOOLSETS", () => {
  test("sets the default toolsets, which a connection's ?toolsets= replaces", async () => {
    const coreOnly = await startTestServer({ env: { MEMORY_TOOLSETS: "core" } });
    try {
      await withClient(coreOnly.url, "/api/mcp", async (client) => {
        expect(await listed(client)).toEqual(namesIn("core"));
        expect(failed(await client.call("search_nodes", { workspaceName: uniqueWorkspace(), query: "x" })).message).toMatch(
          /in the toolset 'graph'/,
        );
      });
      await withClient(coreOnly.url, "/api/mcp?toolsets=graph", async (client) => expect(await listed(client)).toEqual(namesIn("graph")));
    } finally {
      await coreOnly.close();
    }
  });

  test("unset or blank means every group; an unknown group is refused at start with a message naming it", () => {
    const readDefaultToolsets = (env: NodeJS.ProcessEnv) => readSettings(env, "local").toolsets;
    expect([...readDefaultToolsets({})].sort()).toEqual([
      "admin",
      "apps",
      "core",
      "curate",
      "graph",
      "history",
      "navigate",
      "search",
      "tags",
    ]);
    expect([...readDefaultToolsets({ MEMORY_TOOLSETS: "  " })].sort()).toEqual([
      "admin",
      "apps",
      "core",
      "curate",
      "graph",
      "history",
      "navigate",
      "search",
      "tags",
    ]);
    expect([...readDefaultToolsets({ MEMORY_TOOLSETS: "tags,graph" })].sort()).toEqual(["graph", "tags"]);
    expect(() => readDefaultToolsets({ MEMORY_TOOLSETS: "core,memory" })).toThrow(
      "MEMORY_TOOLSETS names unknown toolset 'memory'. Toolsets: core, graph, tags, history, search, navigate, curate, admin, apps.",
    );
  });
});
