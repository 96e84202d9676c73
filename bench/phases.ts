import type { Workload } from "./lib/args.js";
import { summarize } from "./lib/stats.js";
import type { EntitySpec, Operations, Target } from "./targets/types.js";

/**
 * A phase: `calls(workload)` calls of one workload operation. Phases are data, so adding the official
 * memory-server tools is one entry here plus the
 * operation on each target that has it.
 */
export interface Phase {
  /** Shown in the table: our tool name, and the official server's where it differs. */
  name: string;
  operation: keyof Operations;
  calls(workload: Workload): number;
  /** Untimed work before the phase's calls, on each target that has the operation (its storage requests are not counted). */
  prepare?(ops: Operations, workload: Workload): Promise<void>;
  run(ops: Operations, index: number, entities: number): Promise<unknown>;
}

export const entityName = (index: number) => `entity-${index}`;

export function entitySpec(index: number): EntitySpec {
  return { name: entityName(index), entityType: "bench", observations: [1, 2, 3].map((k) => `fact ${k} about entity ${index}`) };
}

/** Expired entities the sweep phase deletes in its one call. */
const SWEPT_ITEMS = 1000;

/** Entities visited in a fixed order spread over the graph (7919 is prime), the same for every target. */
const spread = (index: number, entities: number) => entityName((index * 7919) % entities);

