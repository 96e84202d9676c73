import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, platform, release, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseBenchArgs, type BenchOptions } from "./lib/args.js";
import { startChild } from "./lib/processes.js";
import { median } from "./lib/stats.js";
import { CORE_PHASES, runPhase, type PhaseResult } from "./phases.js";
import { markdown, type BenchReport } from "./report.js";
import { startFloor } from "./targets/floor.js";
import { startOurs } from "./targets/ours.js";
import { serverMemoryEntry, startServerMemory } from "./targets/serverMemory.js";
import type { Target } from "./targets/types.js";

/**
 * `npm run bench`: one workload against every target in the same run, side by side (absolute times
 * on a shared machine mean little; ratios measured together do). Runs from the compiled dist/.
 */
const REPO = fileURLToPath(new URL("../../", import.meta.url));

/** Import time of the Functions entry in a fresh process: what a cold start pays before any request. */
function coldImportMs(runs: number): number[] {
  const script = "const t = performance.now(); await import('./dist/src/functions/index.js'); console.log(performance.now() - t);";
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
    floor: startFloor,
    "server-memory": ((entry) => (entry ? () => startServerMemory(entry) : "@modelcontextprotocol/server-memory is not installed"))(serverMemoryEntry()),
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
  const report: BenchReport = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model.trim() ?? "unknown", memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, platform: `${platform()} ${release()}` },
    options: { entities: n, concurrency: options.concurrency, azureMs: options.azureMs },
    coldImportMs: { runs: [], median: Number.NaN },
    targets: [],
    skipped: [],
    verified: {},
    phases: [],
  };
  const log = (line: string) => process.stderr.write(`${line}\n`);

  log("Cold import of the Functions entry …");
  report.coldImportMs.runs = coldImportMs(5);
  report.coldImportMs.median = median(report.coldImportMs.runs);

  const azurite = await startChild<{ connectionString: string }>(new URL("./azuriteProcess.js", import.meta.url));
  try {
    for (const [name, start] of starters(options, report.skipped)) {
      const target = await start(azurite.ready.connectionString);
      report.targets.push({ name: target.name, description: target.description });
      try {
        for (const phase of CORE_PHASES) {
          log(`${name}: ${phase.name} × ${phase.calls(n)} …`);
          const result: PhaseResult | undefined = await runPhase(target, phase, n, options.concurrency, options.azureMs);
          if (result) {
            report.phases.push(result);
            log(`  ${result.seconds.toFixed(1)} s, p50 ${result.p50Ms.toFixed(2)} ms`);
          }
        }
        report.verified[name] = await verify(target, n);
      } finally {
        await target.close();
      }
    }
  } finally {
    await azurite.stop();
  }

  // Group rows phase by phase, so targets sit side by side.
  report.phases.sort((a, b) => CORE_PHASES.findIndex((p) => p.name === a.phase) - CORE_PHASES.findIndex((p) => p.name === b.phase));
  const folder = join(REPO, "bench", "results");
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `bench-${report.date.replace(/[:.]/g, "-")}-n${n}-c${options.concurrency}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(markdown(report));
  log(`\nJSON: ${file}`);
}

/** Nothing lost: the graph holds exactly what the workload wrote. */
async function verify(target: Target, n: number): Promise<string> {
  if (!target.ops.readGraph) return "not verifiable (no read_graph)";
  const counts = await target.ops.readGraph();
  const expected = { entities: n, observations: 3 * n, relations: n };
  if (JSON.stringify(counts) !== JSON.stringify(expected)) {
    throw new Error(`${target.name} lost or duplicated writes: expected ${JSON.stringify(expected)}, read ${JSON.stringify(counts)}`);
  }
  return `${n} entities, ${3 * n} observations, ${n} relations, as written`;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
