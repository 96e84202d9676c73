import type { JudgedQuery, QueryKind } from "./corpus.js";
import { scoreAll, type Scores } from "./metrics.js";

/** search_entities' rankers: "words" is BM25 alone (today's search), "meaning" vectors alone, "hybrid" the fusion (default). */
export type Mode = "words" | "meaning" | "hybrid";
export const MODES: readonly Mode[] = ["words", "meaning", "hybrid"];

export type Split = QueryKind | "all";
export const SPLITS: readonly Split[] = ["paraphrase", "keyword", "all"];

/** One mode's figures, per query kind, and each query's ranking (for the JSON and the misses). */
export interface ModeQuality {
  mode: Mode;
  scores: Record<Split, Scores>;
  rankings: { query: string; kind: QueryKind; ranked: string[] }[];
}

/** A ranked search: names, best first (at most 10). */
export type Search = (query: string, mode: Mode) => Promise<string[]>;

/** Runs every query once in each mode and scores the rankings by kind. */
export async function measureQuality(search: Search, modes: readonly Mode[], queries: readonly JudgedQuery[]): Promise<ModeQuality[]> {
  const results: ModeQuality[] = [];
  for (const mode of modes) {
    const rankings: ModeQuality["rankings"] = [];
    for (const { query, kind } of queries) rankings.push({ query, kind, ranked: await search(query, mode) });
    const runs = queries.map((query, i) => ({ kind: query.kind, ranked: rankings[i]!.ranked, relevant: query.relevant }));
    const scores = Object.fromEntries(
      SPLITS.map((split) => [split, scoreAll(runs.filter((run) => split === "all" || run.kind === split))]),
    ) as Record<Split, Scores>;
    results.push({ mode, scores, rankings });
  }
  return results;
}
