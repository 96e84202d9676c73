import type { TransactionAction } from "@azure/data-tables";
import { LIMITS } from "../domain/limits.js";
import { rowKey } from "./keys.js";

/**
 * Packing writes into entity-group transactions (one partition, at most 100 operations, a bounded
 * payload, and each row at most once per transaction).
 *
 * A unit is a group of actions that must commit together (for example a relation's canonical row and
 * its two edge rows), plus the entities it hangs rows off. Each transaction merges the row of every
 * entity its units hang rows off (a "guard"), once per transaction, so the transaction fails if one of
 * those entities was deleted, and an ETag-checked delete of that entity notices the write.
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

export function guardAction(workspace: string, entityId: string): TransactionAction {
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

export { forEachLimited } from "../domain/concurrency.js";
