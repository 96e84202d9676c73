import { odata, type TransactionAction } from "@azure/data-tables";

import { keyRange, rowKey } from "../rows/keys.js";
import type { StorageConnection } from "../table/client.js";
import { rangeFilter, type TableGateway } from "../table/gateway.js";
import { MARKER_TTL_MS } from "./markers.js";
import { commit, deleteAction } from "./transactions.js";

/** How often one instance takes a pruning step per workspace. */
const PRUNE_INTERVAL_MS = 60_000;
/** Events deleted per step: one transaction, with the marker row. */
const PRUNE_BATCH = 99;
const DAY_MS = 86_400_000;

/** A store write: the gateway, the workspace, then the write's own arguments. */
type Write = (gateway: TableGateway, workspace: string, ...rest: never[]) => Promise<unknown>;

/** The writes bound to a gateway: each takes the workspace and its own arguments. */
export type BoundWrites<W> = {
  [K in keyof W]: W[K] extends (gateway: TableGateway, ...rest: infer A) => infer R ? (...rest: A) => R : never;
};

/**
 * The stores' writes bound to the connection's gateway, each followed (if due) by one pruning step: the one place
 * retention wraps the writes (docs/history.md#retention), whatever the write.
 *
 * @example
 * const writes = prunedWrites(storage, { upsertEntity, addTags });
 * await writes.upsertEntity(workspace, actor, write); // then, at most once a minute per workspace, one pruning request
 */
export function prunedWrites<W extends Record<string, Write>>(storage: StorageConnection, writes: W): BoundWrites<W> {
  const pruner = new HistoryPruner(storage.gateway, storage.historyRetentionDays);
  const bound = Object.entries(writes).map(([name, write]) => [
    name,
    (workspace: string, ...rest: never[]) => pruner.after(workspace, write(storage.gateway, workspace, ...rest)),
  ]);
  return Object.fromEntries(bound) as BoundWrites<W>;
}

/**
 * Retention of change events (MEMORY_HISTORY_RETENTION_DAYS, docs/history.md#retention): lazy and
 * bounded. After a write, at most one pruning request per call: one call reads up to 99 expired event
 * keys, a later call deletes them in one transaction that also records, in the marker row, that
 * history before then is gone (as-of reads refuse times it no longer covers). At most once a minute
 * per workspace and instance. Pruning is best effort: a failure (another instance pruned the same
 * events: 404) is dropped, the write it followed has already succeeded.
 */
class HistoryPruner {
  private readonly state = new Map<string, { last: number; expired?: string[] }>();

  constructor(
    private readonly gateway: TableGateway,
    private readonly retentionDays: number,
  ) {}

  /** Runs `write`, then (if due) one pruning step. */
  async after<T>(workspace: string, write: Promise<T>): Promise<T> {
    const result = await write;
    if (this.retentionDays > 0) await this.step(workspace).catch(() => undefined);
    return result;
  }

  private async step(workspace: string): Promise<void> {
    const now = Date.now();
    const state = this.state.get(workspace) ?? { last: 0 };
    this.state.set(workspace, state);
    const expired = state.expired;
    if (expired) {
      state.expired = undefined;
      // Event keys sort after marker keys (keys.ts), so the newest expired key is an event's when there is one.
      const newest = expired[expired.length - 1]!;
      const events = newest >= keyRange.events().from;
      const pruned: TransactionAction = [
        "upsert",
        { partitionKey: workspace, rowKey: rowKey.historyPruned, kind: "history-pruned", before: newest },
        "Replace",
      ];
      // Through the commit door like every write; it records no change, so it has no event row.
      const actions = [...expired.map((key) => deleteAction(workspace, key)), ...(events ? [pruned] : [])];
      await commit(this.gateway, workspace, undefined, [{ actions }], { order: "one" });
      return;
    }
    if (now - state.last < PRUNE_INTERVAL_MS) return;
    state.last = now;
    // One read finds both: the expired events, and the expired batch markers (docs/curate.md#idempotency), which sort just before them.
    const events = keyRange.events(undefined, now - this.retentionDays * DAY_MS);
    const markersBefore = new Date(now - MARKER_TTL_MS).toISOString();
    const filter =
      rangeFilter(workspace, { from: keyRange.batchMarkers.from, to: events.to }) +
      odata` and (RowKey ge ${events.from} or (kind eq ${"batch-marker"} and createdAt lt ${markersBefore}))`;
    for await (const page of this.gateway.pages(filter, ["RowKey"], PRUNE_BATCH)) {
      if (page.length > 0) state.expired = page.map((row) => String(row.rowKey));
      return;
    }
  }
}
