import { randomBytes } from "node:crypto";

import type { TransactionAction } from "@azure/data-tables";

import { type Change, type ChangeEvent, commitStamp, entitiesOf } from "../../domain/feed/history.js";
import { isGuid } from "../../domain/model/ids.js";
import { eventKeyTime, rowKey } from "./keys.js";
import { type StoredRow, text } from "./rows.js";
import type { Stamp } from "./rowWrites.js";

/**
 * Event rows (docs/history.md): one per transaction, written in it, summarising its changes. The
 * changes are JSON text split over properties `c0`, `c1`, ... (a string property holds at most
 * 32,768 characters); the packer (transactions.ts) keeps a transaction's changes under
 * EVENT_MAX_CHARS, so the row stays far below the 1 MiB row limit (UTF-16: 2 bytes a character).
 * Each entity the event touches also gets a boolean property, so one entity's history is a
 * server-side filter over the event range (docs/history.md#what-history-costs). A transaction of at
 * most 99 rows touches at most 66 entities (three rows per relation, two endpoints each), so flags,
 * chunks and fixed properties stay far below the 252 properties a row may have.
 */

const EVENT_CHUNK_CHARS = 30_000;
/** 15 chunks: 900 KB as UTF-16, leaving room for the flags and fixed properties within 1 MiB. */
export const EVENT_MAX_CHARS = 15 * EVENT_CHUNK_CHARS;

/** The property that marks an event as touching the entity (a property name is a letter and 32 hex digits). */
export function entityFlag(entityId: string): string {
  // It also goes into filters as a property name, which no template can quote: only a GUID may reach it.
  if (!isGuid(entityId)) throw new Error(`Not an entity id: ${entityId}`);
  return `e${entityId.replace(/-/g, "").toLowerCase()}`;
}

/** The characters a change adds to an event's JSON (its text and a separating comma). */
export const changeChars = (change: Change): number => JSON.stringify(change).length + 1;

interface EventRow {
  kind: "event";
  at: string;
  principal: string;
  tool: string;
  call: string;
  /** How many `c{i}` properties hold the changes' JSON. */
  chunks: number;
}

/**
 * The event row for these changes, keyed now (the writer's clock): the key is chosen as the
 * transaction is about to be sent, so the feed's lateness bound (changesSince) covers only sending.
 * The key places the row in the event range and breaks ties; the feed's order is the row's commit time
 * (docs/architecture.md#the-feeds-order), which storage assigns.
 * An upsert (Replace), so a transaction the SDK re-sends after a lost answer does not fail on its own event.
 */
export function eventAction(workspace: string, stamp: Stamp, changes: readonly Change[]): TransactionAction {
  const ms = stamp.clock();
  const json = JSON.stringify(changes);
  const chunks: Record<string, string> = {};
  let count = 0;
  for (let start = 0; start < json.length;) {
    let end = Math.min(start + EVENT_CHUNK_CHARS, json.length);
    // Never between the halves of a surrogate pair: each half alone is not text storage can keep.
    if (end < json.length && isHighSurrogate(json.charCodeAt(end - 1))) end -= 1;
    chunks[`c${count++}`] = json.slice(start, end);
    start = end;
  }
  const flags = Object.fromEntries([...new Set(changes.flatMap(entitiesOf))].map((id) => [entityFlag(id), true]));
  const row: EventRow = {
    kind: "event",
    at: new Date(ms).toISOString(),
    principal: stamp.actor.principal,
    tool: stamp.actor.tool,
    call: stamp.call,
    chunks: count,
  };
  const key = rowKey.event(ms, randomBytes(6).toString("hex"));
  return ["upsert", { partitionKey: workspace, rowKey: key, ...flags, ...chunks, ...row }, "Replace"];
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

export function toChangeEvent(row: StoredRow): ChangeEvent {
  const count = typeof row.chunks === "number" ? row.chunks : 0;
  let json = "";
  for (let i = 0; i < count; i++) json += text(row[`c${i}`]);
  let changes: Change[] = [];
  try {
    const parsed: unknown = JSON.parse(json || "[]");
    if (Array.isArray(parsed)) changes = parsed as Change[];
  } catch {
    changes = [];
  }
  const committed = commitStamp(row.timestamp);
  return {
    id: text(row.rowKey),
    at: text(row.at) || new Date(eventKeyTime(text(row.rowKey))).toISOString(),
    ...(committed !== undefined ? { committed } : {}),
    principal: text(row.principal),
    tool: text(row.tool),
    call: text(row.call),
    changes,
  };
}
