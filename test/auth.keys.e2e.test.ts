import { describe, expect, test } from "@jest/globals";

import { hashApiKey } from "../src/http/auth/apiKeyVerifier.js";
import { ALL_TOOLS } from "../src/mcp/tools/index.js";
import { refusal } from "./support/auth.js";
import { connectClient, failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withTestServers } from "./support/harness.js";
import type { GraphOut } from "./support/outputs.js";

/** Every read-only tool, by its annotation: what a read-only caller must see, and all it may see. */
const READ_ONLY_TOOLS = ALL_TOOLS.filter((tool) => tool.annotations.readOnlyHint)
  .map((tool) => tool.name)
  .sort();

/** API keys end to end: MEMORY_AUTH=keys, real SDK clients sending the key, real Azurite. */
const KEYS = { admin: "admin-key-0123456789", team: "team-key-0123456789", reader: "reader-key-0123456789" };
const ENTRIES = [
  { id: "admin", sha256: hashApiKey(KEYS.admin), workspaces: ["*"], access: "write" },
  { id: "team-writer", sha256: hashApiKey(KEYS.team), workspaces: ["team-*"], access: "write" },
  { id: "team-reader", sha256: hashApiKey(KEYS.reader), workspaces: ["team-*"], access: "read" },
];
const ALLOWED_ORIGIN = "https://memory-ui.example.com";
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

let server: TestServer;
let admin: McpTestClient;
let team: McpTestClient;

withTestServers(
  {
    servers: { server: { env: { MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify(ENTRIES), MEMORY_ALLOWED_ORIGINS: ALLOWED_ORIGIN } } },
    clients: { admin: { headers: bearer(KEYS.admin) }, team: { headers: bearer(KEYS.team) } },
  },
  (started) => void ({ server, admin, team } = started),
);

const SECRET = { name: "Project Nightjar", observation: "launches on 2031-04-01" };

/** A workspace outside team-*, holding data the team key must never see. */
async function seededOther(): Promise<string> {
  const other = uniqueWorkspace("other");
  ok(
    await admin.call("upsert_entity", {
      workspaceName: other,
      name: SECRET.name,
      entityType: "project",
      observations: [SECRET.observation],
    }),
  );
  return other;
}

describe("a team-* write key", () => {
  test("writes and reads a team workspace, sent as Authorization: Bearer or as x-api-key", async () => {
    const ws = uniqueWorkspace("team");
    ok(await team.call("upsert_entity", { workspaceName: ws, name: "Alice", entityType: "person" }));
    const viaHeader = await connectClient(server.url, `/api/workspaces/${ws}/mcp`, { headers: { "x-api-key": KEYS.team } });
    ok(await viaHeader.call("upsert_entity", { name: "Bob", entityType: "person" }));
    const graph = ok<GraphOut>(await viaHeader.call("read_graph"));
    expect(graph.entities.map((e) => e.name).sort()).toEqual(["Alice", "Bob"]);
    await viaHeader.close();
  });

  test("gets 403 on another workspace's bound route, before any MCP processing or storage request", async () => {
    const other = await seededOther();
    const before = server.requests();
    const refused = await refusal(server.url, `/api/workspaces/${other}/mcp`, bearer(KEYS.team));
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: "Forbidden", message: `This caller has no grant for workspace '${other}'.` });
    expect(server.requests() - before).toBe(0);
  });

  test("gets Forbidden on /api/mcp for another workspace, revealing nothing about it", async () => {
    const other = await seededOther();
    const missing = uniqueWorkspace("other");
    const before = server.requests();
    const results = [
      await team.call("read_graph", { workspaceName: other }),
      await team.call("get_entity_relations", { workspaceName: other, entityName: SECRET.name }),
      await team.call("upsert_entity", { workspaceName: other, name: SECRET.name, entityType: "x", observations: ["overwritten"] }),
    ];
    expect(server.requests() - before).toBe(0);
    for (const result of results) {
      const error = failed(result);
      expect(error.error).toBe("ForbiddenError");
      expect(error.message).toMatch(/^Forbidden: /);
      expect(JSON.stringify(result)).not.toMatch(/Nightjar|2031|project/);
    }
    // Same answer for an entity (and a workspace) that does not exist: nothing tells them apart.
    const absent = failed(await team.call("get_entity_relations", { workspaceName: missing, entityName: "Nobody" }));
    expect(absent.message).toBe(failed(results[1]!).message.replace(other, missing));
    // And the refused write changed nothing.
    const graph = ok<GraphOut>(await admin.call("read_graph", { workspaceName: other }));
    expect(graph.entities).toEqual([expect.objectContaining({ name: SECRET.name, observations: [SECRET.observation] })]);
  });
});

