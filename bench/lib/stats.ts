/** Latency summary of one phase. Percentiles by nearest rank over every call (no sampling). */
export interface LatencySummary {
  calls: number;
  p50: number;
  p99: number;
  mean: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function summarize(latenciesMs: readonly number[]): LatencySummary {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return { calls: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean: total / Math.max(1, sorted.length) };
}

export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}
