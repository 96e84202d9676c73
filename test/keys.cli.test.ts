import { afterAll, describe, expect, test } from "@jest/globals";

import { runKeysCommand } from "../src/cli/keysCommand.js";
import { refusal } from "./support/auth.js";
import { connectClient, ok, startTestServer, type TestServer, uniqueWorkspace } from "./support/harness.js";

/** `central-memory keys create`: called as the CLI dispatcher will call it, its output fed to a real server. */
async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runKeysCommand(args, { out: (text) => (out += `${text}\n`), err: (text) => (err += `${text}\n`) });
  return { code, out, err };
}

const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

describe("keys create", () => {
  test("prints a key once and an entry that, once configured, authenticates that key with its grant", async () => {
    const { code, out, err } = await run(["create", "--id", "ci-bot", "--workspaces", "team-*", "--access", "write"]);
    expect(code).toBe(0);
    expect(err).toBe("");
    const key = /^\s+(cmk_[A-Za-z0-9_-]{43})$/m.exec(out)?.[1];
    const entryLine = /^\s+(\{.*\})$/m.exec(out)?.[1];
    expect(key).toBeDefined();
    const entry = JSON.parse(entryLine!) as Record<string, unknown>;
    expect(entry).toEqual({ id: "ci-bot", sha256: expect.stringMatching(/^[0-9a-f]{64}$/), workspaces: ["team-*"], access: "write" });
    expect(out.split(key!).length - 1).toBe(1);
    expect(JSON.stringify(entry)).not.toContain(key!);

    const server = await startTestServer({ env: { MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify([entry]) } });
    servers.push(server);
    const client = await connectClient(server.url, "/api/mcp", { headers: { Authorization: `Bearer ${key}` } });
    ok(await client.call("upsert_entity", { workspaceName: uniqueWorkspace("team"), name: "Built", entityType: "artifact" }));
    await client.close();
    expect((await refusal(server.url, "/api/workspaces/other/mcp", { Authorization: `Bearer ${key}` })).status).toBe(403);
    expect((await refusal(server.url, "/api/mcp", { Authorization: `Bearer ${key}x` })).status).toBe(401);
  });

  test("every key is new, and several workspaces can be given", async () => {
    const first = await run(["create", "--id", "a", "--workspaces", "team-a,team-b", "--workspaces", "docs-*", "--access", "read"]);
    const second = await run(["create", "--id", "a", "--workspaces", "team-a", "--access", "read"]);
    const keyOf = (out: string) => /cmk_[A-Za-z0-9_-]{43}/.exec(out)?.[0];
    expect(keyOf(first.out)).not.toBe(keyOf(second.out));
    expect(first.out).toContain('"workspaces":["team-a","team-b","docs-*"],"access":"read"');
  });

  test.each([
    [["create", "--id", "ci-bot", "--workspaces", "team-*"], /Missing --access\./],
    [["create"], /Missing --id, --workspaces, --access\./],
    [["create", "--id", "ci bot", "--workspaces", "team-*", "--access", "write"], /--id: must be 1-64 letters/],
    [["create", "--id", "ci-bot", "--workspaces", "team/*", "--access", "write"], /--workspaces: must be a workspace name/],
    [["create", "--id", "ci-bot", "--access", "admin", "--workspaces", "x"], /--access/],
    [["create", "--id", "ci-bot", "--bogus"], /Unknown option '--bogus'/],
    [["rotate"], /Unknown keys command 'rotate'/],
  ])("%j is refused with a usage message and prints no key", async (args, message) => {
    const { code, out, err } = await run(args);
    expect(code).toBe(2);
    expect(err).toMatch(message);
    expect(err).toMatch(/Usage: central-memory keys create/);
    expect(out).not.toMatch(/cmk_/);
  });
});
