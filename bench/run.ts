import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { measureApps } from "./apps.js";
import { browserUnavailable, measureFirstRender } from "./browser.js";
import { type BenchOptions, parseBenchArgs } from "./lib/args.js";
import { type ChildHandle, startChild } from "./lib/processes.js";
import { median } from "./lib/stats.js";
import { CORE_PHASES, lostWriteProbe, runPhase } from "./phases.js";
import { type BenchReport, markdown, newReport } from "./report.js";
import { startFloor } from "./targets/floor.js";
import { startOurs } from "./targets/ours.js";
import { serverMemoryEntry, startServerMemory } from "./targets/serverMemory.js";
import { BENCH_WORKSPACE, type Target } from "./targets/types.js";

/**
 * `npm run bench`: one workload against every target in the same run, side by side (absolute times
 * on a shared machine mean little; ratios measured together do). Runs from the compiled dist/.
 */
const REPO = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Import time of a Functions entry in a fresh process: what a cold start pays before any request.
 * Measured for the deployed entry (package.json `main`, the esbuild bundle) and the unbundled tsc output.
 */
const DEPLOYED_ENTRY = (JSON.parse(readFileSync(new URL("package.json", `file://${REPO}`), "utf8")) as { main: string }).main;
const COLD_IMPORT_ENTRIES = [DEPLOYED_ENTRY, "dist/src/functions/index.js"];

function coldImportMs(entry: string, runs: number): number[] {
  const script = `const t = performance.now(); await import('./${entry}'); console.log(performance.now() - t);`;
  return Array.from({ length: runs }, () => {
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: REPO, encoding: "utf8" });
    const ms = Number(result.stdout.trim().split("\n").pop());
    if (result.status !== 0 || !Number.isFinite(ms)) throw new Error(`Cold import failed: ${result.stderr}`);
    return ms;
  });
}

type Starter = (connectionString: string) => Promise<Target>;

function starters(options: BenchOptions, skipped: BenchReport["skipped"]): [string, Starter][] {
  const available: Record<string, Starter | string> = {
    ours: startOurs,
    "ours-2026": (connectionString) => startOurs(connectionString, "2026"),
    floor: startFloor,
    "server-memory": ((entry) => (entry ? () => startServerMemory(entry) : "@modelcontextprotocol/server-memory is not installed"))(
      serverMemoryEntry(),
    ),
  };
  const chosen: [string, Starter][] = [];
  for (const name of options.targets) {
    const starter = available[name];
    if (typeof starter === "function") chosen.push([name, starter]);
    else skipped.push({ name, reason: starter ?? `unknown target (known: ${Object.keys(available).join(", ")})` });
  }
  return chosen;
}

