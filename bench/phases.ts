import { summarize } from "./lib/stats.js";
import type { EntitySpec, Operations, Target } from "./targets/types.js";

/**
 * A phase: `calls(N)` calls of one workload operation. Phases are data, so adding the official
 * memory-server tools (add_observations, open_nodes, search_nodes, …) is one entry here plus the
 * operation on each target that has it.
 */
export interface Phase {
  /** Shown in the table: our tool name, and the official server's where it differs. */
  name: string;
  operation: keyof Operations;
  calls(entities: number): number;
  run(ops: Operations, index: number, entities: number): Promise<unknown>;
}

export const entityName = (index: number) => `entity-${index}`;

export function entitySpec(index: number): EntitySpec {
  return { name: entityName(index), entityType: "bench", observations: [1, 2, 3].map((k) => `fact ${k} about entity ${index}`) };
}

export const CORE_PHASES: Phase[] = [
  { name: "upsert_entity (3 obs) / create_entities", operation: "createEntity", calls: (n) => n, run: (ops, i) => ops.createEntity(entitySpec(i)) },
  {
    name: "upsert_relation / create_relations",
    operation: "createRelation",
    calls: (n) => n,
    // A ring: entity i → entity i+1, so every entity has one relation out and one in.
    run: (ops, i, n) => ops.createRelation({ from: entityName(i), to: entityName((i + 1) % n), relationType: "relates_to" }),
  },
  {
    name: "get_entity_relations",
    operation: "getEntityRelations",
    calls: () => 1000,
    // Spread over the graph in a fixed order (7919 is prime), the same for every target.
    run: (ops, i, n) => ops.getEntityRelations(entityName((i * 7919) % n)),
  },
  { name: "read_graph", operation: "readGraph", calls: () => 5, run: (ops) => ops.readGraph() },
];

export interface PhaseResult {
  phase: string;
  target: string;
  calls: number;
  seconds: number;
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  /** Storage requests the target made during the phase, per call. */
  storageRequestsPerCall?: number;
  /** Projection, not a measurement: storage requests per call × the assumed Azure round trip. */
  modelledAzureMs?: number;
  /** Peak RSS of the target's own process so far (the server's, not the driver's). */
  peakRssBytes?: number;
}

/** Runs one phase with `concurrency` calls in flight, timing every call. */
export async function runPhase(target: Target, phase: Phase, entities: number, concurrency: number, azureMs: number): Promise<PhaseResult | undefined> {
  if (!target.ops[phase.operation]) return undefined;
  const ops = target.ops as Operations;
  const calls = phase.calls(entities);
  const latencies = new Array<number>(calls);
  let next = 0;
  const requestsBefore = await target.storageRequests?.();
  const started = performance.now();
  const worker = async () => {
    for (let index = next++; index < calls; index = next++) {
      const t0 = performance.now();
      await phase.run(ops, index, entities);
      latencies[index] = performance.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, calls) }, worker));
  const seconds = (performance.now() - started) / 1000;
  const requestsAfter = await target.storageRequests?.();
  const latency = summarize(latencies);
  const perCall = requestsBefore === undefined || requestsAfter === undefined ? undefined : (requestsAfter - requestsBefore) / calls;
  const rss = target.peakRssBytes?.();
  return {
    phase: phase.name,
    target: target.name,
    calls,
    seconds,
    opsPerSec: calls / seconds,
    p50Ms: latency.p50,
    p99Ms: latency.p99,
    meanMs: latency.mean,
    ...(perCall === undefined ? {} : { storageRequestsPerCall: perCall, modelledAzureMs: perCall * azureMs }),
    ...(rss === undefined ? {} : { peakRssBytes: rss }),
  };
}
