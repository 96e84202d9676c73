import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { runCli } from "../src/cli/main.js";
import { createRuntime } from "../src/runtime.js";
import { startAzuriteProcess } from "../test/support/azurite.js";
import { generatedGraph } from "../test/support/cli.js";

/**
 * `npm run bench`: imports a generated server-memory file (BENCH_ENTITIES entities, default 10,000,
 * with one observation each, and twice as many relations) into a fresh Azurite, imports it again
 * (nothing to write), and exports it; prints the throughput of each and saves it to bench/results/.
 * Set MEMORY_STORAGE_CONNECTION_STRING to measure a real storage account instead of Azurite.
 */
async function main(): Promise<void> {
  const entities = Number(process.env.BENCH_ENTITIES ?? 10_000);
  const relations = 2 * entities;
  const folder = await mkdtemp(join(tmpdir(), "central-memory-bench-"));
  const azurite = process.env.MEMORY_STORAGE_CONNECTION_STRING ? undefined : await startAzuriteProcess();
  const env = {
    ...process.env,
    MEMORY_STORAGE_CONNECTION_STRING: process.env.MEMORY_STORAGE_CONNECTION_STRING ?? azurite!.connectionString,
  };
  const workspace = `bench-${Date.now()}`;
  try {
    const file = join(folder, "memory.jsonl");
    await writeFile(file, generatedGraph(entities));

    const results: Record<string, { seconds: number; itemsPerSecond: number; exitCode: number }> = {};
    for (const [label, args] of [
      ["import", ["import", "-w", workspace, file]],
      ["import again", ["import", "-w", workspace, file]],
      ["export", ["export", "-w", workspace, join(folder, "export.jsonl")]],
    ] as const) {
      const started = performance.now();
      const exitCode = await runCli([...args], { stdout: process.stdout, stderr: process.stderr, env, cwd: folder });
      const seconds = (performance.now() - started) / 1000;
      results[label] = { seconds: round(seconds), itemsPerSecond: Math.round((entities + relations) / seconds), exitCode };
      console.log(
        `${label}: ${entities} entities + ${relations} relations in ${seconds.toFixed(1)} s (${results[label]!.itemsPerSecond} items/s), exit ${exitCode}\n`,
      );
    }
    // What reads of the imported workspace cost: requests are counted, time is one run on this machine.
    const { services, storage } = createRuntime(env, { door: "cli" }); // the storage the CLI used, as it reads its settings
    const reads: Record<string, { seconds: number; requests: number }> = {};
    for (const [label, read] of [
      ["search_nodes 'fact 9'", () => services.graph.searchNodes(workspace, "fact 9")],
      ["open_nodes x3", () => services.graph.openNodes(workspace, ["entity 1", "entity 2", "entity 3"])],
      ["read_graph limit 100 names", () => services.graph.readGraph(workspace, { limit: 100, mode: "names" })],
      ["read_graph (all)", () => services.graph.readGraph(workspace)],
    ] as const) {
      const [started, before] = [performance.now(), storage.counter.total];
      await read();
      reads[label] = { seconds: round((performance.now() - started) / 1000), requests: storage.counter.total - before };
      console.log(`${label}: ${reads[label]!.seconds} s, ${reads[label]!.requests} storage requests`);
    }
    const out = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "bench", "results");
    mkdirSync(out, { recursive: true });
    writeFileSync(
      join(out, `import-${new Date().toISOString().replace(/[:.]/g, "-")}.json`),
      JSON.stringify({ entities, relations, storage: azurite ? "azurite" : "configured", results, reads }, null, 2),
    );
  } finally {
    await azurite?.stop();
    await rm(folder, { recursive: true, force: true });
  }
}

const round = (value: number) => Math.round(value * 10) / 10;

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