async function main(): Promise<void> {
  const options = parseBenchArgs(process.argv.slice(2));
  if (options === "help") return;
  const n = options.entities;
  const runStarted = performance.now();
  const report = newReport({
    entities: n,
    calls: options.calls,
    searchCalls: options.searchCalls,
    concurrency: options.concurrency,
    azureMs: options.azureMs,
    storeLatencyMs: options.storeLatencyMs,
  });
  const log = (line: string) => process.stderr.write(`${line}\n`);

  if (options.coldRuns > 0) log("Cold import of the Functions entry …");
  for (const entry of options.coldRuns > 0 ? COLD_IMPORT_ENTRIES : []) {
    const runs = coldImportMs(entry, options.coldRuns);
    report.coldImport.push({ entry, runs, median: median(runs) });
  }

  // Every target is up at once, each with a fresh Azurite of its own (no target runs against an
  // emulator another one filled), so each phase can interleave them.
  const running: { target: Target; azurite: ChildHandle<{ connectionString: string }> }[] = [];
  try {
    for (const [, start] of starters(options, report.skipped)) {
      const azurite = await startChild<{ connectionString: string }>(new URL("./azuriteProcess.js", import.meta.url), {
        BENCH_STORE_LATENCY_MS: String(options.storeLatencyMs),
      });
      running.push({
        azurite,
        target: await start(azurite.ready.connectionString).catch(async (error: unknown) => {
          await azurite.stop();
          throw error;
        }),
      });
    }
    const targets = running.map(({ target }) => target);
    report.targets = targets.map(({ name, description }) => ({ name, description }));
    for (const phase of CORE_PHASES) {
      log(`${phase.name} × ${phase.calls(options)} on ${targets.map((target) => target.name).join(", ")} …`);
      for (const result of await runPhase(targets, phase, options, options.concurrency, options.azureMs)) {
        report.phases.push(result);
        // Our own failures fail the run; a reference target's are a finding to print.
        if (result.failedCalls > 0 && (result.target.startsWith("ours") || result.target === "floor")) process.exitCode = 1;
        log(`  ${result.target}: ${result.seconds.toFixed(1)} s, p50 ${result.p50Ms.toFixed(2)} ms`);
      }
    }
    for (const target of targets) report.notes.push(...(target.notes?.() ?? []));
    for (const target of targets) {
      const verdict = await verify(target, n, options.calls);
      report.verified[target.name] = verdict.note;
      // Our own losses fail the run; a reference target's are a finding to print.
      if (!verdict.ok && (target.name.startsWith("ours") || target.name === "floor")) process.exitCode = 1;
    }
    // After verifying (the page only reads), on the workspace the workload filled.
    const viewer = targets.find((target) => target.viewerUrl !== undefined);
    if (options.browserRuns > 0 && viewer?.viewerUrl) {
      const unavailable = browserUnavailable();
      if (unavailable) report.skipped.push({ name: "browser", reason: unavailable });
      else {
        log(`Viewer first render × ${options.browserRuns} in headless Chromium …`);
        report.browser = await measureFirstRender(viewer.viewerUrl, options.browserRuns);
        // The same workspace as an MCP App inside a host: the ui:// resource's size and the app's time to interactive.
        log(`MCP App in a host × ${options.browserRuns} in headless Chromium …`);
        report.apps = await measureApps(new URL(viewer.viewerUrl).origin, BENCH_WORKSPACE, options.browserRuns);
      }
    }
    // After verifying, so the probe's entity does not change the counts checked above.
    for (const target of targets.filter(({ name, ops }) => ops.addObservations && ops.openNodes && name !== "floor")) {
      log(`Lost-write probe on ${target.name} …`);
      const probe = await lostWriteProbe(target);
      report.lostWriteProbe.push(probe);
      if (target.name === "ours" && probe.kept + probe.failed < probe.writers) process.exitCode = 1;
    }
  } finally {
    for (const { target, azurite } of running) {
      await target.close();
      await azurite.stop();
    }
  }

  report.loadAverage.end = loadavg()[0] ?? Number.NaN;
  report.seconds = (performance.now() - runStarted) / 1000;
  // Group rows phase by phase, so targets sit side by side.
  report.phases.sort((a, b) => CORE_PHASES.findIndex((p) => p.name === a.phase) - CORE_PHASES.findIndex((p) => p.name === b.phase));
  const folder = options.outDir ?? join(REPO, "bench", "results");
  mkdirSync(folder, { recursive: true });
  const file = join(
    folder,
    `bench-${report.date.replace(/[:.]/g, "-")}-n${n}-c${options.concurrency}${options.storeLatencyMs > 0 ? `-l${options.storeLatencyMs}` : ""}.json`,
  );
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(markdown(report));
  log(`\nJSON: ${file}`);
}

/** Nothing lost: the graph holds exactly what the workload wrote. A loss is reported, not hidden. */
async function verify(target: Target, n: number, addedObservations: number): Promise<{ ok: boolean; note: string }> {
  if (!target.ops.readGraph) return { ok: true, note: "not verifiable (no read_graph)" };
  const counts = await target.ops.readGraph();
  const added = target.ops.addObservations ? addedObservations : 0;
  const expected = { entities: n, observations: 3 * n + added, relations: n };
  if (JSON.stringify(counts) === JSON.stringify(expected))
    return { ok: true, note: `${n} entities, ${3 * n + added} observations, ${n} relations, as written` };
  return { ok: false, note: `LOST WRITES: wrote ${JSON.stringify(expected)}, read back ${JSON.stringify(counts)}` };
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