/** In the order of the workload: creates, then `--calls` (1,000) calls of each single-entity tool and search_nodes, then read_graph. */
export const CORE_PHASES: Phase[] = [
  {
    name: "upsert_entity (3 obs) / create_entities",
    operation: "createEntity",
    calls: (w) => w.entities,
    run: (ops, i) => ops.createEntity(entitySpec(i)),
  },
  {
    name: "upsert_relation / create_relations",
    operation: "createRelation",
    calls: (w) => w.entities,
    // A ring: entity i → entity i+1, so every entity has one relation out and one in.
    run: (ops, i, n) => ops.createRelation({ from: entityName(i), to: entityName((i + 1) % n), relationType: "relates_to" }),
  },
  {
    name: "add_observations (1 entity, 1 obs)",
    operation: "addObservations",
    // Each call adds one observation; content unique to the call, so every call adds a row (verify counts them).
    calls: (w) => w.calls,
    run: (ops, i, n) => ops.addObservations(spread(i, n), [`added observation ${i}`]),
  },
  { name: "open_nodes (1 name)", operation: "openNodes", calls: (w) => w.calls, run: (ops, i, n) => ops.openNodes(spread(i, n)) },
  {
    name: "get_entity_relations",
    operation: "getEntityRelations",
    calls: (w) => w.calls,
    run: (ops, i, n) => ops.getEntityRelations(spread(i, n)),
  },
  // Matches the entity's name (and the few whose names extend it): every target still reads the whole graph to answer.
  { name: "search_nodes", operation: "searchNodes", calls: (w) => w.searchCalls, run: (ops, i, n) => ops.searchNodes(spread(i, n)) },
  { name: "read_graph", operation: "readGraph", calls: () => 5, run: (ops) => ops.readGraph() },
  // The change feed (ours only): both read the workspace's events, so they are counted like search_nodes.
  { name: "get_changes (newest 50)", operation: "getChanges", calls: (w) => w.searchCalls, run: (ops) => ops.getChanges() },
  {
    name: "get_entity_history",
    operation: "getEntityHistory",
    calls: (w) => w.searchCalls,
    run: (ops, i, n) => ops.getEntityHistory(spread(i, n)),
  },
  // The search group (ours only; the floor issues the index's requests): answered from the workspace index, which search_nodes built.
  {
    name: "search_entities",
    operation: "searchEntities",
    calls: (w) => w.searchCalls,
    run: (ops, i, n) => ops.searchEntities(spread(i, n)),
  },
  {
    name: "search_relations (from one entity)",
    operation: "searchRelations",
    calls: (w) => w.searchCalls,
    run: (ops, i, n) => ops.searchRelations(spread(i, n)),
  },
  { name: "get_stats", operation: "getStats", calls: (w) => w.searchCalls, run: (ops) => ops.getStats() },
  {
    name: "get_context (1 name + query)",
    operation: "getContext",
    calls: (w) => w.searchCalls,
    run: (ops, i, n) => ops.getContext(spread(i, n)),
  },
  // Navigation (ours only), on the ring: depth 2 both ways is the entity and four neighbours; the path spans three relations.
  {
    name: "get_neighbors (depth 2)",
    operation: "getNeighbors",
    calls: (w) => w.searchCalls,
    run: (ops, i, n) => ops.getNeighbors(spread(i, n)),
  },
  {
    name: "find_path (3 hops)",
    operation: "findPath",
    calls: (w) => w.searchCalls,
    run: (ops, i, n) => ops.findPath(spread(i, n), entityName((((i * 7919) % n) + 3) % n)),
  },
  // curate (ours only), in a workspace of its own: batches of 10 operations, then detection over them, then small merges.
  { name: "execute_batch (10 ops, atomic)", operation: "executeBatch", calls: (w) => w.searchCalls, run: (ops, i) => ops.executeBatch(i) },
  { name: "detect_duplicate_entities", operation: "detectDuplicates", calls: (w) => w.searchCalls, run: (ops) => ops.detectDuplicates() },
  { name: "merge_entities (1 source)", operation: "mergeEntities", calls: (w) => w.searchCalls, run: (ops, i) => ops.mergeEntities(i) },
  // Each call rejects a pair of one group that detection never proposes (their names share no word), so reviews still list pairs.
  {
    name: "reject_duplicate_pair",
    operation: "rejectDuplicatePair",
    calls: (w) => w.searchCalls,
    run: (ops, i) => ops.rejectDuplicatePair(i),
  },
  // Time (ours only). Each call supersedes the observation the add_observations phase added in its call of the same index (a
  // fresh one each time): one hidden, one added, so the workload's counts stay as verified.
  {
    name: "supersede_observation",
    operation: "supersedeObservation",
    calls: (w) => w.calls,
    run: (ops, i, n) => ops.supersedeObservation(spread(i, n), i),
  },
  // One sweep of 1,000 entities created with ttlSeconds 1 in a workspace of their own (seeded untimed, then expired).
  {
    name: "sweep_expired (1,000 expired items)",
    operation: "sweepExpired",
    calls: () => 1,
    prepare: (ops) => ops.seedExpiring(SWEPT_ITEMS),
    run: async (ops) => {
      const swept = await ops.sweepExpired();
      if (swept !== SWEPT_ITEMS) throw new Error(`sweep_expired deleted ${swept} of ${SWEPT_ITEMS} expired entities`);
    },
  },
  // The apps toolset (ours only, docs/apps.md), on the workload's workspace: the tools that open an app, and the app-only
  // tools an open app calls. Whole-graph reads are counted like search_nodes, one-entity reads like open_nodes.
  {
    name: "show_memory_graph (no arguments)",
    operation: "showMemoryGraph",
    calls: (w) => w.searchCalls,
    run: (ops) => ops.showMemoryGraph(),
  },
  { name: "app_expand (1 entity)", operation: "appExpand", calls: (w) => w.calls, run: (ops, i, n) => ops.appExpand(spread(i, n)) },
  { name: "app_filter (entityType)", operation: "appFilter", calls: (w) => w.searchCalls, run: (ops) => ops.appFilter() },
  {
    name: "app_entity_details",
    operation: "appEntityDetails",
    calls: (w) => w.calls,
    run: (ops, i, n) => ops.appEntityDetails(spread(i, n)),
  },
  {
    name: "show_entity_timeline",
    operation: "showEntityTimeline",
    calls: (w) => w.calls,
    run: (ops, i, n) => ops.showEntityTimeline(spread(i, n)),
  },
  // In the curate workspace, over the groups execute_batch made (what is left after merge_entities).
  { name: "review_duplicates", operation: "reviewDuplicates", calls: (w) => w.searchCalls, run: (ops) => ops.reviewDuplicates() },
];

export interface PhaseResult {
  phase: string;
  target: string;
  calls: number;
  /** Calls that reported an error (not counted in the latencies). */
  failedCalls: number;
  seconds: number;
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  /** p50 of the time our server spent inside its tool handler (its own log), without HTTP and JSON-RPC. */
  serverP50Ms?: number;
  /** Storage requests the target made during the phase, per call. */
  storageRequestsPerCall?: number;
  /** Projection, not a measurement: storage requests per call × the assumed Azure round trip. */
  modelledAzureMs?: number;
  /** Bytes the target's storage requests downloaded during the phase, per call (bench/search.ts). */
  storageBytesPerCall?: number;
  /** Peak RSS of the target's own process so far (the server's, not the driver's). */
  peakRssBytes?: number;
  /** The phase's first call (for ours' first search_nodes: the workspace index's build, one scan). */
  firstMs?: number;
}

interface Tally {
  latencies: number[];
  serverDurations: number[];
  seconds: number;
  requests: number | undefined;
  failed: number;
}

