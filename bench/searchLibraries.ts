/**
 * `node --expose-gc dist/bench/searchLibraries.js`: the measurement behind the choice of full-text
 * library (docs/search.md#the-library). On this workload (10,000 entities × 5 observations; then
 * 1,000 replaced and 1,000 removed), for MiniSearch and FlexSearch: build time, heap held, incremental
 * replace and remove, and ranking quality on the fixed corpus (test/support/searchCorpus.ts). Then the
 * workspace index itself (src/search, MiniSearch plus the graph it holds) at 10,000 entities: its heap
 * against its own estimate (WorkspaceIndex.estimatedBytes), which calibrates the memory cap.
 */
import { performance } from "node:perf_hooks";

import FlexSearch from "flexsearch";
import MiniSearch from "minisearch";

import type { Entity } from "../src/domain/model/model.js";
import type { WorkspaceSnapshot } from "../src/domain/ports/graphIndex.js";
import { normalizedText, normalizeTerm, tokenize } from "../src/search/text.js";
import { WorkspaceIndex } from "../src/search/workspaceIndex.js";
import { CORPUS, type CorpusEntity, RANKING_CASES } from "../test/support/searchCorpus.js";
import { entitySpec } from "./phases.js";

const N = 10_000;
const OBSERVATIONS = 5;

// A type alias, not an interface, so it is assignable to FlexSearch's indexed DocumentData.
type Doc = {
  id: string;
  name: string;
  entityType: string;
  observations: string;
};

interface Engine {
  name: string;
  build(docs: Doc[]): void;
  replace(doc: Doc): void;
  remove(id: string): void;
  /** Ids, best first. */
  search(query: string): string[];
}

function miniSearch(): Engine {
  const index = new MiniSearch<Doc>({ fields: ["name", "entityType", "observations"], tokenize, processTerm: normalizeTerm });
  const names = new Map<string, string>();
  return {
    name: "MiniSearch 7.2",
    build: (docs) => {
      index.addAll(docs);
      for (const doc of docs) names.set(doc.id, doc.name);
    },
    replace: (doc) => index.replace(doc),
    remove: (id) => index.discard(id),
    search: (query) => {
      const wanted = normalizedText(query);
      return index
        .search(query, {
          boost: { name: 4, entityType: 1.5 },
          prefix: (_t, i, terms) => i === terms.length - 1,
          fuzzy: (term) => (term.length >= 8 ? 2 : term.length >= 5 ? 1 : false),
        })
        .map((r) => ({ id: String(r.id), score: r.score, exact: normalizedText(names.get(String(r.id)) ?? "") === wanted }))
        .sort((a, b) => Number(b.exact) - Number(a.exact) || b.score - a.score)
        .map((r) => r.id);
    },
  };
}

function flexSearch(): Engine {
  // Forward tokenizing gives prefixes; LatinBalance folds case and accents and tolerates some misspellings.
  const index = new FlexSearch.Document({
    document: { id: "id", index: ["name", "entityType", "observations"] },
    tokenize: "forward",
    encoder: FlexSearch.Charset.LatinBalance,
  });
  const names = new Map<string, string>();
  return {
    name: "FlexSearch 0.8",
    build: (docs) => {
      for (const doc of docs) {
        index.add({ ...doc });
        names.set(doc.id, doc.name);
      }
    },
    replace: (doc) => index.update({ ...doc }),
    remove: (id) => index.remove(id),
    search: (query) => {
      const wanted = normalizedText(query);
      const boost: Record<string, number> = { name: 4, entityType: 1.5, observations: 1 };
      const scores = new Map<string, number>();
      const fields = index.search(query, { limit: 50, suggest: true }) as unknown as { field: string; result: string[] }[];
      for (const { field, result } of fields) {
        result.forEach((id, rank) => scores.set(String(id), (scores.get(String(id)) ?? 0) + boost[field]! / (rank + 1)));
      }
      return [...scores]
        .map(([id, score]) => ({ id, score, exact: normalizedText(names.get(id) ?? "") === wanted }))
        .sort((a, b) => Number(b.exact) - Number(a.exact) || b.score - a.score)
        .map((r) => r.id);
    },
  };
}

const WORDS =
  "alpha beta gamma delta service payment invoice ledger cluster search latency release mobile web cache queue topic schema deploy review incident budget policy customer profile export import token session".split(
    " ",
  );
function word(i: number): string {
  return `${WORDS[i % WORDS.length]!}${Math.floor(i / WORDS.length) % 97}`;
}
function syntheticEntity(i: number): CorpusEntity {
  return {
    name: `Entity ${i} ${word(i * 7)}`,
    entityType: ["person", "service", "project", "decision", "document"][i % 5]!,
    observations: Array.from({ length: OBSERVATIONS }, (_, j) =>
      Array.from({ length: 12 }, (_, k) => word(i * 31 + j * 13 + k * 17)).join(" "),
    ),
  };
}
const toDoc = (entity: CorpusEntity, id: string): Doc => ({ id, ...entity, observations: entity.observations.join("\n") });

