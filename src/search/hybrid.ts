import type { HitExplanation } from "../domain/ports/graphIndex.js";

/**
 * How search_entities fuses its rankers (docs/search.md#hybrid-retrieval): reciprocal rank fusion. Each ranker gives an
 * ordered list; an entity scores the sum over the lists it is in of weight / (K + rank). Ranks, not scores, are fused,
 * because BM25 scores, cosine similarities and neighbour counts are on scales that do not compare. The weights and depths
 * were chosen on the project's judged corpus (`npm run bench:recall`, docs/search.md#recall-measured).
 */
export const FUSION = {
  /** The usual RRF constant: it damps the difference between the first few ranks. */
  k: 60,
  weights: { words: 2, meaning: 1.5, graph: 0.5 },
  /**
   * The least cosine similarity at which the meaning ranker counts an entity as found: below it, texts share little more
   * than being English.
   */
  meaningFloor: 0.2,
  /** How many of the meaning ranker's nearest entities take part (the rest are too far to help). */
  meaningDepth: 50,
  /**
   * A words hit counts (coverage)^coveragePower of its weight, coverage being the share of the query's terms it matched: a
   * hit on one common word of a question phrased in other words is weak evidence, a hit on all of them strong.
   */
  coveragePower: 2,
  /** The fused hits whose neighbours the graph ranker ranks. */
  graphSeeds: 5,
} as const;

export interface GraphEdge {
  neighbour: string;
  from: string;
  relationType: string;
  to: string;
}

export interface Fused {
  id: string;
  score: number;
  explain: HitExplanation;
}

/**
 * Fuses the words and meaning rankings, then adds the graph ranker: the neighbours of the strongest fused hits, each scored
 * by the ranks of the seeds it touches (a neighbour of the first hit counts most), found through `edgesOf`.
 * `admits` applies the search's filters to entities the graph brings in.
 */
export function fuse(
  words: readonly { id: string; score: number; coverage?: number }[],
  meaning: readonly { id: string; similarity: number; observation?: string }[],
  edgesOf: (id: string) => GraphEdge[],
  admits: (id: string) => boolean,
  /** Orders entities that tie, so that ranks (and so scores) depend on what entities are, never on their ids' order. */
  tie: (a: string, b: string) => number = (a, b) => (a < b ? -1 : a > b ? 1 : 0),
): Fused[] {
  const byScore = (a: Fused, b: Fused) => b.score - a.score || tie(a.id, b.id);
  const fused = new Map<string, Fused>();
  const add = (id: string, weight: number, rank: number): Fused => {
    let hit = fused.get(id);
    if (!hit) {
      hit = { id, score: 0, explain: {} };
      fused.set(id, hit);
    }
    hit.score += weight / (FUSION.k + rank);
    return hit;
  };
  words.forEach(({ id, score, coverage = 1 }, i) => {
    add(id, FUSION.weights.words * coverage ** FUSION.coveragePower, i + 1).explain.words = { rank: i + 1, score: round(score) };
  });
  meaning.slice(0, FUSION.meaningDepth).forEach(({ id, similarity, observation }, i) => {
    add(id, FUSION.weights.meaning, i + 1).explain.meaning = {
      rank: i + 1,
      similarity: round(similarity),
      ...(observation !== undefined ? { observation } : {}),
    };
  });
  const seeds = [...fused.values()].sort(byScore).slice(0, FUSION.graphSeeds);
  const near = new Map<string, { weight: number; via: GraphEdge }>();
  seeds.forEach((seed, i) => {
    for (const edge of edgesOf(seed.id)) {
      if (edge.neighbour === seed.id || !admits(edge.neighbour)) continue;
      const held = near.get(edge.neighbour);
      if (held) held.weight += 1 / (i + 1);
      else near.set(edge.neighbour, { weight: 1 / (i + 1), via: edge });
    }
  });
  [...near]
    .sort(([a, x], [b, y]) => y.weight - x.weight || tie(a, b))
    .forEach(([id, { via }], i) => {
      add(id, FUSION.weights.graph, i + 1).explain.graph = {
        rank: i + 1,
        via: { from: via.from, relationType: via.relationType, to: via.to },
      };
    });
  return [...fused.values()].sort(byScore);
}

const round = (value: number) => Math.round(value * 1000) / 1000;
