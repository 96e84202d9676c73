import type { TransactionAction } from "@azure/data-tables";

import type { Change } from "../../domain/feed/history.js";
import { forEachLimited } from "../../domain/model/concurrency.js";
import { LIMITS } from "../../domain/model/limits.js";
import { changeChars, EVENT_MAX_CHARS, eventAction } from "../rows/events.js";
import { rowKey } from "../rows/keys.js";
import type { Stamp } from "../rows/rowWrites.js";
import { CONCURRENCY, type TableGateway } from "../table/gateway.js";
import { registered, registration } from "./registration.js";

/**
 * The adapter's concurrency rules, stated once (other storage modules point here). There are no
 * in-process locks (Functions scales out): keys, entity-group transactions and ETags enforce them.
 *
 * 1. Guards. Every write that hangs a row off an entity (observation, edge, tag link) is in one
 *    transaction with a merge of that entity's row (a "guard"; a tag on an observation also guards the
 *    observation's row). The transaction fails with 404 if the entity is gone, and the merge changes the
 *    entity row's ETag. `pack` below adds the guards.
 * 2. Create, then merge. Entity and relation rows are written with `create` first, so createdAt and
 *    createdBy are written exactly once; on 409 a concurrent writer created the row, so merge instead
 *    (a merge never carries createdAt or createdBy).
 * 3. ETag-checked deletes. An entity row (or tag definition) is deleted with If-Match on the ETag read;
 *    by rule 1, 412 means something was hung on it since: read again and delete what is there now. Once
 *    the row is gone, every later write that would hang a row off it fails its guard.
 * 4. Dependents first. Deleting an entity removes what hangs off it (each relation with both edge rows,
 *    each tag link with its index row, observations) before the entity row, which goes last. A delete
 *    that stops part-way leaves an entity with less attached, never a row that outlives its entity, and
 *    a retry completes it. Rows read while their entity row is absent are never trusted as stored.
 * 5. Races are settled by reading again and deciding again (retrying.ts), a bounded number of times.
 * 6. Events ride in the transaction. Every transaction a write commits carries one event row
 *    (events.ts) describing its changes, so a change and its event commit together or not at all.
 *    `pack` keeps one operation and the event's bytes free for it; `commit` adds it. An entity row
 *    (or tag definition) is deleted with If-Match on the ETag read inside a transaction with its
 *    event: the gateway sets that sub-request's If-Match (gateway.ts, ConditionalDeletes).
 */

export { CONCURRENCY };

/**
 * Packing writes into entity-group transactions (one partition, at most 100 operations, a bounded
 * payload, and each row at most once per transaction), each with its event row (rule 6).
 *
 * A unit is a group of actions that must commit together (for example a relation's canonical row and
 * its two edge rows), plus the entities it hangs rows off, whose guards (rule 1) each transaction
 * carries, once per transaction, and the changes its event records.
 */
export interface Unit {
  actions: TransactionAction[];
  /** Entity ids whose rows this unit's transaction must merge. */
  guards?: readonly string[];
  /** What the unit changes, for the transaction's event. */
  changes?: readonly Change[];
  /** Deletes among `actions` that must hold If-Match on this ETag (row key -> ETag). */
  conditions?: ReadonlyMap<string, string>;
}

export interface Batch<U extends Unit> {
  actions: TransactionAction[];
  units: U[];
  changes: Change[];
  conditions: Map<string, string>;
}

interface OpenBatch<U extends Unit> extends Batch<U> {
  keys: Set<string>;
  bytes: number;
  eventChars: number;
}

/** How many of the most recent open transactions a unit may still be added to (first fit, bounded). */
const OPEN_BATCHES = 4;

const keyOf = (action: TransactionAction): string => String(action[1].rowKey);
/** An action's share of a transaction's payload (its row as JSON). */
export const actionBytes = (action: TransactionAction): number => Buffer.byteLength(JSON.stringify(action[1]), "utf8");
/** The event's changes are JSON stored in a string property, so serialised twice: escaping can double them. */
const eventBytesOf = (chars: number): number => 2 * chars;

function guardAction(workspace: string, entityId: string): TransactionAction {
  return rowGuard(workspace, rowKey.entity(entityId));
}

/** A guard on any row (an entity's, or an observation's that a tag is hung on). */
export function rowGuard(workspace: string, key: string): TransactionAction {
  // A merge with no properties and If-Match "*": it changes nothing but the row's ETag, and fails with 404 if the row is gone.
  return ["update", { partitionKey: workspace, rowKey: key }, "Merge"];
}

/**
 * Packs units, in order, into as few transactions as the limits allow, keeping one operation and
 * the event's share of the payload free in each for its event row. A unit goes into the first of the
 * last few open transactions it fits (so small units fill the gaps big ones leave); a unit is never
 * split. Throws if a unit alone exceeds the limits: callers split such work themselves (see fitsAlone).
 */
