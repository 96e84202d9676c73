/**
 * The compute a search adds on top of its one storage request, measured in this process: a WorkspaceIndex built from a
 * synthetic snapshot of the corpus plus distractors (as a scan would hand it over), then every query once per mode. No
 * storage, no MCP: what the server's in-server time is made of besides the feed-tail read.
 */
import type { EntityNode, Relation } from "../../src/domain/model/model.js";
import type { Embedder } from "../../src/domain/ports/embedder.js";
import type { WorkspaceSnapshot } from "../../src/domain/ports/graphIndex.js";
import { Meaning } from "../../src/search/meaning.js";
import { WorkspaceIndex } from "../../src/search/workspaceIndex.js";
import { summarize } from "../lib/stats.js";
import type { CorpusEntity, CorpusRelation, JudgedQuery } from "./corpus.js";
import { measureQuality, type Mode, type ModeQuality } from "./quality.js";

const AT = "2026-12-02T10:00:00.000Z";
const idOf = (i: number) => `00000000-0000-5000-8000-${String(i).padStart(12, "0")}`;

/** The graph as a scan hands it to WorkspaceIndex.build: each entity with the relations it starts. */
function snapshotOf(entities: readonly CorpusEntity[], relations: readonly CorpusRelation[]): WorkspaceSnapshot {
  const ids = new Map(entities.map((entity, i) => [entity.name, idOf(i)]));
  const starting = new Map<string, Relation[]>();
  relations.forEach((relation, i) => {
    const list = starting.get(relation.from) ?? [];
    list.push({
      id: idOf(1_000_000 + i),
      fromEntityId: ids.get(relation.from)!,
      fromName: relation.from,
      toEntityId: ids.get(relation.to)!,
      toName: relation.to,
      relationType: relation.relationType,
      metadata: {},
      createdAt: AT,
      updatedAt: AT,
      createdBy: "key:bench",
      updatedBy: "key:bench",
      order: `${AT}#${String(i).padStart(7, "0")}`,
    });
    starting.set(relation.from, list);
  });
  const nodes: EntityNode[] = entities.map((entity, i) => ({
    entity: {
      id: idOf(i),
      name: entity.name,
      entityType: entity.entityType,
      observations: [...entity.observations],
      tags: [],
      observationTags: new Map(),
      metadata: {},
      createdAt: AT,
      updatedAt: AT,
      createdBy: "key:bench",
      updatedBy: "key:bench",
      order: `${AT}#${String(i).padStart(7, "0")}`,
    },
    relations: starting.get(entity.name) ?? [],
  }));
  return { nodes, tags: [], versions: new Map(), events: [], registry: { present: false }, position: { readAt: 0, seen: [] } };
}

export interface InProcessRun {
  entities: number;
  /** The model whose vectors the index keeps; absent when search by meaning was off. */
  model?: string;
  buildMs: number;
  /** The first search after the build: the index embeds every pending text first (a local model, inline), and the model loads. */
  firstSearchMs: number;
  estimatedBytes: number;
  latency: { mode: Mode; p50Ms: number; p99Ms: number; calls: number }[];
  quality: ModeQuality[];
}

/**
 * Builds the index from the graph, then runs every query once per mode, timing each call as the server runs it
 * (src/search/indexAnswers.ts): the query embedded, then the index's search; "words" embeds nothing.
 */
export async function measureInProcess(
  entities: readonly CorpusEntity[],
  relations: readonly CorpusRelation[],
  queries: readonly JudgedQuery[],
  modes: readonly Mode[],
  embedder?: Embedder,
): Promise<InProcessRun> {
  const snapshot = snapshotOf(entities, relations);
  const meaning = embedder ? new Meaning(embedder) : undefined;
  let started = performance.now();
  const index = WorkspaceIndex.build(snapshot, undefined, meaning ? { model: meaning.model } : {});
  const buildMs = performance.now() - started;
  const run = async (query: string, mode: Mode) => {
    let vector: Float32Array | undefined;
    if (mode !== "words" && meaning && index.vectors) {
      const prepared = await meaning.prepare("recall", index.vectors, query);
      if ("unavailable" in prepared) throw new Error(`The model is unavailable: ${prepared.unavailable}`);
      vector = prepared.vector;
    }
    return index.searchEntities({ query, mode }, { limit: 10 }, vector).hits.map((hit) => hit.entity.name);
  };
  started = performance.now();
  await run("warm-up query that matches nothing in particular", "hybrid");
  const firstSearchMs = performance.now() - started;
  const timings = new Map<Mode, number[]>(modes.map((mode) => [mode, []]));
  const quality = await measureQuality(
    async (query, mode) => {
      const t0 = performance.now();
      const names = await run(query, mode);
      timings.get(mode)!.push(performance.now() - t0);
      return names;
    },
    modes,
    queries,
  );
  return {
    entities: entities.length,
    ...(meaning ? { model: meaning.model } : {}),
    buildMs,
    firstSearchMs,
    estimatedBytes: index.estimatedBytes(),
    latency: modes.map((mode) => {
      const summary = summarize(timings.get(mode)!);
      return { mode, p50Ms: summary.p50, p99Ms: summary.p99, calls: summary.calls };
    }),
    quality,
  };
}
