import { odata } from "@azure/data-tables";

import { type ChangeEvent, commitStamp, commitTimeOf, type FeedPosition, inFeedOrder } from "../../domain/feed/history.js";
import type { EventQuery } from "../../domain/ports/store.js";
import { entityFlag, toChangeEvent } from "../rows/events.js";
import { eventKeyTime, keyRange, rowKey } from "../rows/keys.js";
import type { StoredRow } from "../rows/rows.js";
import { rangeFilter, type TableGateway } from "../table/gateway.js";

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
 * not returned before, in the feed's order (docs/architecture.md#the-feeds-order), and the position to
 * continue from (see changesSince). An event is left out by its key (the seen-set), never by a position
 * in the order, so one that commits after a later-keyed event was returned is still returned.
 */
export function feedStep(
  rows: readonly StoredRow[],
  position: FeedPosition | undefined,
  readAt: number,
  latenessMs: number,
): { events: ChangeEvent[]; position: FeedPosition } {
  const seen = new Set(position?.seen ?? []);
  const events = inFeedOrder(rows.filter((row) => !seen.has(String(row.rowKey))).map(toChangeEvent));
  const windowStart = readAt - latenessMs;
  const kept = [...seen, ...events.map((event) => event.id)].filter((key) => eventKeyTime(key) >= windowStart);
  return { events, position: { readAt, seen: kept } };
}

/**
 * The events committed in a time range, in the feed's order, optionally of one entity or principal (server-side filters).
 * The range is of commit times (docs/architecture.md#the-feeds-order), and an event's key time (its writer's clock) may be
 * up to `latenessMs` before or after it, so the key range read is that much wider and the events outside the range are
 * then left out by their commit time.
 */
export async function readEvents(gateway: TableGateway, workspace: string, query: EventQuery, latenessMs = 0): Promise<ChangeEvent[]> {
  const fromKey = query.fromMs === undefined ? undefined : query.fromMs - latenessMs;
  const toKey = query.toMs === undefined ? undefined : query.toMs + latenessMs;
  let filter = rangeFilter(workspace, keyRange.events(fromKey, toKey));
  // A property name cannot be a template value; entityFlag builds it from a GUID only (a letter and 32 hex digits).
  if (query.entityId !== undefined) filter += ` and ${entityFlag(query.entityId)} eq true`;
  if (query.principal !== undefined) filter += odata` and principal eq ${query.principal}`;
  const from = query.fromMs === undefined ? undefined : commitStamp(new Date(query.fromMs));
  const to = query.toMs === undefined ? undefined : commitStamp(new Date(query.toMs));
  const inRange = (event: ChangeEvent) => {
    const committed = commitTimeOf(event);
    return (from === undefined || committed >= from) && (to === undefined || committed < to);
  };
  return inFeedOrder((await gateway.query(filter)).map(toChangeEvent).filter(inRange));
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