describe("a read key", () => {
  test("does not see write tools, and calling one is Forbidden and writes nothing", async () => {
    const ws = uniqueWorkspace("team");
    for (const path of ["/api/mcp", `/api/workspaces/${ws}/mcp`]) {
      const reader = await connectClient(server.url, path, { headers: bearer(KEYS.reader) });
      const { tools } = await reader.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(READ_ONLY_TOOLS);
      expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
      const write = failed(await reader.call("upsert_entity", { workspaceName: ws, name: "Mallory", entityType: "person" }));
      expect(write).toEqual({
        success: false,
        error: "ForbiddenError",
        message: "Forbidden: upsert_entity changes memory, and this caller has read-only access.",
      });
      expect(ok<GraphOut>(await reader.call("read_graph", { workspaceName: ws })).entities).toEqual([]);
      await reader.close();
    }
  });

  test("reads what a writer wrote", async () => {
    const ws = uniqueWorkspace("team");
    ok(await team.call("upsert_entity", { workspaceName: ws, name: "Shared fact", entityType: "note" }));
    const reader = await connectClient(server.url, "/api/mcp", { headers: { "x-api-key": KEYS.reader } });
    expect(ok<GraphOut>(await reader.call("read_graph", { workspaceName: ws })).entities.map((e) => e.name)).toEqual(["Shared fact"]);
    await reader.close();
  });
});

describe("refused credentials", () => {
  test.each([
    ["no credential", {}, undefined],
    ["an unknown key", bearer("not-a-configured-key"), "invalid_token"],
    ["an unknown x-api-key", { "x-api-key": "not-a-configured-key" }, "invalid_token"],
    ["a non-Bearer scheme", { Authorization: `Basic ${Buffer.from(`u:${KEYS.admin}`).toString("base64")}` }, "invalid_request"],
  ])("%s → 401 with WWW-Authenticate pointing at the resource metadata", async (_label, headers, code) => {
    const refused = await refusal(server.url, "/api/mcp", headers);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe("Unauthorized");
    expect(refused.wwwAuthenticate).toMatch(
      new RegExp(`^Bearer resource_metadata="${server.url}/\\.well-known/oauth-protected-resource/api/mcp"`),
    );
    if (code) expect(refused.wwwAuthenticate).toContain(`error="${code}"`);
    else expect(refused.wwwAuthenticate).not.toContain("error=");
  });

  test("the metadata names the resource and the header method, and no authorization server (keys only)", async () => {
    const response = await fetch(`${server.url}/.well-known/oauth-protected-resource/api/workspaces/team-x/mcp`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      resource: `${server.url}/api/workspaces/team-x/mcp`,
      bearer_methods_supported: ["header"],
      resource_name: "central-memory-mcp",
    });
  });
});

describe("anonymous endpoints and the Origin check", () => {
  test("health and ready answer without a credential and reveal no configuration", async () => {
    const health = await fetch(`${server.url}/api/health`);
    expect(health.status).toBe(200);
    expect(Object.keys((await health.json()) as object).sort()).toEqual(["status", "version"]);
    const ready = await fetch(`${server.url}/api/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready" });
  });

  test("a listed Origin is served; any other Origin is 403 even with a valid key", async () => {
    const ws = uniqueWorkspace("team");
    const listed = await connectClient(server.url, "/api/mcp", { headers: { ...bearer(KEYS.team), Origin: ALLOWED_ORIGIN } });
    ok(await listed.call("read_graph", { workspaceName: ws }));
    await listed.close();
    const refused = await refusal(server.url, "/api/mcp", { ...bearer(KEYS.team), Origin: "https://evil.example" });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/MEMORY_ALLOWED_ORIGINS/);
  });
});
