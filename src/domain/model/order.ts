/** Ordinal comparison: keys and ISO timestamps must not be sorted by locale rules. */
export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Oldest first, in the order they were added within a call; ties by id, so the order is stable. */
export function byCreation(a: { order: string; id: string }, b: { order: string; id: string }): number {
  return compareText(a.order, b.order) || compareText(a.id, b.id);
}

/** An order key: ISO time, then position within the call. Sorts by time of addition, then call order. */
export function orderKey(now: string, position: number): string {
  return `${now}#${String(position).padStart(6, "0")}`;
}
