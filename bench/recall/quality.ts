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

/** Which rankers found a hit (search_entities' `explain`). */
export type Rankers = { words?: unknown; meaning?: unknown; graph?: unknown };

/** Of the judged answers hybrid ranked in its top 10, per query kind: how many, and how many each ranker found. */
export type RankerShares = Record<
  Split,
  { answers: number; words: number; meaning: number; graph: number; only: Record<keyof Rankers, number> }
>;

/** Counts, over each query's top 10, the judged answers each ranker found (and found alone): what each ranker adds. */
export function rankerShares(
  queries: readonly JudgedQuery[],
  explained: ReadonlyMap<string, { name: string; explain?: Rankers }[]>,
): RankerShares {
  const empty = () => ({ answers: 0, words: 0, meaning: 0, graph: 0, only: { words: 0, meaning: 0, graph: 0 } });
  const shares = { paraphrase: empty(), keyword: empty(), all: empty() };
  for (const query of queries) {
    for (const hit of explained.get(query.query) ?? []) {
      if (!(query.relevant[hit.name] ?? 0)) continue;
      const found = (["words", "meaning", "graph"] as const).filter((ranker) => hit.explain?.[ranker] !== undefined);
      for (const tally of [shares[query.kind], shares.all]) {
        tally.answers++;
        for (const ranker of found) tally[ranker]++;
        if (found.length === 1) tally.only[found[0]!]++;
      }
    }
  }
  return shares;
}

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
