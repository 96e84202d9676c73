/**
 * `npm run bench:recall`: how well search_entities finds what an agent means (issue #24, docs/search.md). Seeds the project's
 * judged corpus (bench/recall/corpus.ts) into one workspace through MCP, runs every query in each mode of search_entities
 * ("words": BM25 alone, "meaning": vectors alone, "hybrid": the fusion) and reports recall@5, recall@10, MRR and nDCG@10 by
 * query kind. Then, per size N, the latency of each mode through MCP on the corpus plus generated distractors (client
 * p50/p99, the server's own p50 from its per-call log, storage requests per call), and the same searches in-process on a
 * WorkspaceIndex built from a synthetic snapshot: the compute a search adds on top of its one storage request.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { runCli } from "../src/cli/main.js";
import { CLI_STORAGE_TIMEOUT_MS } from "../src/config/table.js";
import { localEmbedder } from "../src/search/embedding/localModel.js";
import { type ChildHandle, startChild } from "./lib/processes.js";
import { summarize } from "./lib/stats.js";
import { CORPUS_ENTITIES, CORPUS_QUERIES, CORPUS_RELATIONS, type CorpusEntity, type CorpusRelation } from "./recall/corpus.js";
import { distractors } from "./recall/distractors.js";
import { measureInProcess } from "./recall/inProcess.js";
import { measureQuality, type Mode, MODES, type Rankers, rankerShares } from "./recall/quality.js";
import { type McpLatency, recallMarkdown, type RecallReport } from "./recall/report.js";
import { connectMcp } from "./targets/ours.js";
import { seedInChunks } from "./targets/types.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const WORKSPACE = "recall";
const TABLE = "benchrecall";

const USAGE = `npm run bench:recall -- [--entities N[,N…]] [--mcp-entities N[,N…]] [--skip-latency] [--seed mcp|cli] [--modes M[,M…]] [--out FILE]

  --entities      workspace sizes for the latency runs: the corpus plus generated distractors (default 1000,10000)
  --mcp-entities  the sizes among them also measured through MCP (default: all; each in-process regardless)
  --skip-latency  quality on the corpus only
  --seed          how the latency workspaces are seeded: mcp (create_entities in bulk, as bench:search) or cli (the CLI's
                  import into the same table); default: both at the first size, timed, then the faster one
  --modes         which of words, meaning, hybrid to run (default: every one the server answers)
  --out           the markdown report (default bench/results/2026-12-02-recall.md)`;

function options(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      entities: { type: "string" },
      "mcp-entities": { type: "string" },
      "skip-latency": { type: "boolean" },
      seed: { type: "string" },
      modes: { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const sizes = (values.entities ?? "1000,10000").split(",").map(Number);
  const mcpSizes = values["mcp-entities"] === undefined ? sizes : values["mcp-entities"].split(",").map(Number);
  if ([...sizes, ...mcpSizes].some((n) => !Number.isInteger(n) || n < CORPUS_ENTITIES.length)) {
    throw new Error(`--entities: whole numbers of at least the corpus' ${CORPUS_ENTITIES.length} entities.\n\n${USAGE}`);
  }
  if (values.seed !== undefined && values.seed !== "mcp" && values.seed !== "cli") throw new Error(`--seed: mcp or cli.\n\n${USAGE}`);
  if (values.modes?.split(",").some((mode) => !(MODES as string[]).includes(mode))) {
    throw new Error(`--modes: a comma-separated list of ${MODES.join(", ")}.\n\n${USAGE}`);
  }
  return {
    sizes: values["skip-latency"] ? [] : sizes,
    mcpSizes: values["skip-latency"] ? [] : mcpSizes,
    seed: values.seed as "mcp" | "cli" | undefined,
    modes: values.modes?.split(",") as Mode[] | undefined,
    out: values.out ?? join(REPO, "bench", "results", "2026-12-02-recall.md"),
  };
}

interface Hits {
  hits: { entity: { name: string }; explain?: Rankers }[];
}

async function main(): Promise<void> {
  const chosen = options(process.argv.slice(2));
  if (!chosen) return void console.log(USAGE);
  const started = performance.now();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  // Bulk writes queue many transactions: give each storage attempt the CLI's timeout, as bench:search does.
  process.env.MEMORY_STORAGE_TIMEOUT_MS ??= String(CLI_STORAGE_TIMEOUT_MS);
  const notes: string[] = [];
  let azurite: ChildHandle<{ connectionString: string }> | undefined;
  let server: ChildHandle<{ url: string }> | undefined;
  let mcp: Awaited<ReturnType<typeof connectMcp>> | undefined;
  const folder = await mkdtemp(join(tmpdir(), "central-memory-recall-"));
  try {
    azurite = await startChild<{ connectionString: string }>(new URL("./azuriteProcess.js", import.meta.url), {});
    const storageEnv = { MEMORY_STORAGE_CONNECTION_STRING: azurite.ready.connectionString, MEMORY_TABLE_NAME: TABLE };
    server = await startChild<{ url: string }>(new URL("./serverProcess.js", import.meta.url), storageEnv);
    const client = (mcp = await connectMcp(server.ready.url));
    const stats = server;

    let t0 = performance.now();
    await seedInChunks((name, args) => client.call(name, { workspaceName: WORKSPACE, ...args }), CORPUS_ENTITIES, CORPUS_RELATIONS);
    const seedSeconds = (performance.now() - t0) / 1000;
    log(`seeded the corpus (${CORPUS_ENTITIES.length} entities, ${CORPUS_RELATIONS.length} relations) in ${seedSeconds.toFixed(1)} s`);

    const probe = (args: Record<string, unknown>) => client.call<Hits>("search_entities", { workspaceName: WORKSPACE, limit: 1, ...args });
    const modesSupported = await takesMode(probe);
    const modes: readonly Mode[] = (modesSupported ? await workingModes(probe) : (["words"] as const)).filter(
      (mode) => !chosen.modes || chosen.modes.includes(mode),
    );
    const { embedding } = await client.call<{ embedding?: { model: string; remote: boolean } }>("get_stats", { workspaceName: WORKSPACE });
    if (!modesSupported) {
      notes.push(
        "This server's search_entities has no `mode` (an unknown argument is dropped, not refused): only today's search ran, " +
          'reported as "words" (BM25). Re-run once the hybrid search is on main.',
      );
    } else if (!modes.includes("meaning")) {
      notes.push('Search by meaning is off on this server (no model): "meaning" could not run, and "hybrid" fused words and graph only.');
    }
    // Hybrid's explanations on the corpus, by query: which rankers found each hit.
    const explained = new Map<string, { name: string; explain?: Rankers }[]>();
    const searchIn = (workspaceName: string) => async (query: string, mode: Mode) => {
      const explain = modesSupported && mode === "hybrid" && workspaceName === WORKSPACE;
      const answer = await client.call<Hits>("search_entities", {
        workspaceName,
        query,
        limit: 10,
        ...(modesSupported ? { mode } : {}),
        ...(explain ? { explain } : {}),
      });
      if (explain)
        explained.set(
          query,
          answer.hits.map((hit) => ({ name: hit.entity.name, ...(hit.explain ? { explain: hit.explain } : {}) })),
        );
      return answer.hits.map((hit) => hit.entity.name);
    };
    log(`quality: ${CORPUS_QUERIES.length} queries × ${modes.join(", ")} …`);
    const quality = await measureQuality(searchIn(WORKSPACE), modes, CORPUS_QUERIES);

    const latency: McpLatency[] = [];
    let seedVia = chosen.seed;
    for (const size of chosen.mcpSizes) {
      const extra = distractors(size - CORPUS_ENTITIES.length);
      const entities = [...CORPUS_ENTITIES, ...extra.entities];
      const relations = [...CORPUS_RELATIONS, ...extra.relations];
      const workspace = `${WORKSPACE}-${size}`;
      const seeding: McpLatency["seeding"] = [];
      for (const via of seedVia ? [seedVia] : (["mcp", "cli"] as const)) {
        t0 = performance.now();
        if (via === "mcp")
          await seedInChunks((name, args) => client.call(name, { workspaceName: workspace, ...args }), entities, relations);
        else await importFile(folder, seedVia ? workspace : `${workspace}-cli`, entities, relations, storageEnv, log);
        seeding.push({ via, seconds: (performance.now() - t0) / 1000 });
        log(`seeded ${size} entities through ${via} in ${seeding.at(-1)!.seconds.toFixed(1)} s`);
      }
      seedVia ??= [...seeding].sort((a, b) => a.seconds - b.seconds)[0]!.via;
      const search = searchIn(workspace);
      t0 = performance.now();
      await search("warm-up", "hybrid");
      const firstSearchMs = performance.now() - t0;
      const perMode: McpLatency["modes"] = [];
      const sizeQuality = [];
      for (const mode of modes) {
        const before = (await stats.ask<{ requests: number }>("stats")).requests;
        await stats.ask("durations"); // only this mode's calls
        const times: number[] = [];
        const timed = async (query: string, m: Mode) => {
          const start = performance.now();
          const names = await search(query, m);
          times.push(performance.now() - start);
          return names;
        };
        sizeQuality.push(...(await measureQuality(timed, [mode], CORPUS_QUERIES)));
        const { durations } = await stats.ask<{ durations: number[] }>("durations");
        const after = (await stats.ask<{ requests: number }>("stats")).requests;
        const measured = summarize(times);
        perMode.push({
          mode,
          calls: times.length,
          p50Ms: measured.p50,
          p99Ms: measured.p99,
          serverP50Ms: summarize(durations).p50,
          storageRequestsPerCall: (after - before) / times.length,
        });
        log(`  N=${size} ${mode}: p50 ${measured.p50.toFixed(2)} ms, in-server p50 ${summarize(durations).p50.toFixed(2)} ms`);
      }
      latency.push({ entities: size, seeding, firstSearchMs, modes: perMode, quality: sizeQuality });
    }

    // In-process with the packaged model (the server's default, MEMORY_EMBEDDINGS=local), loaded on the first search.
    const embedder = modes.includes("meaning") ? localEmbedder() : undefined;
    const inProcess = [];
    for (const size of chosen.sizes) {
      const extra = distractors(size - CORPUS_ENTITIES.length);
      log(`in-process at N=${size} …`);
      const entities = [...CORPUS_ENTITIES, ...extra.entities];
      inProcess.push(await measureInProcess(entities, [...CORPUS_RELATIONS, ...extra.relations], CORPUS_QUERIES, modes, embedder));
    }
    if (embedder?.loadedInMs !== undefined) {
      notes.push(`The packaged model's first load in this process (read and index the file): ${embedder.loadedInMs.toFixed(0)} ms.`);
    }

    const report: RecallReport = {
      date: new Date().toISOString(),
      machine: `${cpus().length} × ${cpus()[0]?.model.trim() ?? "CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}, Azurite in memory, load average ${loadavg()[0]!.toFixed(1)} at the end`,
      corpus: {
        entities: CORPUS_ENTITIES.length,
        relations: CORPUS_RELATIONS.length,
        queries: CORPUS_QUERIES.length,
        paraphrase: CORPUS_QUERIES.filter((query) => query.kind === "paraphrase").length,
        keyword: CORPUS_QUERIES.filter((query) => query.kind === "keyword").length,
      },
      modesSupported,
      ...(embedding ? { model: `${embedding.model}${embedding.remote ? " (remote)" : ""}` } : {}),
      seedSeconds,
      quality,
      ...(modes.includes("hybrid") && modesSupported ? { rankers: rankerShares(CORPUS_QUERIES, explained) } : {}),
      latency,
      inProcess,
      notes,
      seconds: (performance.now() - started) / 1000,
    };
    const text = recallMarkdown(report);
    await writeFile(chosen.out, text);
    await writeFile(chosen.out.replace(/\.md$/, ".json"), `${JSON.stringify(report, null, 2)}\n`);
    console.log(text);
    log(`written: ${chosen.out}`);
  } finally {
    await mcp?.close();
    await server?.stop();
    await azurite?.stop();
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * Whether search_entities takes `mode`: an invalid one must be refused. (Its input schema drops unknown arguments, so a
 * server without modes answers it as a plain search.)
 */
