import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, afterEach, beforeAll, describe, expect, test } from "@jest/globals";

import { buildOnce, ROOT as root } from "./support/build.js";
import { groupMembers, reap, reapAll, spawnChild, waitForOutput } from "./support/children.js";
import { connectClient, ok, uniqueWorkspace } from "./support/harness.js";

/**
 * A signal sent to the `npm start` process, as IDE task runners and process managers send it,
 * must reach the server: nothing may be left running (the server, its embedded Azurite) and what
 * was written must be saved. The build runs once here; `--ignore-scripts` then skips the prestart
 * build, and only the prestart build, on each start. Each `npm start` is started by test/support/children.ts, which reaps its
 * process group after the file whatever the outcome (a failed test here once left a server running, and jest with it).
 */
let folder: string;

beforeAll(async () => {
  await buildOnce();
  folder = mkdtempSync(join(tmpdir(), "central-memory-signals-"));
}, 300_000);

// A test that failed half-way left its server running on the data folder the next test starts on: end it first.
afterEach(() => reapAll(), 30_000);

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

interface NpmStart {
  child: ChildProcess;
  url: string;
}

/** What each server of the running test printed: added to its failure, so a failure under load can be told apart. */
const printed: string[] = [];

/** Runs a test's body; if it fails, its error carries what the servers printed. */
async function explained(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    if (error instanceof Error) error.message += `\n--- what npm start printed ---\n${printed.join("\n---\n")}`;
    throw error;
  } finally {
    printed.length = 0;
  }
}

/** `npm start` in its own process group (the group id is npm's pid), with the embedded Azurite's data in `folder`. */
async function npmStart(): Promise<NpmStart> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: "0", HOST: "127.0.0.1", MEMORY_AZURITE_FOLDER: folder };
  for (const key of ["MEMORY_STORAGE_CONNECTION_STRING", "MEMORY_STORAGE_TABLE_ENDPOINT", "AzureWebJobsStorage", "MEMORY_AUTH"])
    delete env[key];
  const child = spawnChild("npm", ["start", "--ignore-scripts"], { cwd: root, env });
  const index = printed.push("") - 1;
  for (const stream of [child.stdout!, child.stderr!]) stream.on("data", (chunk: Buffer) => (printed[index] += chunk.toString()));
  // The banner ends with the Claude Code line: wait for all of it (generously: npm and node start slowly under load).
  const output = await waitForOutput(child, /listening on http:\/\/\S+[\s\S]*claude mcp add/, 90_000);
  return { child, url: /listening on (http:\/\/[^\s]+)/.exec(output)![1]! };
}

/**
 * Signals npm alone, then waits for every process of its group to end; after a grace period (npm may never exit), kills
 * what is left and says what it was, so a failing run strands nothing either.
 */
async function signalAndWait(start: NpmStart, signal: NodeJS.Signals): Promise<string[]> {
  const groupId = start.child.pid!;
  process.kill(groupId, signal);
  for (let waited = 0; waited < 30_000 && groupMembers(groupId).length > 0; waited += 100)
    await new Promise((done) => setTimeout(done, 100));
  const left = groupMembers(groupId).map((member) => `${member.pid} ${member.command}`);
  await reap(start.child, "SIGKILL", 0);
  return left;
}

describe.each(["SIGTERM", "SIGINT"] as const)("%s sent to the npm start process", (signal) => {
  test(
    "stops the server and its embedded Azurite, leaving no process, and the data written is there on the next start",
    () =>
      explained(async () => {
        const ws = uniqueWorkspace("signal");
        const first = await npmStart();
        const client = await connectClient(first.url);
        ok(await client.call("upsert_entity", { workspaceName: ws, name: "Saved", entityType: "t", observations: [signal] }));
        await client.close();

        expect(await signalAndWait(first, signal)).toEqual([]);
        await expect(fetch(`${first.url}/api/health`)).rejects.toThrow();
        expect(() => readFileSync(join(folder, "endpoint.json"))).toThrow(); // removed by a clean stop

        const second = await npmStart();
        const again = await connectClient(second.url);
        const graph = ok<{ entities: { name: string; observations: string[] }[] }>(await again.call("read_graph", { workspaceName: ws }));
        expect(graph.entities).toEqual([expect.objectContaining({ name: "Saved", observations: [signal] })]);
        await again.close();
        expect(await signalAndWait(second, signal)).toEqual([]);
      }),
    240_000,
  );
});

describe("package scripts", () => {
  test("each script that runs a server or a command builds (only what changed) in its pre script and execs node, so signals reach node", () => {
    const { scripts } = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> };
    for (const name of ["start", "cli", "bench", "bench:import", "load"]) {
      expect(scripts[`pre${name}`]).toBe("node scripts/build.mjs");
      expect(scripts[name]).toMatch(/^exec node dist\/\S+\.js$/);
    }
  });
});
