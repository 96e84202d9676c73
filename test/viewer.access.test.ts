import { beforeAll, describe, expect, test } from "@jest/globals";

import { hashApiKey } from "../src/http/auth/apiKeyVerifier.js";
import { ALL_TOOLS } from "../src/mcp/tools/index.js";
import { viewerBuildOnce } from "./support/build.js";
import { type McpTestClient, ok, startTestServer, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";

/**
 * Who may open the viewer (issue #17), over plain HTTP against the real server with keys on: the page and its data route
 * are protected like the MCP route, the session cookie is bound to one workspace, and the data route only reads.
 */
const home = uniqueWorkspace("view-home");
const other = uniqueWorkspace("view-other");
const KEYS = { both: "viewer-both-key-0123456789", home: "viewer-home-key-0123456789", other: "viewer-other-key-0123456789" };
const ENTRIES = [
  { id: "both", sha256: hashApiKey(KEYS.both), workspaces: [home, other], access: "write" },
  { id: "home", sha256: hashApiKey(KEYS.home), workspaces: [home], access: "read" },
  { id: "other", sha256: hashApiKey(KEYS.other), workspaces: [other], access: "read" },
];
const READ_ONLY = ALL_TOOLS.filter((tool) => tool.annotations.readOnlyHint)
  .map((tool) => tool.name)
  .sort();

let server: TestServer;
let writer: McpTestClient;

const view = (workspace: string, rest = "") => `${server.url}/api/workspaces/${workspace}/view${rest}`;
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** One JSON-RPC call to a workspace's viewer data route, as the page makes it. */
function rpc(url: string, headers: Record<string, string>, method: string, params: Record<string, unknown> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
}

/** Exchanges a key for the session cookie of `workspace`; returns the Set-Cookie header and the `name=value` pair. */
async function session(workspace: string, key: string, base = server.url): Promise<{ setCookie: string; cookie: string }> {
  const response = await fetch(`${base}/api/workspaces/${workspace}/view/session`, { method: "POST", headers: bearer(key) });
  expect(response.status).toBe(204);
  const setCookie = response.headers.get("set-cookie") ?? "";
  return { setCookie, cookie: setCookie.split(";")[0]! };
}

beforeAll(viewerBuildOnce);

withServerAndClient(
  async (started, client) => {
    server = started;
    writer = client;
    ok(await writer.call("create_entities", { entities: [{ name: "Home fact", entityType: "note", observations: ["kept at home"] }] }));
  },
  {
    server: { env: { MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify(ENTRIES) } },
    client: { path: `/api/workspaces/${home}/mcp`, headers: bearer(KEYS.both) },
  },
);

describe("without credentials", () => {
  test("the page is refused (401) and its body is only the sign-in page, sent with the strict CSP", async () => {
    const response = await fetch(view(home));
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("content-security-policy")).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
        "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    );
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(await response.text()).not.toContain("Home fact");
  });

  test("the data route and the session exchange are refused (401)", async () => {
    const data = await rpc(view(home, "/mcp"), {}, "tools/list");
    expect(data.status).toBe(401);
    expect(((await data.json()) as { error: string }).error).toBe("Unauthorized");
    expect((await fetch(view(home, "/session"), { method: "POST" })).status).toBe(401);
  });

  test("the script and style are public code, gzipped; the page itself is not served as an asset", async () => {
    const script = await fetch(`${server.url}/api/viewer/app.js`, { headers: { "accept-encoding": "gzip" } });
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(script.headers.get("content-encoding")).toBe("gzip");
    expect((await fetch(`${server.url}/api/viewer/index.html`)).status).toBe(404);
  });
});

describe("a key for another workspace", () => {
  test("is refused (403) on the page, the data route and the session exchange", async () => {
    expect((await fetch(view(home), { headers: bearer(KEYS.other) })).status).toBe(403);
    expect((await rpc(view(home, "/mcp"), bearer(KEYS.other), "tools/list")).status).toBe(403);
    expect((await fetch(view(home, "/session"), { method: "POST", headers: bearer(KEYS.other) })).status).toBe(403);
  });
});

