/**
 * Retrieval metrics over one ranked answer (names, best first) and its judged answers (name -> grade, 1 or 2). Pure; the means
 * over a set of queries are plain averages (each query weighs the same).
 */
export type Judgement = Readonly<Record<string, number>>;

/** Share of the judged answers (any grade) found among the first k. A query with no judged answer scores 0. */
export function recallAt(k: number, ranked: readonly string[], relevant: Judgement): number {
  const judged = Object.keys(relevant).filter((name) => (relevant[name] ?? 0) > 0);
  if (judged.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return judged.filter((name) => top.has(name)).length / judged.length;
}

/** 1 / the rank of the first judged answer; 0 when none is ranked. */
export function reciprocalRank(ranked: readonly string[], relevant: Judgement): number {
  const index = ranked.findIndex((name) => (relevant[name] ?? 0) > 0);
  return index < 0 ? 0 : 1 / (index + 1);
}

/** Graded gain, 2^grade - 1, discounted by log2(rank + 1). */
function dcg(grades: readonly number[]): number {
  return grades.reduce((sum, grade, i) => sum + (2 ** grade - 1) / Math.log2(i + 2), 0);
}

/** nDCG@k with graded relevance: the ranking's DCG over the best possible ordering's. 0 when nothing is judged relevant. */
export function ndcgAt(k: number, ranked: readonly string[], relevant: Judgement): number {
  const ideal = dcg(
    Object.values(relevant)
      .filter((grade) => grade > 0)
      .sort((a, b) => b - a)
      .slice(0, k),
  );
  if (ideal === 0) return 0;
  // A name ranked twice counts once, at its first place.
  const seen = new Set<string>();
  const grades = ranked.slice(0, k).map((name) => {
    if (seen.has(name)) return 0;
    seen.add(name);
    return relevant[name] ?? 0;
  });
  return dcg(grades) / ideal;
}

export interface Scores {
  queries: number;
  recallAt5: number;
  /** The standard error of recallAt5 over these queries (sample standard deviation / √queries): how far it could move. */
  recallAt5StdErr: number;
  recallAt10: number;
  mrr: number;
  ndcgAt10: number;
}

/** The four metrics, averaged over the queries (rankings paired with their judgements). */
export function scoreAll(runs: readonly { ranked: readonly string[]; relevant: Judgement }[]): Scores {
  const mean = (metric: (ranked: readonly string[], relevant: Judgement) => number) =>
    runs.length === 0 ? Number.NaN : runs.reduce((sum, run) => sum + metric(run.ranked, run.relevant), 0) / runs.length;
  const at5 = runs.map((run) => recallAt(5, run.ranked, run.relevant));
  const mean5 = at5.reduce((sum, value) => sum + value, 0) / runs.length;
  const variance = runs.length < 2 ? Number.NaN : at5.reduce((sum, value) => sum + (value - mean5) ** 2, 0) / (runs.length - 1);
  return {
    queries: runs.length,
    recallAt5: mean((ranked, relevant) => recallAt(5, ranked, relevant)),
    recallAt5StdErr: Math.sqrt(variance / runs.length),
    recallAt10: mean((ranked, relevant) => recallAt(10, ranked, relevant)),
    mrr: mean(reciprocalRank),
    ndcgAt10: mean((ranked, relevant) => ndcgAt(10, ranked, relevant)),
  };
}
