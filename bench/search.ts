/**
 * `npm run bench:search -- --entities N`: the search phases of `npm run bench` at sizes its per-call seeding cannot reach
 * on Azurite (docs/search.md#what-the-bench-shows). Ours and server-memory are seeded in bulk (create_entities and
 * create_relations, bench/targets/types.ts), which is not timed; the floor issues the index's requests on ours' table (the
 * phases only read). Right after the seeding, search_nodes (which builds ours' index: its first call), read_graph,
 * search_entities, search_relations and get_stats run interleaved on every target that has them; the report checks the
 * issue's search targets and gives the bytes ours' storage reads downloaded per call.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { CLI_STORAGE_TIMEOUT_MS } from "../src/config/table.js";
import { parseBenchArgs } from "./lib/args.js";
import { type ChildHandle, startChild } from "./lib/processes.js";
import { CORE_PHASES, entityName, entitySpec, runPhase } from "./phases.js";
import { markdown, newReport } from "./report.js";
import { startFloor } from "./targets/floor.js";
import { startOurs } from "./targets/ours.js";
import { serverMemoryEntry, startServerMemory } from "./targets/serverMemory.js";
import type { Target } from "./targets/types.js";

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
    // server-memory is seeded first, so that ours' phases start right after ours' seeding.
    let reference: Target | undefined;
    if (entry && options.targets.includes("server-memory")) {
      reference = await startServerMemory(entry);
      await seed(reference);
    }
    const store = await azurite();
    const ours = await startOurs(store.ready.connectionString);
    running.push({ azurite: store, target: ours });
    if (reference) running.push({ target: reference });
    await seed(ours);
    // The phases only read: the floor issues the index's requests on ours' table, on ours' Azurite.
    if (options.targets.includes("floor")) running.push({ target: await startFloor(store.ready.connectionString, "benchours") });
    const targets = running.map(({ target }) => target);
    report.targets = targets.map(({ name, description }) => ({ name, description }));
    // Right after the seeding, as the issue measures it: a read of the unchanged workspace downloads only what is new
    // (docs/search.md#freshness), so no quiet period is needed. Bytes per call: what ours' storage reads downloaded.
    for (const phase of CORE_PHASES.filter((candidate) => SEARCH_PHASES.includes(candidate.name.split(" ")[0]!))) {
      log(`${phase.name} × ${phase.calls(options)} …`);
      const bytesBefore = await ours.storageBytes?.();
      const results = await runPhase(targets, phase, options, 1, options.azureMs);
      const bytesAfter = await ours.storageBytes?.();
      for (const result of results) {
        if (result.target === ours.name && bytesBefore !== undefined && bytesAfter !== undefined && result.calls > 0) {
          result.storageBytesPerCall = (bytesAfter - bytesBefore) / result.calls;
        }
        report.phases.push(result);
        const bytes =
          result.storageBytesPerCall === undefined ? "" : `, ${(result.storageBytesPerCall / 1024).toFixed(1)} KB read per call`;
        log(`  ${result.target}: p50 ${result.p50Ms.toFixed(2)} ms, first call ${result.firstMs?.toFixed(0) ?? "?"} ms${bytes}`);
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
  const bytesRows = report.phases
    .filter((row) => row.storageBytesPerCall !== undefined)
    .map((row) => `| ${row.phase} | ${row.target} | ${(row.storageBytesPerCall! / 1024).toFixed(1)} |`);
  console.log(
    "Seeded in bulk through create_entities and create_relations (not timed), then at once the search phases only." +
      `\n\n${markdown(report)}` +
      `\n\nStorage bytes ours downloaded per call (answer bodies; search_nodes' first call is the index's build, one scan):\n\n| phase | target | KB per call |\n|---|---|--:|\n${bytesRows.join("\n")}\n`,
  );
  log(`\nJSON: ${file}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
