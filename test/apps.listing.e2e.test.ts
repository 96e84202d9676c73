import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { EXTENSION_ID, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from "@modelcontextprotocol/ext-apps/server";

import { hashApiKey } from "../src/http/auth/apiKeyVerifier.js";
import { APP_RESOURCE_URI } from "../src/mcp/appShapes.js";
import { ALL_TOOLS } from "../src/mcp/tools/index.js";
import { startTestIssuer, TEST_AUDIENCE, TEST_TENANT, type TestIssuer } from "./support/auth.js";
import { ROOT, viewerBuildOnce } from "./support/build.js";
import {
  connectClient,
  failed,
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
/**
 * A caller with mixed grants (an API key holds one grant; an Entra token can match several): write on appsw-*, read on
 * appsr-*. On /api/mcp it is listed the write tools (it may write somewhere); an app in an appsr-* workspace must not offer them.
 */
const MIXED_GRANTS = [
  { role: "Memory.AppsW.Write", workspaces: ["appsw-*"], access: "write" },
  { group: "g-appsr-readers", workspaces: ["appsr-*"], access: "read" },
];

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer();
});

let open: TestServer;
let keyed: TestServer;
let entra: TestServer;
let mcp: McpTestClient;
withTestServers(
  {
    servers: {
      open: {},
      keyed: { env: KEYS_ENV },
      entra: () => ({
        env: {
          MEMORY_AUTH: "entra",
          MEMORY_ENTRA_TENANT_ID: TEST_TENANT,
          MEMORY_ENTRA_AUDIENCE: TEST_AUDIENCE,
          MEMORY_ENTRA_JWKS_URL: issuer.jwksUrl,
          MEMORY_ENTRA_GRANTS: JSON.stringify(MIXED_GRANTS),
        },
      }),
    },
    clients: { mcp: { on: "open" } },
  },
  (started) => {
    ({ open, keyed, entra, mcp } = started);
  },
);
// Declared after the fixture, so the issuer stops after the servers.
afterAll(async () => {
  await issuer.close();
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

  test("read: the built HTML, its MIME type and a CSP that allows no other origin (the not-built error: test/unit/appResource.test.ts)", async () => {
    // beforeAll built it: the read is of the built file, never skipped.
    const file = join(ROOT, "dist", "viewer", "mcp-app.html");
    expect(existsSync(file)).toBe(true);
    const { contents } = await mcp.client.readResource({ uri: APP_RESOURCE_URI });
    expect(contents).toEqual([
      {
        uri: APP_RESOURCE_URI,
        mimeType: RESOURCE_MIME_TYPE,
        text: readFileSync(file, "utf8"),
        _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
      },
    ]);
    const html = (contents[0] as { text: string }).text;
    // The document's own CSP: nothing from anywhere, its one script and its styles by hash only, no network.
    const metas = [...html.matchAll(/<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/gi)].map((match) => match[1]!);
    expect(metas).toHaveLength(1);
    const policy = new Map(
      metas[0]!
        .split(";")
        .map((part) => part.trim().split(/\s+/))
        .filter((words) => words[0])
        .map(([name, ...sources]) => [name!, sources]),
    );
    expect(policy.get("default-src")).toEqual(["'none'"]);
    expect(policy.get("connect-src")).toEqual(["'none'"]);
    expect(metas[0]).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    const hashOnly = /^'sha256-[A-Za-z0-9+/]+=*'$/;
    for (const directive of ["script-src", "style-src"]) {
      const sources = policy.get(directive) ?? [];
      expect({ directive, sources: sources.filter((source) => !hashOnly.test(source)) }).toEqual({ directive, sources: [] });
    }
    // Each inline script and style is one the policy names, so the browser runs it.
    for (const tag of ["script", "style"]) {
      const blocks = [...html.matchAll(new RegExp(`<${tag}[^>]*>([\\s\\S]*?)</${tag}>`, "g"))].map((match) => match[1]!);
      expect({ tag, found: blocks.length > 0 }).toEqual({ tag, found: true });
      for (const block of blocks) {
        expect(policy.get(`${tag}-src`)).toContain(`'sha256-${createHash("sha256").update(block).digest("base64")}'`);
      }
    }
    // No address of another origin anywhere in the document (its CSP would refuse it; an app must carry everything it uses).
    expect(html.match(/https?:\/\/[^\s"'`<>)]*/gi) ?? []).toEqual([]);
    // Never served as one of the page's files.
    const asset = await fetch(new URL("/api/viewer/mcp-app.html", open.url));
    expect(asset.status).toBe(404);
    await asset.arrayBuffer();
  });
});

describe("a caller with mixed grants", () => {
  test("an app is offered the tools the caller may use in its own workspace, not what it may do elsewhere", async () => {
    const [writable, readable] = [uniqueWorkspace("appsw"), uniqueWorkspace("appsr")];
    const token = await issuer.mint({ oid: "oid-mixed", roles: ["Memory.AppsW.Write"], groups: ["g-appsr-readers"] });
    const mixed = await connectClient(entra.url, "/api/mcp", { headers: { Authorization: `Bearer ${token}` } });
    try {
      // It may write somewhere, so /api/mcp lists the write tools.
      const listed = (await mixed.client.listTools()).tools.map((tool) => tool.name);
      expect(listed).toEqual(expect.arrayContaining(["merge_entities", "restore_entity", "reject_duplicate_pair"]));
      ok(await mixed.call("create_entities", { workspaceName: writable, entities: [{ name: "A", entityType: "t", observations: ["a"] }] }));
      const writes = ALL_TOOLS.filter((tool) => !tool.annotations.readOnlyHint).map((tool) => tool.name);
      const inWritable = ok<{ tools: string[] }>(await mixed.call("show_memory_graph", { workspaceName: writable }));
      expect(inWritable.tools).toEqual(expect.arrayContaining(["merge_entities", "restore_entity", "reject_duplicate_pair"]));
      for (const name of ["show_memory_graph", "review_duplicates"]) {
        const inReadable = ok<{ tools: string[] }>(await mixed.call(name, { workspaceName: readable }));
        expect({ name, writes: inReadable.tools.filter((tool) => writes.includes(tool)) }).toEqual({ name, writes: [] });
        expect(inReadable.tools).toEqual(expect.arrayContaining([...APP_TOOLS, ...APP_ONLY, "find_path"]));
      }
      // The server refuses a write there whatever an app offered.
      expect(failed(await mixed.call("reject_duplicate_pair", { workspaceName: readable, a: "A", b: "B" })).error).toBe("ForbiddenError");
    } finally {
      await mixed.close();
    }
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