export function pack<U extends Unit>(
  workspace: string,
  units: readonly U[],
  maxOperations: number = LIMITS.batchOperations,
  openBatches: number = OPEN_BATCHES,
): Batch<U>[] {
  const batches: OpenBatch<U>[] = [];
  const operations = maxOperations - 1; // the event row's
  for (const unit of units) {
    const unitBytes = unit.actions.reduce((sum, action) => sum + actionBytes(action), 0);
    const unitChars = (unit.changes ?? []).reduce((sum, change) => sum + changeChars(change), 0);
    const fits = (batch: OpenBatch<U>) => {
      if (unit.actions.some((action) => batch.keys.has(keyOf(action)))) return false;
      const newGuards = (unit.guards ?? []).filter((id) => !batch.keys.has(rowKey.entity(id))).length;
      const chars = batch.eventChars + unitChars;
      return (
        batch.actions.length + unit.actions.length + newGuards <= operations &&
        chars <= EVENT_MAX_CHARS &&
        batch.bytes + unitBytes + eventBytesOf(chars) <= LIMITS.batchPayloadBytes
      );
    };
    let target = batches.slice(-openBatches).find(fits);
    if (!target) {
      target = openBatch();
      if (!fits(target)) throw new Error(`A unit of ${unit.actions.length} operations does not fit one transaction.`);
      batches.push(target);
    }
    place(workspace, target, unit);
    target.bytes += unitBytes;
    target.eventChars += unitChars;
  }
  return batches.map(({ actions, units: packed, changes, conditions }) => ({ actions, units: packed, changes, conditions }));
}

const openBatch = <U extends Unit>(): OpenBatch<U> => ({
  actions: [],
  units: [],
  changes: [],
  conditions: new Map(),
  keys: new Set(),
  bytes: 0,
  eventChars: 0,
});

/** Adds the unit to the batch: its guards not already there (once per transaction), its actions, changes and conditions. */
function place<U extends Unit>(workspace: string, batch: OpenBatch<U>, unit: U): void {
  for (const id of unit.guards ?? []) {
    const key = rowKey.entity(id);
    if (batch.keys.has(key)) continue;
    batch.keys.add(key);
    batch.actions.push(guardAction(workspace, id));
  }
  for (const action of unit.actions) {
    batch.keys.add(keyOf(action));
    batch.actions.push(action);
  }
  batch.changes.push(...(unit.changes ?? []));
  for (const [key, etag] of unit.conditions ?? []) batch.conditions.set(key, etag);
  batch.units.push(unit);
}

/** Whether the unit fits one transaction by itself (with its guards and event). */
export function fitsAlone(workspace: string, unit: Unit): boolean {
  try {
    pack(workspace, [unit]);
    return true;
  } catch {
    return false;
  }
}