describe("the session cookie", () => {
  test("is HttpOnly, SameSite=Strict, short-lived and scoped to the workspace's viewer path", async () => {
    const { setCookie } = await session(home, KEYS.home);
    expect(setCookie).toMatch(/^cm_view=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+;/);
    expect(setCookie).toContain(`Path=/api/workspaces/${home}/view`);
    expect(setCookie).toContain("Max-Age=900");
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Strict");
    // Served over http here; over https it is also Secure.
    expect(setCookie).not.toContain("Secure");
  });

  test("opening the page with a credential header also sets it", async () => {
    const response = await fetch(view(home), { headers: bearer(KEYS.home) });
    expect(response.status).toBe(200);
    expect(response.headers.get("set-cookie")).toMatch(/^cm_view=.*HttpOnly/);
  });

  test("opens the data route of its workspace, which lists only the read-only tools", async () => {
    const { cookie } = await session(home, KEYS.home);
    const response = await rpc(view(home, "/mcp"), { cookie }, "tools/list");
    expect(response.status).toBe(200);
    const { result } = (await response.json()) as { result: { tools: { name: string }[] } };
    expect(result.tools.map((tool) => tool.name).sort()).toEqual(READ_ONLY);
    // Tool answers are gzipped for the browser.
    expect(response.headers.get("content-encoding")).toBe("gzip");
  });

  test("minted for another workspace is refused, even for a caller with a grant there", async () => {
    const { cookie } = await session(other, KEYS.both);
    const response = await rpc(view(home, "/mcp"), { cookie }, "tools/list");
    expect(response.status).toBe(401);
    expect((await fetch(view(home), { headers: { cookie } })).status).toBe(401);
  });

  test("altered by a single character is refused", async () => {
    const { cookie } = await session(home, KEYS.home);
    const last = cookie.at(-1) === "A" ? "B" : "A";
    expect((await rpc(view(home, "/mcp"), { cookie: cookie.slice(0, -1) + last }, "tools/list")).status).toBe(401);
  });

  test("is never accepted by the MCP route itself", async () => {
    const { cookie } = await session(home, KEYS.both);
    expect((await rpc(`${server.url}/api/workspaces/${home}/mcp`, { cookie }, "tools/list")).status).toBe(401);
  });

  test("from another origin, the data route and the exchange are refused before anything runs (403)", async () => {
    const { cookie } = await session(home, KEYS.home);
    const origin = { origin: "https://evil.example" };
    expect((await rpc(view(home, "/mcp"), { cookie, ...origin }, "tools/list")).status).toBe(403);
    expect((await fetch(view(home, "/session"), { method: "POST", headers: { ...bearer(KEYS.home), ...origin } })).status).toBe(403);
  });

  test("is accepted by another instance sharing the storage, until that instance no longer has the key", async () => {
    const { cookie } = await session(home, KEYS.home);
    const withKey = await startTestServer({ env: { MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify(ENTRIES) } });
    const withoutKey = await startTestServer({ env: { MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify([ENTRIES[0]]) } });
    try {
      expect((await rpc(`${withKey.url}/api/workspaces/${home}/view/mcp`, { cookie }, "tools/list")).status).toBe(200);
      expect((await rpc(`${withoutKey.url}/api/workspaces/${home}/view/mcp`, { cookie }, "tools/list")).status).toBe(401);
    } finally {
      await withKey.close();
      await withoutKey.close();
    }
  });

  test("ends at once when its key's secret is replaced under the same id, on any instance", async () => {
    const { cookie } = await session(home, KEYS.home);
    // The same entries, with entry "home" holding a new secret: what an operator does to rotate a leaked key.
    const rotated = ENTRIES.map((entry) =>
      entry.id === "home" ? { ...entry, sha256: hashApiKey("viewer-home-key-rotated-0123") } : entry,
    );
    const afterRotation = await startTestServer({ env: { MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify(rotated) } });
    try {
      const base = `${afterRotation.url}/api/workspaces/${home}`;
      const data = await rpc(`${base}/view/mcp`, { cookie }, "tools/list");
      expect(data.status).toBe(401);
      const body = (await data.json()) as { error: string; message: string };
      expect(body.error).toBe("Unauthorized");
      expect(body.message).toMatch(/key was changed or removed\. Sign in again/);
      expect((await fetch(`${base}/view`, { headers: { cookie } })).status).toBe(401);
      // The new secret signs in again; the old one is refused.
      expect((await fetch(`${base}/view/session`, { method: "POST", headers: bearer("viewer-home-key-rotated-0123") })).status).toBe(204);
      expect((await fetch(`${base}/view/session`, { method: "POST", headers: bearer(KEYS.home) })).status).toBe(401);
    } finally {
      await afterRotation.close();
    }
    // The instance that still holds the old secret keeps the session.
    expect((await rpc(view(home, "/mcp"), { cookie }, "tools/list")).status).toBe(200);
  });
});

describe("the data route only reads", () => {
  test("a write tool does not exist there, even for a caller with write access, and nothing changes", async () => {
    const { cookie } = await session(home, KEYS.both);
    const response = await rpc(view(home, "/mcp"), { cookie }, "tools/call", {
      name: "delete_entities",
      arguments: { entityNames: ["Home fact"] },
    });
    const { result } = (await response.json()) as { result: { isError: boolean; content: { text: string }[] } };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain("Unknown tool 'delete_entities'");
    const still = ok<{ entities: { name: string }[] }>(await writer.call("open_nodes", { names: ["Home fact"] }));
    expect(still.entities.map((entity) => entity.name)).toEqual(["Home fact"]);
  });

  test("a read tool answers from the same code an agent's call runs", async () => {
    const { cookie } = await session(home, KEYS.home);
    const response = await rpc(view(home, "/mcp"), { cookie }, "tools/call", { name: "open_nodes", arguments: { names: ["Home fact"] } });
    const { result } = (await response.json()) as { result: { structuredContent: unknown } };
    expect(result.structuredContent).toEqual(ok(await writer.call("open_nodes", { names: ["Home fact"] })));
  });
});

describe("with auth off (MEMORY_AUTH=none)", () => {
  test("the page and its data open with no credential, and no cookie is set", async () => {
    const open = await startTestServer();
    try {
      const page = await fetch(`${open.url}/api/workspaces/${home}/view`);
      expect(page.status).toBe(200);
      expect(page.headers.get("set-cookie")).toBeNull();
      expect((await rpc(`${open.url}/api/workspaces/${home}/view/mcp`, {}, "tools/list")).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});