function heapMb(): number {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

function time(work: () => void): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

function rankingScore(make: () => Engine): number {
  const engine = make();
  engine.build(CORPUS.map((entity, i) => toDoc(entity, String(i))));
  const nameOf = (id: string) => CORPUS[Number(id)]!.name;
  return RANKING_CASES.filter(({ query, top }) => {
    const got = engine.search(query).slice(0, top.length).map(nameOf);
    return JSON.stringify(got) === JSON.stringify(top);
  }).length;
}

function measure(make: () => Engine) {
  const docs = Array.from({ length: N }, (_, i) => toDoc(syntheticEntity(i), `id-${i}`));
  const before = heapMb();
  const engine = make();
  const buildMs = time(() => engine.build(docs));
  const heldMb = heapMb() - before;
  const replaceMs = time(() => {
    for (let i = 0; i < 1000; i++) engine.replace({ ...docs[i]!, observations: `${docs[i]!.observations}\nchanged ${i}` });
  });
  const removeMs = time(() => {
    for (let i = 1000; i < 2000; i++) engine.remove(`id-${i}`);
  });
  const searches = ["payment latency", "entity 42", "servce", "cluster5"];
  const searchMs =
    time(() => {
      for (let r = 0; r < 25; r++) for (const q of searches) engine.search(q);
    }) /
    (25 * searches.length);
  return { name: engine.name, buildMs, heldMb, replaceMs, removeMs, searchMs, ranking: rankingScore(make) };
}

function workspaceIndexMemory(make: (i: number) => CorpusEntity, queries: string[]) {
  const now = new Date().toISOString();
  const nodes = Array.from({ length: N }, (_, i) => {
    const e = make(i);
    const entity: Entity = {
      id: `00000000-0000-5000-8000-${String(i).padStart(12, "0")}`,
      ...e,
      tags: [],
      observationTags: new Map(),
      metadata: {},
      createdAt: now,
      updatedAt: now,
      createdBy: "bench",
      updatedBy: "bench",
      order: `${now}#${String(i).padStart(6, "0")}`,
    };
    return { entity, relations: [] };
  });
  const snapshot: WorkspaceSnapshot = {
    nodes,
    tags: [],
    versions: new Map(),
    events: [],
    registry: { present: false },
    position: { readAt: Date.now(), seen: [] },
  };
  const before = heapMb();
  let index: WorkspaceIndex | undefined;
  const buildMs = time(() => {
    index = WorkspaceIndex.build(snapshot, undefined);
  });
  snapshot.nodes = [];
  const heldMb = heapMb() - before;
  const perCall = (work: () => unknown) => {
    const runs = 50;
    return (
      time(() => {
        for (let r = 0; r < runs; r++) work();
      }) / runs
    );
  };
  const searchMs = Object.fromEntries(queries.map((query) => [query, perCall(() => index!.searchEntities({ query }, { limit: 20 }))]));
  searchMs[`search_nodes '${queries[0]!}'`] = perCall(() => index!.searchNodes(queries[0]!, 50));
  searchMs["get_stats"] = perCall(() => index!.stats());
  return { buildMs, heldMb, estimatedMb: index!.estimatedBytes() / 1024 / 1024, searchMs };
}

const fmt = (n: number) => n.toFixed(1);
console.log(`| library | build ${N} (ms) | heap held (MB) | replace 1,000 (ms) | remove 1,000 (ms) | search (ms) | ranking cases passed |`);
console.log("|---|---|---|---|---|---|---|");
for (const make of [miniSearch, flexSearch]) {
  const m = measure(make);
  console.log(
    `| ${m.name} | ${fmt(m.buildMs)} | ${fmt(m.heldMb)} | ${fmt(m.replaceMs)} | ${fmt(m.removeMs)} | ${m.searchMs.toFixed(2)} | ${m.ranking}/${RANKING_CASES.length} |`,
  );
}
const workloads: [string, (i: number) => CorpusEntity, string[]][] = [
  [`${OBSERVATIONS} observations of 12 words`, syntheticEntity, ["entity 4242", "payment latency", "servce", "cluster5", "alpha3 beta4"]],
  ["the bench's workload (3 short observations)", entitySpec, ["entity-4242", "fact about entity 4242", "entty-4242"]],
];
for (const [label, make, queries] of workloads) {
  const w = workspaceIndexMemory(make, queries);
  console.log(
    `\nWorkspace index (src/search) at ${N} entities, ${label}: build ${fmt(w.buildMs)} ms, heap held ${fmt(w.heldMb)} MB, its estimate ${fmt(w.estimatedMb)} MB.`,
  );
  console.log(
    `In the index, ms per call: ${Object.entries(w.searchMs)
      .map(
        ([query, ms]) =>
          `${query.startsWith("search_nodes") || query === "get_stats" ? query : `search_entities '${query}'`} ${ms.toFixed(2)}`,
      )
      .join(", ")}`,
  );
}