/** Splits actions into transactions of at most `maxOperations` operations and the payload limit (no events: the bench floor's). */
export function chunkActions(actions: TransactionAction[], maxOperations: number): TransactionAction[][] {
  const batches: TransactionAction[][] = [];
  let current: TransactionAction[] = [];
  let bytes = 0;
  for (const action of actions) {
    const size = actionBytes(action);
    if (current.length > 0 && (current.length >= maxOperations || bytes + size > LIMITS.batchPayloadBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(action);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

export const deleteAction = (workspace: string, key: string): TransactionAction => ["delete", { partitionKey: workspace, rowKey: key }];

/** How the units of one commit become transactions and in what order they are sent (see `commit`). */
/**
 * How `commit` sends the units. The orders exclude each other, and only "in-order" resumes and only "parallel" takes finals,
 * so an option that would mean nothing does not compile.
 * - "parallel" (the default): packed tight, CONCURRENCY transactions at a time.
 * - "in-order": packed the same, sent one after another: for a write whose first unit creates or changes the entity row
 *   every later transaction guards (rule 1), so none can run before it. `resume`: transactions an earlier attempt of the
 *   same units committed; they are not sent again.
 * - "keep-order": one after another, and no unit goes into an earlier transaction than the one before it (no gap
 *   filling), so the units commit, and their changes reach the feed, exactly in the order given.
 * - "one": every unit in one transaction, as given, not packed: the caller has checked the limits (an atomic batch, one
 *   tagging call). Its guards are its own actions.
 * - `finals` ("parallel" only): transactions to commit after all the units (each one transaction, in parallel), for deletes
 *   whose last step, an ETag-checked delete of the row everything hangs off (rules 3 and 4), must come after its
 *   dependents. The event row of each transaction costs one operation; to keep the number of transactions what it was
 *   before events existed (docs/architecture.md#storage-round-trips-per-call), the units that no longer fit that many
 *   transactions ride in a final instead, when `joins` allows (a final commits its dependents atomically with the row
 *   they hang off). Units that fit no final stay a transaction of their own.
 */
export type CommitOptions<U extends Unit> = CommitReports<U> &
  (
    | { order?: "parallel"; finals?: readonly U[]; joins?: (unit: U, final: U) => boolean }
    | { order: "in-order"; resume?: number }
    | { order: "keep-order" | "one" }
  );

interface CommitReports<U extends Unit> {
  /** Hears of each transaction committed, with its units. */
  committed?: (units: readonly U[]) => void;
  /** Settles a transaction that failed (or throws): without it, the first failure is thrown. */
  failed?: (units: readonly U[], error: unknown) => Promise<void>;
}

/**
 * The one commit door: every write of graph data sends its transactions through here. Three writes are not graph data and
 * go to the gateway themselves: delete_workspace's deletes (no events, and it must not register the workspace it removes:
 * workspaceDeletion.ts), the registry's own rows (discover and the deletion log: tableWorkspaceStore.ts, where a
 * registration added here would be a second operation on the same row) and the index generation's claim (indexSource.ts).
 * Each transaction is one entity-group transaction of at most 100 operations: its units' actions and guards (rule 1), one
 * event row recording their changes (rule 6; none when they record no change: a batch marker, a pruning step), and, when
 * it is due and there is room, the workspace's registration (registration.ts). `stamp` is the write's (who, when, which
 * call), for the events; a commit that records no change has none.
 *
 * @example
 * // An entity row, then its observations, each transaction after the one before:
 * await commit(gateway, workspace, stamp, [entityUnit, ...observationUnits], { order: "in-order" });
 */
export async function commit<U extends Unit>(
  gateway: TableGateway,
  workspace: string,
  stamp: Stamp | undefined,
  units: readonly U[],
  options: CommitOptions<U> = {},
): Promise<void> {
  const send = async (batch: Batch<U>): Promise<void> => {
    try {
      await transact(gateway, workspace, stamp, batch);
    } catch (error) {
      if (!options.failed) throw error;
      return options.failed(batch.units, error);
    }
    options.committed?.(batch.units);
  };
  switch (options.order) {
    case "one":
      return send(joined(workspace, units));
    case "in-order":
      for (const batch of pack(workspace, units).slice(options.resume ?? 0)) await send(batch);
      return;
    case "keep-order":
      for (const batch of pack(workspace, units, LIMITS.batchOperations, 1)) await send(batch);
      return;
    default:
      if (options.finals) return withFinals(workspace, units, options.finals, options.joins ?? (() => true), send);
      return forEachLimited(pack(workspace, units), CONCURRENCY, send);
  }
}

/** Sends one transaction: the batch's actions, its event row, and the workspace's registration when due (registration.ts). */
async function transact(gateway: TableGateway, workspace: string, stamp: Stamp | undefined, batch: Batch<Unit>): Promise<void> {
  if (batch.actions.length === 0) return;
  const actions = [...batch.actions];
  if (batch.changes.length > 0) {
    if (!stamp) throw new Error("A transaction that records changes needs the write's stamp for its event.");
    actions.push(eventAction(workspace, stamp, batch.changes));
  }
  const registry = registration(gateway, workspace, actions.length);
  await gateway.transact(registry ? [...actions, registry] : actions, batch.conditions);
  if (registry) registered(gateway, workspace);
}

/** The units as one transaction, not packed (order "one"). */
function joined<U extends Unit>(workspace: string, units: readonly U[]): Batch<U> {
  const batch = openBatch<U>();
  for (const unit of units) place(workspace, batch, unit);
  return batch;
}

/** The units' transactions, in parallel, then the finals' (see CommitOptions.finals). */
async function withFinals<U extends Unit>(
  workspace: string,
  units: readonly U[],
  finals: readonly U[],
  joins: (unit: U, final: U) => boolean,
  send: (batch: Batch<U>) => Promise<void>,
): Promise<void> {
  const before = pack(workspace, units, LIMITS.batchOperations + 1).length; // the packing without event rows
  const batches = pack(workspace, units);
  const overflow = batches.splice(before).flatMap((batch) => batch.units);
  const finalUnits = finals.map((final) => [final]);
  const left: U[] = [];
  for (const unit of overflow) {
    const target = finalUnits.find((group) => joins(unit, group[0]!) && pack(workspace, [...group, unit]).length === 1);
    if (target) target.push(unit);
    else left.push(unit);
  }
  batches.push(...pack(workspace, left));
  await forEachLimited(batches, CONCURRENCY, send);
  await forEachLimited(finalUnits, CONCURRENCY, async (group) => {
    for (const batch of pack(workspace, group)) await send(batch);
  });
}