async function takesMode(search: (args: Record<string, unknown>) => Promise<Hits>): Promise<boolean> {
  try {
    await search({ query: "checkout", mode: "no-such-mode" });
    return false;
  } catch {
    return true;
  }
}

/** The modes this server answers: "meaning" is refused when the server has no model (MEMORY_EMBEDDINGS=off). */
async function workingModes(search: (args: Record<string, unknown>) => Promise<Hits>): Promise<Mode[]> {
  const working: Mode[] = [];
  for (const mode of MODES) {
    try {
      await search({ query: "checkout", mode });
      working.push(mode);
    } catch (error) {
      if (mode !== "meaning") throw error;
    }
  }
  return working;
}

/** Seeds through the CLI's import (a server-memory JSONL file) into the server's table, in this process. */
async function importFile(
  folder: string,
  workspace: string,
  entities: readonly CorpusEntity[],
  relations: readonly CorpusRelation[],
  storageEnv: Record<string, string>,
  log: (line: string) => void,
): Promise<void> {
  const file = join(folder, `${workspace}.jsonl`);
  const lines = [
    ...entities.map((entity) => JSON.stringify({ type: "entity", ...entity })),
    ...relations.map((relation) => JSON.stringify({ type: "relation", ...relation })),
  ];
  await writeFile(file, `${lines.join("\n")}\n`);
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  // An import that fails part way (a loaded Azurite times out) is run again: it skips what it already wrote.
  for (let attempt = 1; ; attempt++) {
    const code = await runCli(["import", "-w", workspace, file], {
      stdout: sink,
      stderr: process.stderr,
      env: { ...process.env, ...storageEnv },
      cwd: dirname(file),
    });
    if (code === 0) return;
    if (attempt === 3) throw new Error(`central-memory import exited with ${code}, three times`);
    log(`import exited with ${code}; running it again (it skips what is written)`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
