import { readFileSync } from "node:fs";

import { describe, expect, test } from "@jest/globals";

import { hashApiKey } from "../src/http/auth/apiKeyVerifier.js";
import { connectClient, type Era, ok, type TestServer, uniqueWorkspace, withTestServers } from "./support/harness.js";

/**
 * The README's client configs work as pasted (issue #23): every VS Code `servers` entry and every `claude mcp add` line in
 * README.md is read from the file itself, its URL's origin pointed at a test server (the open local server for
 * http://127.0.0.1:7071, one with API keys for the deployed https://<app>… origin), its placeholders filled with a real
 * key, and then connected with a client of each protocol era, which lists the tools and makes a call.
 */
const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const KEY = "readme-key-0123456789";
const KEYS = JSON.stringify([{ id: "readme", sha256: hashApiKey(KEY), workspaces: ["*"], access: "write" }]);

interface PastedConfig {
  from: string;
  url: string;
  headers: Record<string, string>;
}

/** VS Code's `servers` entries in the README's JSON blocks. */
function vsCodeConfigs(): PastedConfig[] {
  const blocks = [...README.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => JSON.parse(match[1]!) as Record<string, unknown>);
  return blocks.flatMap((block) =>
    Object.entries((block.servers ?? {}) as Record<string, { type: string; url: string; headers?: Record<string, string> }>).map(
      ([name, server]) => {
        expect(server.type).toBe("http");
        return { from: `VS Code '${name}'`, url: server.url, headers: server.headers ?? {} };
      },
    ),
  );
}

/** The `claude mcp add --transport http NAME URL [--header "K: V"]…` commands in the README's shell blocks. */
function claudeCodeConfigs(): PastedConfig[] {
  const commands = README.replace(/\\\n\s*/g, " ").match(/claude mcp add [^\n]*/g) ?? [];
  return commands.map((command) => {
    const parts = /claude mcp add --transport http (\S+) (\S+)(.*)$/.exec(command);
    if (!parts) throw new Error(`Unexpected claude mcp add line: ${command}`);
    const headers = Object.fromEntries(
      [...parts[3]!.matchAll(/--header "([^:]+): ([^"]*)"/g)].map((header) => [header[1]!, header[2]!] as const),
    );
    return { from: `Claude Code '${parts[1]}'`, url: parts[2]!, headers };
  });
}

const PASTED = [...vsCodeConfigs(), ...claudeCodeConfigs()];

let open: TestServer;
let withKeys: TestServer;
withTestServers({ servers: { open: {}, withKeys: { env: { MEMORY_AUTH: "keys", MEMORY_API_KEYS: KEYS } } } }, (started) => {
  ({ open, withKeys } = started);
});

/** The pasted URL on a test server: the local origin on the open server, the deployed one on the server with keys. */
function onTestServer(config: PastedConfig): { baseUrl: string; path: string; headers: Record<string, string> } {
  // `<app>` stands for the deployment's name.
  const url = new URL(config.url.replace("<app>", "my-memory"));
  const local = url.origin === "http://127.0.0.1:7071";
  const headers = Object.fromEntries(
    Object.entries(config.headers).map(([name, value]) => [name, value.replace(/\$\{input:[^}]+\}|\$[A-Z_]+/g, KEY)]),
  );
  // The README's example workspace, made unique so parallel runs do not meet.
  const path = `${url.pathname.replace("/my-team/", `/${uniqueWorkspace("readme")}/`)}${url.search}`;
  return { baseUrl: local ? open.url : withKeys.url, path, headers };
}

describe("the README's client configs, as pasted", () => {
  test("the README has the configs this file checks: local and deployed, unbound and bound, VS Code and Claude Code", () => {
    expect(PASTED.map((config) => config.from)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^VS Code/), expect.stringMatching(/^Claude Code/)]),
    );
    expect(PASTED.some((config) => config.url.includes("/api/workspaces/"))).toBe(true);
    expect(PASTED.some((config) => config.url.startsWith("https://") && Object.keys(config.headers).length > 0)).toBe(true);
  });

  const cases = PASTED.flatMap((config) => (["2025", "2026"] as Era[]).map((era) => ({ ...config, era })));
  test.each(cases)("$from ($url) connects a $era-era client that lists and calls the tools", async ({ era, ...config }) => {
    const { baseUrl, path, headers } = onTestServer(config);
    const client = await connectClient(baseUrl, path, { headers, era });
    try {
      const { tools } = await client.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["create_entities", "read_graph", "search_nodes"]));
      const bound = path.includes("/api/workspaces/");
      const workspace = bound ? {} : { workspaceName: uniqueWorkspace("readme") };
      ok(
        await client.call("create_entities", { ...workspace, entities: [{ name: "Pasted", entityType: "note", observations: ["works"] }] }),
      );
      const graph = ok<{ entities: { name: string }[] }>(await client.call("read_graph", workspace));
      expect(graph.entities.map((entity) => entity.name)).toEqual(["Pasted"]);
    } finally {
      await client.close();
    }
  });

  test("a deployed config without its key is refused, so the key in the config is what lets it in", async () => {
    const deployed = PASTED.find((config) => config.url.startsWith("https://"))!;
    const { baseUrl, path } = onTestServer(deployed);
    await expect(connectClient(baseUrl, path, { headers: {} })).rejects.toThrow();
  });
});
