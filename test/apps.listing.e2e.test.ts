import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { beforeAll, describe, expect, test } from "@jest/globals";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { EXTENSION_ID, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from "@modelcontextprotocol/ext-apps/server";

import { hashApiKey } from "../src/http/auth/apiKeyVerifier.js";
import { APP_RESOURCE_URI } from "../src/mcp/appShapes.js";
import { ALL_TOOLS } from "../src/mcp/tools/index.js";
import { ROOT, viewerBuildOnce } from "./support/build.js";
import {
  connectClient,
  type McpTestClient,
  MODERN_PROTOCOL_VERSION,
  ok,
  type TestServer,
  uniqueWorkspace,
  withTestServers,
} from "./support/harness.js";

/**
 * How the MCP Apps (docs/apps.md) are offered: each app tool's `_meta` on tools/list, the app-only tools hidden from a
 * 2026-07-28 client that declares no MCP Apps extension and listed to one that does (and to a 2025-era client, which has no
 * envelope to say), the `ui://` resource on resources/list and resources/read, and a reader's app offered no write tools.
 */
const KEYS = { writer: "apps-writer-key-0123456789", reader: "apps-reader-key-0123456789" };
const KEYS_ENV = {
  MEMORY_AUTH: "keys",
  MEMORY_API_KEYS: JSON.stringify([
    { id: "apps-writer", sha256: hashApiKey(KEYS.writer), workspaces: ["apps-*"], access: "write" },
    { id: "apps-reader", sha256: hashApiKey(KEYS.reader), workspaces: ["apps-*"], access: "read" },
  ]),
};
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

let open: TestServer;
let keyed: TestServer;
let mcp: McpTestClient;
withTestServers({ servers: { open: {}, keyed: { env: KEYS_ENV } }, clients: { mcp: { on: "open" } } }, (started) => {
  ({ open, keyed, mcp } = started);
});

const APP_TOOLS = ["show_memory_graph", "review_duplicates", "show_entity_timeline"];
const APP_ONLY = ["app_expand", "app_filter", "app_entity_details"];

/** A 2026-07-28 client, declaring the MCP Apps extension or not. */
async function modernClient(url: string, path: string, withApps: boolean): Promise<ModernClient> {
  const client = new ModernClient(
    { name: "apps-2026", version: "1.0.0" },
    {
      versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } },
      ...(withApps ? { capabilities: { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } } } : {}),
    },
  );
  await client.connect(new ModernTransport(new URL(path, url)));
  return client;
}

describe("tools/list", () => {
  test("each app tool carries _meta.ui.resourceUri (and the legacy ui/resourceUri), app-only ones visibility ['app']; other tools no _meta", async () => {
    const { tools } = await mcp.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of APP_TOOLS) {
      expect({ name, meta: byName.get(name)?._meta }).toEqual({
        name,
        meta: { ui: { resourceUri: APP_RESOURCE_URI }, [RESOURCE_URI_META_KEY]: APP_RESOURCE_URI },
      });
    }
    // A 2025-era request has no envelope to say whether its client renders apps: the app-only tools are listed, marked.
    for (const name of APP_ONLY) {
      expect({ name, meta: byName.get(name)?._meta }).toEqual({
        name,
        meta: { ui: { resourceUri: APP_RESOURCE_URI, visibility: ["app"] }, [RESOURCE_URI_META_KEY]: APP_RESOURCE_URI },
      });
    }
    const others = tools.filter((tool) => ![...APP_TOOLS, ...APP_ONLY].includes(tool.name));
    expect(others.length).toBe(ALL_TOOLS.length - 6);
    expect(others.filter((tool) => tool._meta !== undefined).map((tool) => tool.name)).toEqual([]);
    expect(APP_TOOLS.concat(APP_ONLY).every((name) => byName.get(name)!.annotations?.readOnlyHint === true)).toBe(true);
  });

  test("a 2026-07-28 client without the MCP Apps extension is not listed the app-only tools; one with it is, and may call them", async () => {
    const ws = uniqueWorkspace("apps");
    ok(await mcp.call("create_entities", { workspaceName: ws, entities: [{ name: "A", entityType: "t", observations: ["a"] }] }));
    for (const path of ["/api/mcp", `/api/workspaces/${ws}/mcp`]) {
      const plain = await modernClient(open.url, path, false);
      const apps = await modernClient(open.url, path, true);
      try {
        const plainNames = (await plain.listTools()).tools.map((tool) => tool.name);
        const appNames = (await apps.listTools()).tools.map((tool) => tool.name);
        expect({ path, hidden: APP_ONLY.filter((name) => plainNames.includes(name)) }).toEqual({ path, hidden: [] });
        expect({ path, shown: APP_TOOLS.filter((name) => plainNames.includes(name)) }).toEqual({ path, shown: APP_TOOLS });
        expect({ path, listed: [...appNames].sort() }).toEqual({ path, listed: ALL_TOOLS.map((tool) => tool.name).sort() });
        const appOnly = (await apps.listTools()).tools.find((tool) => tool.name === "app_expand")!;
        expect(appOnly._meta).toEqual({
          ui: { resourceUri: APP_RESOURCE_URI, visibility: ["app"] },
          [RESOURCE_URI_META_KEY]: APP_RESOURCE_URI,
        });
        const args = path === "/api/mcp" ? { workspaceName: ws, entityName: "A" } : { entityName: "A" };
        const expanded = await apps.callTool({ name: "app_expand", arguments: args });
        expect(expanded.isError).toBeFalsy();
        expect((expanded.structuredContent as { entities: { name: string }[] }).entities.map((entity) => entity.name)).toEqual(["A"]);
      } finally {
        await plain.close();
        await apps.close();
      }
    }
  });
});

