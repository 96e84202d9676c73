import { odata } from "@azure/data-tables";
import type { ChangeEvent, FeedPosition } from "../domain/history.js";
import type { EventQuery } from "../domain/store.js";
import { entityFlag, toChangeEvent } from "./events.js";
import { rangeFilter, type TableGateway } from "./gateway.js";
import { eventKeyTime, keyRange, rowKey } from "./keys.js";
import type { StoredRow } from "./rows.js";

/** Reads of the change feed (the event range, keys.ts; docs/history.md). */

/**
 * The events after `position`, and the position to pass next time: one range read (one request per
 * 1,000 events in the window). Writers choose their event keys before they commit, so one can commit
 * after a later-keyed event was read; but never more than `latenessMs` after its key's time
 * (client.ts, feedLatenessMs). So each read starts that far before the previous read began, and the
 * position remembers the keys already returned inside that window: every committed event is
 * returned, exactly once. Without a position, the feed from its start.
 */
export async function changesSince(
  gateway: TableGateway,
  workspace: string,
  latenessMs: number,
  position?: FeedPosition,
): Promise<{ events: ChangeEvent[]; position: FeedPosition }> {
  // Taken before the read is sent: an event it misses was keyed after this, or late within the window.
  const readAt = gateway.clock();
  const rows = await gateway.queryRange(workspace, keyRange.events(position ? position.readAt - latenessMs : undefined));
  return feedStep(rows, position, readAt, latenessMs);
}

/**
 * The event rows of a read that began at `readAt` (from `position.readAt - latenessMs` on): the events
 * not returned before, and the position to continue from (see changesSince).
 */
export function feedStep(
  rows: readonly StoredRow[],
  position: FeedPosition | undefined,
  readAt: number,
  latenessMs: number,
): { events: ChangeEvent[]; position: FeedPosition } {
  const seen = new Set(position?.seen ?? []);
  const events = rows.filter((row) => !seen.has(String(row.rowKey))).map(toChangeEvent);
  const windowStart = readAt - latenessMs;
  const kept = [...seen, ...events.map((event) => event.id)].filter((key) => eventKeyTime(key) >= windowStart);
  return { events, position: { readAt, seen: kept } };
}

/** The events of a time range, oldest first, optionally of one entity or principal (server-side filters). */
export async function readEvents(gateway: TableGateway, workspace: string, query: EventQuery): Promise<ChangeEvent[]> {
  let filter = rangeFilter(workspace, keyRange.events(query.fromMs, query.toMs));
  // A property name cannot be a template value; entityFlag builds it from a GUID only (a letter and 32 hex digits).
  if (query.entityId !== undefined) filter += ` and ${entityFlag(query.entityId)} eq true`;
  if (query.principal !== undefined) filter += odata` and principal eq ${query.principal}`;
  return (await gateway.query(filter)).map(toChangeEvent);
}

/** Where the workspace's history starts: its first event, and how far retention pruned (two requests in parallel). */
export async function historyStart(gateway: TableGateway, workspace: string): Promise<{ first?: ChangeEvent; prunedBefore?: string }> {
  const firstRow = async () => {
    for await (const page of gateway.pages(rangeFilter(workspace, keyRange.events()), undefined, 1)) return page[0];
    return undefined;
  };
  const [row, marker] = await Promise.all([firstRow(), gateway.pointRead(workspace, rowKey.historyPruned)]);
  const before = marker && typeof marker.before === "string" ? new Date(eventKeyTime(marker.before)).toISOString() : undefined;
  return { ...(row ? { first: toChangeEvent(row) } : {}), ...(before !== undefined ? { prunedBefore: before } : {}) };
}
