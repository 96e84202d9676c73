import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { connectClient, ok, uniqueWorkspace } from "./support/harness.js";

/**
 * A signal sent to the `npm start` process, as IDE task runners and process managers send it,
 * must reach the server: nothing may be left running (the server, its embedded Azurite) and what
 * was written must be saved. The build runs once here; `--ignore-scripts` then skips the prestart
 * build, and only the prestart build, on each start.
 */
const root = resolve(".");
let folder: string;

beforeAll(() => {
  execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.json")], { stdio: "inherit" });
  folder = mkdtempSync(join(tmpdir(), "central-memory-signals-"));
}, 120_000);

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

interface NpmStart {
  child: ChildProcess;
  url: string;
}

/** `npm start` in its own process group (the group id is npm's pid), with the embedded Azurite's data in `folder`. */
function npmStart(): Promise<NpmStart> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: "0", HOST: "127.0.0.1", MEMORY_AZURITE_FOLDER: folder };
  for (const key of ["MEMORY_STORAGE_CONNECTION_STRING", "MEMORY_STORAGE_TABLE_ENDPOINT", "AzureWebJobsStorage", "MEMORY_AUTH"])
    delete env[key];
  const child = spawn("npm", ["start", "--ignore-scripts"], { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolveStart, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match && output.includes("claude mcp add")) resolveStart({ child, url: match[1]! });
    });
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => reject(new Error(`npm start exited with ${code}: ${output}`)));
  });
}

function groupAlive(groupId: number): boolean {
  try {
    process.kill(-groupId, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Signals npm, then waits for every process of its group to end; after a grace period (npm may
 * never exit), kills what is left and says what it was, so a failing run strands nothing either.
 */
async function signalAndWait(start: NpmStart, signal: NodeJS.Signals): Promise<string[]> {
  const groupId = start.child.pid!;
  process.kill(groupId, signal);
  for (let waited = 0; waited < 20_000 && groupAlive(groupId); waited += 100) await new Promise((done) => setTimeout(done, 100));
  if (!groupAlive(groupId)) return [];
  const left = execFileSync("ps", ["-o", "pid=,comm=", "-g", String(groupId)], { encoding: "utf8" })
    .trim()
    .split("\n");
  process.kill(-groupId, "SIGKILL");
  return left;
}

describe.each(["SIGTERM", "SIGINT"] as const)("%s sent to the npm start process", (signal) => {
  test("stops the server and its embedded Azurite, leaving no process, and the data written is there on the next start", async () => {
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
  }, 120_000);
});

describe("package scripts", () => {
  test("each script that runs a server or a command builds in its pre script and execs node, so signals reach node", () => {
    const { scripts } = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> };
    for (const name of ["start", "cli", "bench", "bench:import", "load"]) {
      expect(scripts[`pre${name}`]).toBe("npm run build --silent");
      expect(scripts[name]).toMatch(/^exec node dist\/\S+\.js$/);
    }
  });
});
