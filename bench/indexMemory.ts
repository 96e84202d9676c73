/**
 * `npm run build && node --expose-gc dist/bench/indexMemory.js`: the heap a workspace index holds against its own
 * estimate (WorkspaceIndex.estimatedBytes, src/search/memoryEstimate.ts), on a plain, a metadata-heavy and a tag-heavy
 * workspace (docs/search.md#memory), each without vectors and with the packaged model's vectors filled as a search by
 * meaning fills them (src/search/meaning.ts). The rows are made as storage reads them: each row's JSON parsed on its own, so
 * strings and metadata trees are separate objects, as on a real scan. The heap is measured from before the snapshot
 * exists to after it is dropped, so it is what the index keeps. "Heap" counts V8's heap and ArrayBuffer backing stores:
 * a 100-float vector's 400 bytes live outside V8's heap, so heapUsed alone would miss them. The model is loaded, and has
 * seen the workload's words, before the baseline: it is held once per process whatever the number of workspaces, and is
 * reported on its own line. Exits 1 when an estimate is off by more than 2×.
 */
import { spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

import type { EntityNode, Metadata, Relation } from "../src/domain/model/model.js";
import type { WorkspaceSnapshot } from "../src/domain/ports/graphIndex.js";
import { localEmbedder } from "../src/search/embedding/localModel.js";
import { Meaning } from "../src/search/meaning.js";
import { nameText } from "../src/search/vectors.js";
import { WorkspaceIndex } from "../src/search/workspaceIndex.js";
import { entitySpec } from "./phases.js";

const AT = "2026-12-01T10:00:00.000Z";
const idOf = (i: number) => `00000000-0000-5000-8000-${String(i).padStart(12, "0")}`;
/** A copy as a storage read makes it: parsed from its own JSON text. */
const parsed = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

interface Workload {
  name: string;
  entities: number;
  observations(i: number): string[];
  metadata(i: number): Metadata;
  tags(i: number): string[];
  observationTags(i: number, j: number): string[];
  relationMetadata(i: number): Metadata;
}

/** Tag names as teams write them: a few words, from a vocabulary of 2,000. */
const tag = (n: number) =>
  `${["project", "decision", "customer", "incident"][n % 4]!}-${["architecture", "billing", "onboarding"][n % 3]!}-${n % 2000}`;

const WORKLOADS: Workload[] = [
  {
    name: "plain: 10,000 entities × 3 short observations, a relation each",
    entities: 10_000,
    observations: (i) => entitySpec(i).observations,
    metadata: () => ({}),
    tags: () => [],
    observationTags: () => [],
    relationMetadata: () => ({}),
  },
  {
    name: "metadata-heavy: 2,000 entities with ~25 KB of metadata each, relations with ~1 KB",
    entities: 2_000,
    observations: (i) => [`fact about entity ${i}`],
    metadata: (i) => ({
      owner: `team-${i % 17}`,
      attributes: Object.fromEntries(Array.from({ length: 200 }, (_, k) => [`attribute${k}`, `value ${k} of entity ${i}, a short phrase`])),
      history: Array.from({ length: 120 }, (_, k) => ({ at: AT, by: `user-${(i + k) % 50}`, note: `changed field ${k}`, rev: k })),
      scores: Array.from({ length: 300 }, (_, k) => (i * 31 + k * 7) / 13),
    }),
    tags: () => [],
    observationTags: () => [],
    relationMetadata: (i) => ({
      since: AT,
      weight: i / 7,
      labels: Array.from({ length: 20 }, (_, k) => `label-${k}-${i % 9}`),
      source: { system: "crm", record: `rec-${i}`, confidence: 0.9 },
    }),
  },
  {
    name: "tag-heavy: 5,000 entities × 10 observations × 10 tags, 10 entity tags",
    entities: 5_000,
    observations: (i) => Array.from({ length: 10 }, (_, j) => `observation ${j} of entity ${i}`),
    metadata: () => ({}),
    tags: (i) => Array.from({ length: 10 }, (_, k) => tag(i + k * 37)),
    observationTags: (i, j) => Array.from({ length: 10 }, (_, k) => tag(i * 3 + j * 11 + k * 53)),
    relationMetadata: () => ({}),
  },
];

function snapshotOf(workload: Workload): WorkspaceSnapshot {
  const nodes: EntityNode[] = [];
  for (let i = 0; i < workload.entities; i++) {
    const observations = workload.observations(i).map((content) => parsed(content));
    const relation: Relation = parsed({
      id: idOf(1_000_000 + i),
      fromEntityId: idOf(i),
      fromName: `entity-${i}`,
      toEntityId: idOf((i + 1) % workload.entities),
      toName: `entity-${(i + 1) % workload.entities}`,
      relationType: "depends_on",
      metadata: workload.relationMetadata(i),
      createdAt: AT,
      updatedAt: AT,
      createdBy: "key:bench",
      updatedBy: "key:bench",
      order: `${AT}#${String(i).padStart(6, "0")}`,
    });
    nodes.push({
      entity: {
        id: idOf(i),
        name: `entity-${i}`,
        entityType: ["person", "service", "project"][i % 3]!,
        observations,
        tags: parsed(workload.tags(i)),
        observationTags: new Map(observations.map((content, j) => [content, parsed(workload.observationTags(i, j))])),
        metadata: parsed(workload.metadata(i)),
        createdAt: AT,
        updatedAt: AT,
        createdBy: "key:bench",
        updatedBy: "key:bench",
        order: `${AT}#${String(i).padStart(6, "0")}`,
      },
      relations: [relation],
    });
  }
  return { nodes, tags: [], versions: new Map(), events: [], registry: { present: false }, position: { readAt: 0, seen: [] } };
}

/** Bytes held: V8's heap and the ArrayBuffer backing stores outside it (where typed arrays over 64 bytes keep their data). */
function heap(): number {
  globalThis.gc?.();
  globalThis.gc?.();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

interface Measured {
  held: number;
  estimate: number;
  buildMs: number;
  /** With vectors: how many, the ms to embed them all (the first search by meaning on the cold index), the model's bytes. */
  vectors?: number;
  embedMs?: number;
  modelBytes?: number;
  modelLoadMs?: number;
}

/** One workload, measured in this process: heap held and estimate, in bytes; with `vectors`, the packaged model's vectors too. */
async function measure(workload: Workload, vectors: boolean): Promise<Measured> {
  const embedder = localEmbedder();
  let modelBytes: number | undefined;
  if (vectors) {
    // The model is the process's, not the index's: loaded, and its memo of looked-up words filled with this workload's
    // words, before the baseline, so the index's figure is the index's alone.
    const empty = heap();
    await embedder.embed(["load the model"]);
    for (let i = 0; i < workload.entities; i += 1) {
      await embedder.embed([nameText(`entity-${i}`, ["person", "service", "project"][i % 3]!), ...workload.observations(i)]);
    }
    modelBytes = heap() - empty;
  }
  const before = heap();
  let snapshot: WorkspaceSnapshot | undefined = snapshotOf(workload);
  const start = performance.now();
  const index = WorkspaceIndex.build(snapshot, undefined, vectors ? { model: embedder.model } : {});
  const buildMs = performance.now() - start;
  snapshot = undefined;
  let embedMs: number | undefined;
  if (vectors) {
    const embedding = performance.now();
    const prepared = await new Meaning(embedder).prepare("bench", index.vectors!, "which service handles payments");
    embedMs = performance.now() - embedding;
    if (!("vector" in prepared) || index.vectors!.pendingCount > 0) throw new Error("The vectors were not all filled.");
  }
  const held = heap() - before;
  return {
    held,
    estimate: index.estimatedBytes(),
    buildMs,
    ...(vectors ? { vectors: index.vectors!.vectorCount, embedMs, modelBytes, modelLoadMs: embedder.loadedInMs } : {}),
  };
}

const MB = 1024 * 1024;
const only = process.argv[2];
if (only !== undefined) {
  // A child: one workload in a fresh heap, so no earlier index is still reachable while this one is measured.
  console.log(JSON.stringify(await measure(WORKLOADS[Number(only)]!, process.argv[3] === "vectors")));
} else {
  console.log("| workload | vectors | heap held (MB) | estimate (MB) | estimate / heap | build (ms) | embed all texts (ms) |");
  console.log("|---|--:|--:|--:|--:|--:|--:|");
  let off = false;
  const models: string[] = [];
  for (const [i, workload] of WORKLOADS.entries()) {
    for (const vectors of [false, true]) {
      const child = spawnSync(
        process.execPath,
        ["--expose-gc", fileURLToPath(import.meta.url), String(i), ...(vectors ? ["vectors"] : [])],
        { encoding: "utf8" },
      );
      if (child.status !== 0) throw new Error(`The ${workload.name} workload failed: ${child.stderr}`);
      const measured = JSON.parse(child.stdout) as Measured;
      const ratio = measured.estimate / measured.held;
      off ||= !(ratio >= 0.5 && ratio <= 2);
      console.log(
        `| ${workload.name} | ${measured.vectors ?? "none"} | ${(measured.held / MB).toFixed(1)} | ${(measured.estimate / MB).toFixed(1)} | ` +
          `${ratio.toFixed(2)} | ${measured.buildMs.toFixed(0)} | ${measured.embedMs?.toFixed(0) ?? "-"} |`,
      );
      if (measured.modelBytes !== undefined) {
        models.push(`${(measured.modelBytes / MB).toFixed(1)} MB (loaded in ${measured.modelLoadMs?.toFixed(0)} ms)`);
      }
    }
  }
  console.log(`\nThe packaged model in memory, once per process, after seeing each workload's words: ${models.join(", ")}.`);
  if (off) {
    console.error(
      "An estimate is off by more than 2× (docs/search.md#memory): refit BYTES in src/search/memoryEstimate.ts, " +
        "or VECTOR_OVERHEAD_BYTES and TRACKED_TEXT_BYTES in src/search/vectors.ts.",
    );
    process.exitCode = 1;
  }
}
