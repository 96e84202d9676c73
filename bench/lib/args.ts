import { parseArgs } from "node:util";

/** What one run does: the workload's size. Phases read their call counts from it. */
export interface Workload {
  /** N: entities created (each with 3 observations), and relations created. */
  entities: number;
  /** Calls of each single-entity phase: add_observations, open_nodes, get_entity_relations. */
  calls: number;
  /** Calls of search_nodes, which reads the whole workspace on every call. */
  searchCalls: number;
}

export interface BenchOptions extends Workload {
  /** Calls in flight at once in every phase (1 = one call at a time). */
  concurrency: number;
  /** Assumed in-region Table Storage round trip, for the modelled Azure column (a projection). */
  azureMs: number;
  /** Which targets to run; unknown or unavailable ones are reported and skipped. */
  targets: string[];
  /** Where the JSON result goes. */
  outDir: string | undefined;
  /** Fresh processes per Functions entry for the cold-import figure (0 skips it). */
  coldRuns: number;
  /** Milliseconds added to every storage request by a proxy in front of each Azurite (0: none). */
  storeLatencyMs: number;
  /** First renders of our viewer page in headless Chromium (0 skips the browser phase). */
  browserRuns: number;
}

/**
 * search_nodes reads every row of the workspace, and Azurite evaluates each page of a query by
 * scanning and sorting the whole table, so one call costs ~N² on the emulator (measured, floor
 * alone: 0.13 s at N=1000, 1.5 s at N=5000). 1,000 calls at N=5000 would take ~50 minutes, so
 * above N=1000 the default shrinks as N³ (it must shrink faster than the per-call cost grows, since
 * the create phases grow with N too), with at least 10 calls: 10 at N=5000, which keeps that run
 * under 10 minutes. `--search-calls` overrides it.
 */
function defaultSearchCalls(entities: number): number {
  return Math.min(1000, Math.max(10, Math.round(1000 * (1000 / entities) ** 3)));
}

const USAGE = `npm run bench -- [--entities N] [--concurrency C] [--calls K] [--search-calls S] [--azure-ms MS] [--targets ours,ours-2026,floor,server-memory] [--out DIR] [--cold-runs R] [--store-latency-ms L]

  --entities      entities and relations to create (default 1000)
  --concurrency   calls in flight at once in every phase (default 1)
  --calls         calls of add_observations, open_nodes and get_entity_relations (default 1000)
  --search-calls  calls of search_nodes (default 1000 up to N=1000, then 1000 × (1000/N)³, at least 10:
                  10 at N=5000; every call reads the whole workspace, and on Azurite its cost grows as N²)
  --azure-ms      assumed in-region Table Storage round trip for the modelled column (default 8)
  --targets       comma-separated subset of: ours, ours-2026 (the same server, through a 2026-07-28 client), floor, server-memory (default: all that are available)
  --out           folder for the JSON result (default bench/results)
  --cold-runs     fresh processes per Functions entry for the cold-import time (default 5; 0 skips it)
  --store-latency-ms
                  hold every storage request this long in a proxy in front of each target's Azurite, a stand-in
                  for an in-region Table Storage round trip that every target pays alike (default 0: none)
  --browser-runs  first renders of our viewer page of the workload's workspace in headless Chromium (default 3;
                  0 skips it; skipped when /usr/bin/chromium is absent)`;

function positive(name: string, text: string | undefined, fallback: number, { integer }: { integer: boolean }): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new Error(`--${name} must be a positive ${integer ? "integer" : "number"}, got '${text}'.\n\n${USAGE}`);
  }
  return value;
}

export function parseBenchArgs(argv: string[]): BenchOptions | "help" {
  const { values } = parseArgs({
    args: argv,
    options: {
      entities: { type: "string" },
      concurrency: { type: "string" },
      calls: { type: "string" },
      "search-calls": { type: "string" },
      "azure-ms": { type: "string" },
      targets: { type: "string" },
      out: { type: "string" },
      "cold-runs": { type: "string" },
      "store-latency-ms": { type: "string" },
      "browser-runs": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return "help";
  }
  const entities = positive("entities", values.entities, 1000, { integer: true });
  return {
    entities,
    concurrency: positive("concurrency", values.concurrency, 1, { integer: true }),
    calls: positive("calls", values.calls, 1000, { integer: true }),
    searchCalls: positive("search-calls", values["search-calls"], defaultSearchCalls(entities), { integer: true }),
    azureMs: positive("azure-ms", values["azure-ms"], 8, { integer: false }),
    targets: (values.targets ?? "ours,ours-2026,floor,server-memory")
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean),
    outDir: values.out,
    coldRuns: values["cold-runs"] === "0" ? 0 : positive("cold-runs", values["cold-runs"], 5, { integer: true }),
    storeLatencyMs:
      values["store-latency-ms"] === "0" ? 0 : positive("store-latency-ms", values["store-latency-ms"], 0, { integer: false }),
    browserRuns: values["browser-runs"] === "0" ? 0 : positive("browser-runs", values["browser-runs"], 3, { integer: true }),
  };
}