/** Calls [from, to) of a phase on one target, `concurrency` in flight, timing every call. */
async function runBatch(
  target: Target,
  phase: Phase,
  entities: number,
  concurrency: number,
  from: number,
  to: number,
  tally: Tally,
): Promise<void> {
  const ops = target.ops as Operations;
  let next = from;
  const requestsBefore = await target.storageRequests?.();
  await target.drainServerDurations?.(); // only this batch's calls
  const started = performance.now();
  const worker = async () => {
    for (let index = next++; index < to; index = next++) {
      const t0 = performance.now();
      try {
        await phase.run(ops, index, entities);
        tally.latencies.push(performance.now() - t0);
      } catch {
        // A reference target that lost data fails calls on it (server-memory at concurrency 8): count them, do not time them.
        tally.failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, to - from) }, worker));
  tally.seconds += (performance.now() - started) / 1000;
  tally.serverDurations.push(...((await target.drainServerDurations?.()) ?? []));
  const requestsAfter = await target.storageRequests?.();
  tally.requests =
    requestsBefore === undefined || requestsAfter === undefined ? undefined : (tally.requests ?? 0) + requestsAfter - requestsBefore;
}

/**
 * Runs one phase on every target that has its operation, interleaved: the calls are cut into
 * batches, and each batch runs on every target in turn (rotating who goes first). On a shared
 * machine the background load drifts; interleaving spreads the drift over all targets, so their
 * ratios stay meaningful even when absolute times do not.
 */
export async function runPhase(
  targets: Target[],
  phase: Phase,
  workload: Workload,
  concurrency: number,
  azureMs: number,
  batches = 20,
): Promise<PhaseResult[]> {
  const able = targets.filter((target) => target.ops[phase.operation]);
  const calls = phase.calls(workload);
  const entities = workload.entities;
  const size = Math.max(1, Math.ceil(calls / batches));
  for (const target of able) await phase.prepare?.(target.ops as Operations, workload);
  const tallies = new Map(
    able.map((target) => [target, { latencies: [], serverDurations: [], seconds: 0, requests: undefined, failed: 0 } as Tally]),
  );
  for (let from = 0, round = 0; from < calls; from += size, round++) {
    const to = Math.min(calls, from + size);
    for (let k = 0; k < able.length; k++) {
      const target = able[(round + k) % able.length]!;
      await runBatch(target, phase, entities, concurrency, from, to, tallies.get(target)!);
    }
  }
  return able.map((target) => {
    const tally = tallies.get(target)!;
    const latency = summarize(tally.latencies);
    const perCall = tally.requests === undefined ? undefined : tally.requests / calls;
    const rss = target.peakRssBytes?.();
    return {
      phase: phase.name,
      target: target.name,
      calls,
      failedCalls: tally.failed,
      seconds: tally.seconds,
      opsPerSec: calls / tally.seconds,
      p50Ms: latency.p50,
      p99Ms: latency.p99,
      meanMs: latency.mean,
      ...(perCall === undefined ? {} : { storageRequestsPerCall: perCall, modelledAzureMs: perCall * azureMs }),
      ...(tally.serverDurations.length > 0 ? { serverP50Ms: summarize(tally.serverDurations).p50 } : {}),
      ...(rss === undefined ? {} : { peakRssBytes: rss }),
      ...(tally.latencies.length > 0 ? { firstMs: tally.latencies[0]! } : {}),
    };
  });
}

/** Writers in the lost-write probe, all adding to one entity at once. */
const PROBE_WRITERS = 50;

export interface ProbeResult {
  target: string;
  writers: number;
  /** Of the writers' observations, how many the entity has afterwards. */
  kept: number;
}

/**
 * The lost-write probe: one new entity, then PROBE_WRITERS concurrent add_observations on it, each
 * with its own content; afterwards open_nodes counts what the entity kept. A call that reports an
 * error is not a lost write, so failures are counted apart.
 */
export async function lostWriteProbe(target: Target): Promise<ProbeResult & { failed: number }> {
  const ops = target.ops as Operations;
  const name = "lost-write-probe";
  await ops.createEntity({ name, entityType: "bench", observations: [] });
  const outcomes = await Promise.allSettled(Array.from({ length: PROBE_WRITERS }, (_, k) => ops.addObservations(name, [`writer ${k}`])));
  return {
    target: target.name,
    writers: PROBE_WRITERS,
    kept: await ops.openNodes(name),
    failed: outcomes.filter((outcome) => outcome.status === "rejected").length,
  };
}
