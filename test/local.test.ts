import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";

import { buildOnce, ROOT as root } from "./support/build.js";
import { spawnChild, waitForExit, waitForOutput } from "./support/children.js";
import { connectClient, ok, uniqueWorkspace } from "./support/harness.js";

/**
 * `npm start` as a user runs it: the built local server with no storage settings, which starts
 * an embedded Azurite keeping data in ./.azurite (here: a temp working directory).
 */
const entry = join(root, "dist/src/local/main.js");
let workdir: string;

beforeAll(async () => {
  await buildOnce();
  workdir = mkdtempSync(join(tmpdir(), "central-memory-local-"));
}, 300_000);

afterAll(() => {
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

/** The built server as a reaped child (test/support/children.ts), once its banner is out. */
async function startLocal(): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: "0", HOST: "127.0.0.1" };
  for (const key of ["MEMORY_STORAGE_CONNECTION_STRING", "MEMORY_STORAGE_TABLE_ENDPOINT", "AzureWebJobsStorage"]) delete env[key];
  const child = spawnChild(process.execPath, [entry], { cwd: workdir, env });
  // The banner ends with the Claude Code line: wait for all of it.
  const output = await waitForOutput(child, /listening on http:\/\/\S+[\s\S]*claude mcp add/, 90_000);
  return { child, url: /listening on (http:\/\/[^\s]+)/.exec(output)![1]!, output: () => output };
}

function stop(child: ChildProcess): Promise<number | NodeJS.Signals> {
  const exited = waitForExit(child, 60_000);
  child.kill("SIGINT");
  return exited;
}

describe("npm start (local server with embedded Azurite)", () => {
  test("prints the MCP URL and client configs, serves MCP, stops cleanly on Ctrl-C, and keeps data across restarts", async () => {
    const ws = uniqueWorkspace("local");
    const first = await startLocal();
    expect(first.output()).toContain(`${first.url}/api/mcp`);
    expect(first.output()).toContain('"type": "http"');
    expect(first.output()).toContain("claude mcp add --transport http");
    expect(first.output()).toMatch(/embedded Azurite/);

    const client = await connectClient(first.url);
    ok(await client.call("upsert_entity", { workspaceName: ws, name: "Persisted", entityType: "t", observations: ["survives restarts"] }));
    await client.close();
    expect(await stop(first.child)).toBe(0);
    expect(existsSync(join(workdir, ".azurite"))).toBe(true);
    // Nothing keeps listening once the process is gone: the embedded Azurite ran in-process.
    await expect(fetch(`${first.url}/api/health`)).rejects.toThrow();

    const second = await startLocal();
    const again = await connectClient(second.url);
    const graph = ok<{ entities: { name: string; observations: string[] }[] }>(await again.call("read_graph", { workspaceName: ws }));
    expect(graph.entities).toEqual([expect.objectContaining({ name: "Persisted", observations: ["survives restarts"] })]);
    await again.close();
    expect(await stop(second.child)).toBe(0);
  }, 240_000);
});
