/**
 * `npm run bench:search -- --entities N`: the search phases of `npm run bench` at sizes its per-call seeding cannot reach
 * on Azurite (docs/search.md#what-the-bench-shows). Ours and server-memory are seeded in bulk (create_entities and
 * create_relations, bench/targets/types.ts), which is not timed; the floor issues the index's requests on ours' table (the
 * phases only read), and the run waits one lateness window of the change feed, so the workspace is unchanged. Then
 * search_nodes (which builds ours' index: its first call), read_graph, search_entities, search_relations and get_stats run
 * interleaved on every target that has them, and the report checks the search targets.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseBenchArgs } from "./lib/args.js";
import { startChild, type ChildHandle } from "./lib/processes.js";
import { CORE_PHASES, entityName, entitySpec, runPhase } from "./phases.js";
import { markdown, newReport } from "./report.js";
import { startFloor } from "./targets/floor.js";
import { startOurs } from "./targets/ours.js";
import { serverMemoryEntry, startServerMemory } from "./targets/serverMemory.js";
import type { Target } from "./targets/types.js";
import { CLI_STORAGE_TIMEOUT_MS, DEFAULT_STORAGE_MAX_RETRIES, DEFAULT_STORAGE_TIMEOUT_MS } from "../src/config/table.js";
import { feedLatenessMs } from "../src/storage/client.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const SEARCH_PHASES = ["search_nodes", "read_graph", "search_entities", "search_relations", "get_stats"];

async function main(): Promise<void> {
  const options = parseBenchArgs(process.argv.slice(2));
  if (options === "help") return;
  const n = options.entities;
  const started = performance.now();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const report = newReport({
    entities: n,
    calls: options.searchCalls,
    searchCalls: options.searchCalls,
    concurrency: 1,
    azureMs: options.azureMs,
    storeLatencyMs: 0,
  });
  const entry = serverMemoryEntry();
  // Bulk writes queue many transactions: give each storage attempt the CLI's timeout, as the import command does.
  process.env.MEMORY_STORAGE_TIMEOUT_MS ??= String(CLI_STORAGE_TIMEOUT_MS);
  const running: { target: Target; azurite?: ChildHandle<{ connectionString: string }> }[] = [];
  const azurite = () => startChild<{ connectionString: string }>(new URL("./azuriteProcess.js", import.meta.url), {});
  try {
    const entities = Array.from({ length: n }, (_, i) => entitySpec(i));
    const relations = Array.from({ length: n }, (_, i) => ({
      from: entityName(i),
      to: entityName((i + 1) % n),
      relationType: "relates_to",
    }));
    const seed = async (target: Target) => {
      const t0 = performance.now();
      await target.ops.seed!(entities, relations);
      log(
        `seeded ${target.name} with ${n} entities and ${n} relations in bulk (not timed): ${((performance.now() - t0) / 1000).toFixed(0)} s`,
      );
    };
    const store = await azurite();
    running.push({ azurite: store, target: await startOurs(store.ready.connectionString) });
    await seed(running[0]!.target);
    // The phases only read: the floor issues the index's requests on ours' table, on ours' Azurite.
    if (options.targets.includes("floor")) running.push({ target: await startFloor(store.ready.connectionString, "benchours") });
    if (entry && options.targets.includes("server-memory")) {
      const reference = await startServerMemory(entry);
      running.push({ target: reference });
      await seed(reference);
    }
    const targets = running.map(({ target }) => target);
    report.targets = targets.map(({ name, description }) => ({ name, description }));
    // The targets are about an unchanged workspace: wait until the seeding's events have left the feed's lateness window,
    // which every tail read re-reads (docs/search.md#freshness); right after a burst of writes a read costs more.
    const quietMs = feedLatenessMs(DEFAULT_STORAGE_MAX_RETRIES, DEFAULT_STORAGE_TIMEOUT_MS) + 1000;
    log(`waiting ${(quietMs / 1000).toFixed(0)} s for the lateness window to pass …`);
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    for (const phase of CORE_PHASES.filter((candidate) => SEARCH_PHASES.includes(candidate.name.split(" ")[0]!))) {
      log(`${phase.name} × ${phase.calls(options)} …`);
      for (const result of await runPhase(targets, phase, options, 1, options.azureMs)) {
        report.phases.push(result);
        log(`  ${result.target}: p50 ${result.p50Ms.toFixed(2)} ms, first call ${result.firstMs?.toFixed(0) ?? "?"} ms`);
      }
    }
    for (const target of targets) {
      const counts = await target.ops.readGraph!();
      report.verified[target.name] = `${counts.entities} entities, ${counts.observations} observations, ${counts.relations} relations`;
    }
  } finally {
    for (const { target, azurite: store } of running) {
      await target.close();
      await store?.stop();
    }
  }
  report.loadAverage.end = loadavg()[0] ?? Number.NaN;
  report.seconds = (performance.now() - started) / 1000;
  const folder = options.outDir ?? join(REPO, "bench", "results");
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `bench-search-${report.date.replace(/[:.]/g, "-")}-n${n}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(
    "Seeded in bulk through create_entities and create_relations (not timed), then one lateness window of quiet; the search phases only." +
      `\n\n${markdown(report)}`,
  );
  log(`\nJSON: ${file}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
