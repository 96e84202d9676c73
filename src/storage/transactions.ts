import type { TransactionAction } from "@azure/data-tables";
import { forEachLimited } from "../domain/concurrency.js";
import { LIMITS } from "../domain/limits.js";
import type { TableGateway } from "./gateway.js";
import { rowKey } from "./keys.js";

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
 */

/** Transactions of one call in flight at once: enough to hide latency, few enough not to be throttled. */
export const CONCURRENCY = 8;

/**
 * Packing writes into entity-group transactions (one partition, at most 100 operations, a bounded
 * payload, and each row at most once per transaction).
 *
 * A unit is a group of actions that must commit together (for example a relation's canonical row and
 * its two edge rows), plus the entities it hangs rows off, whose guards (rule 1) each transaction
 * carries, once per transaction.
 */
export interface Unit {
  actions: TransactionAction[];
  /** Entity ids whose rows this unit's transaction must merge. */
  guards?: readonly string[];
}

export interface Batch<U extends Unit> {
  actions: TransactionAction[];
  units: U[];
}

interface OpenBatch<U extends Unit> extends Batch<U> {
  keys: Set<string>;
  bytes: number;
}

/** How many of the most recent open transactions a unit may still be added to (first fit, bounded). */
const OPEN_BATCHES = 4;

const keyOf = (action: TransactionAction): string => String(action[1].rowKey);
const bytesOf = (action: TransactionAction): number => Buffer.byteLength(JSON.stringify(action[1]), "utf8");

function guardAction(workspace: string, entityId: string): TransactionAction {
  return rowGuard(workspace, rowKey.entity(entityId));
}

/** A guard on any row (an entity's, or an observation's that a tag is hung on). */
export function rowGuard(workspace: string, key: string): TransactionAction {
  // A merge with no properties and If-Match "*": it changes nothing but the row's ETag, and fails with 404 if the row is gone.
  return ["update", { partitionKey: workspace, rowKey: key }, "Merge"];
}

/**
 * Packs units, in order, into as few transactions as the limits allow. A unit goes into the first of
 * the last few open transactions it fits (so small units fill the gaps big ones leave); a unit is
 * never split. Throws if a unit alone exceeds the limits: callers split such work themselves.
 */
export function pack<U extends Unit>(workspace: string, units: readonly U[], maxOperations: number = LIMITS.batchOperations): Batch<U>[] {
  const batches: OpenBatch<U>[] = [];
  for (const unit of units) {
    const unitBytes = unit.actions.reduce((sum, action) => sum + bytesOf(action), 0);
    const fits = (batch: OpenBatch<U>) => {
      if (unit.actions.some((action) => batch.keys.has(keyOf(action)))) return false;
      const newGuards = (unit.guards ?? []).filter((id) => !batch.keys.has(rowKey.entity(id))).length;
      return batch.actions.length + unit.actions.length + newGuards <= maxOperations && batch.bytes + unitBytes <= LIMITS.batchPayloadBytes;
    };
    let target = batches.slice(-OPEN_BATCHES).find(fits);
    if (!target) {
      target = { actions: [], units: [], keys: new Set(), bytes: 0 };
      if (!fits(target)) throw new Error(`A unit of ${unit.actions.length} operations does not fit one transaction.`);
      batches.push(target);
    }
    for (const id of unit.guards ?? []) {
      const key = rowKey.entity(id);
      if (target.keys.has(key)) continue;
      target.keys.add(key);
      target.actions.push(guardAction(workspace, id));
    }
    for (const action of unit.actions) {
      target.keys.add(keyOf(action));
      target.actions.push(action);
    }
    target.bytes += unitBytes;
    target.units.push(unit);
  }
  return batches.map(({ actions, units: packed }) => ({ actions, units: packed }));
}

/** Splits actions into transactions of at most `maxOperations` operations and the payload limit. */
export function chunkActions(actions: TransactionAction[], maxOperations: number): TransactionAction[][] {
  const batches: TransactionAction[][] = [];
  let current: TransactionAction[] = [];
  let bytes = 0;
  for (const action of actions) {
    const size = bytesOf(action);
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

/** Packs the units and commits the transactions, CONCURRENCY at a time; `committed` hears of each. */
export function commitUnits<U extends Unit>(
  gateway: TableGateway,
  workspace: string,
  units: readonly U[],
  committed?: (batch: Batch<U>) => void,
): Promise<void> {
  return forEachLimited(pack(workspace, units), CONCURRENCY, async (batch) => {
    await gateway.transact(batch.actions);
    committed?.(batch);
  });
}

/**
 * Writes `head` plus `rest` in as few transactions as the limits allow. `head` goes in the first;
 * every later transaction also carries the guard of `guardEntityId` (rule 1).
 */
export async function submitGuarded(
  gateway: TableGateway,
  workspace: string,
  head: TransactionAction[],
  rest: TransactionAction[],
  guardEntityId: string,
): Promise<void> {
  const batches = chunkActions(rest, LIMITS.batchOperations - 1);
  await gateway.transact([...head, ...(batches[0] ?? [])]);
  for (const batch of batches.slice(1)) await transactUnit(gateway, workspace, { actions: batch, guards: [guardEntityId] });
}

/** One unit (with its guards) as one transaction. */
export function transactUnit(gateway: TableGateway, workspace: string, unit: Unit): Promise<void> {
  const [batch] = pack(workspace, [unit]);
  return gateway.transact(batch?.actions ?? []);
}

export { forEachLimited };