describe("the ui:// resource", () => {
  beforeAll(() => viewerBuildOnce(), 180_000);

  test("listed when the apps toolset is offered, on both routes and both eras", async () => {
    const expected = { uri: APP_RESOURCE_URI, mimeType: RESOURCE_MIME_TYPE, name: "memory-viewer" };
    expect((await mcp.client.listResources()).resources).toEqual([expect.objectContaining(expected)]);
    const bound = await connectClient(open.url, `/api/workspaces/${uniqueWorkspace("apps")}/mcp`, { era: "2026" });
    try {
      expect((await bound.client.listResources()).resources.map((resource) => resource.uri)).toEqual([
        "memory://knowledge-graph",
        APP_RESOURCE_URI,
      ]);
    } finally {
      await bound.close();
    }
    const noApps = await connectClient(open.url, "/api/mcp?toolsets=core");
    try {
      expect((await noApps.client.listResources()).resources).toEqual([]);
    } finally {
      await noApps.close();
    }
  });

  test("read: the built HTML, its MIME type and a CSP that allows no other origin; not built, an error saying to build it", async () => {
    const file = join(ROOT, "dist", "viewer", "mcp-app.html");
    if (existsSync(file)) {
      const { contents } = await mcp.client.readResource({ uri: APP_RESOURCE_URI });
      expect(contents).toEqual([
        {
          uri: APP_RESOURCE_URI,
          mimeType: RESOURCE_MIME_TYPE,
          text: readFileSync(file, "utf8"),
          _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
        },
      ]);
    } else {
      await expect(mcp.client.readResource({ uri: APP_RESOURCE_URI })).rejects.toThrow(/not built on this server: run `npm run build`/);
    }
    // Never served as one of the page's files.
    const asset = await fetch(new URL("/api/viewer/mcp-app.html", open.url));
    expect(asset.status).toBe(404);
    await asset.arrayBuffer();
  });
});

describe("a reader's grant", () => {
  test("its app is offered no write tool, it may read the app resource, and a write is refused", async () => {
    const ws = uniqueWorkspace("apps");
    const writer = await connectClient(keyed.url, "/api/mcp", { headers: bearer(KEYS.writer) });
    const reader = await connectClient(keyed.url, "/api/mcp", { headers: bearer(KEYS.reader) });
    try {
      ok(await writer.call("create_entities", { workspaceName: ws, entities: [{ name: "A", entityType: "t", observations: ["a"] }] }));
      const writes = ALL_TOOLS.filter((tool) => !tool.annotations.readOnlyHint).map((tool) => tool.name);
      const readerView = ok<{ tools: string[] }>(await reader.call("show_memory_graph", { workspaceName: ws }));
      expect(readerView.tools.filter((name) => writes.includes(name))).toEqual([]);
      expect(readerView.tools).toEqual(expect.arrayContaining([...APP_TOOLS, ...APP_ONLY, "find_path"]));
      const writerView = ok<{ tools: string[] }>(await writer.call("show_memory_graph", { workspaceName: ws }));
      expect(writerView.tools).toEqual(expect.arrayContaining(["merge_entities", "restore_entity"]));
      const timeline = ok<{ tools: string[] }>(await reader.call("show_entity_timeline", { workspaceName: ws, entityName: "A" }));
      expect(timeline.tools).not.toContain("restore_entity");
      // The app cannot do what the grant does not allow, whatever it offers: the server refuses.
      const refused = await reader.call("restore_entity", { workspaceName: ws, entityName: "A" });
      expect(refused.isError).toBe(true);
      expect((await reader.client.listResources()).resources.map((resource) => resource.uri)).toContain(APP_RESOURCE_URI);
    } finally {
      await writer.close();
      await reader.close();
    }
  });
});
