import { odata } from "@azure/data-tables";

import type { Change } from "../../domain/feed/history.js";
import { forEachLimited } from "../../domain/model/concurrency.js";
import { LIMITS } from "../../domain/model/limits.js";
import type { Actor } from "../../domain/model/model.js";
import type { SweepReport, SweptItem } from "../../domain/ports/store.js";
import { isExpired, iso } from "../../domain/rules/validity.js";
import { deletionOf, entityNames, entityStateOf } from "../rows/changes.js";
import { keyRange, relationRowKeys, rowKey } from "../rows/keys.js";
import { kindOf, type StoredRow, tagPairOf, text, validityOfRow } from "../rows/rows.js";
import { type Stamp, stampOf } from "../rows/rowWrites.js";
import type { TableGateway } from "../table/gateway.js";
import { classifyStorageError } from "../table/storageErrors.js";
import { deletionUnits } from "./deletion.js";
import { commit, CONCURRENCY, deleteAction, pack, type Unit } from "./transactions.js";

/**
 * sweep_expired (docs/history.md#expiry-and-pinning): deletes what has expired (`expiresAt` at or before now, not pinned),
 * found in storage, not in the index: one server-side filtered query of the workspace's rows, paged by 1,000. Expired items
 * are already hidden from every read; the sweep only reclaims them, recording the deletes in the feed.
 *
 * The race rule: a renewal (set_expiry, or any write that changes the row) racing the sweep wins. Every delete holds
 * If-Match on the ETag the sweep read of the expired row, so a row changed since makes the delete fail (412); the sweep then
 * reads it again and skips it if it is no longer expired:
 * - an observation: its row, its tag links and their index rows, in one transaction, If-Match on the observation row;
 * - a relation: its three rows in one transaction, If-Match on the canonical row (set_expiry merges all three);
 * - an entity: its whole range (with the other endpoints' edge rows and the canonical relation rows) in one transaction,
 *   If-Match on the entity row, when it fits; when it does not, every transaction of its dependents also merges the entity
 *   row with If-Match on its current ETag (read again after each), and the entity row is deleted last (rules 3 and 4 in
 *   transactions.ts).
 */

/** How many times an item is read again after losing a race before the sweep leaves it for the next sweep. */
const ATTEMPTS = 4;

export async function sweepExpired(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  options: { dryRun: boolean; nowMs: number },
): Promise<SweepReport> {
  const { nowMs } = options;
  const found = await expiredRows(gateway, workspace, nowMs);
  const names = await namesOf(gateway, workspace, found);
  const items = found.map((row) => itemOf(row, names));
  if (options.dryRun) return { items, skipped: [] };
  const stamp = stampOf(actor, gateway.clock);
  const report: SweepReport = { items: [], skipped: [] };
  const entities = found.filter((row) => kindOf(row) === "entity");
  const deleted = new Set<string>();
  // Entities first: what hangs off an entity swept goes with it, and is not swept twice.
  const outcomes = await sweepEntities(
    gateway,
    workspace,
    stamp,
    entities.map((row) => text(row.rowKey)),
    nowMs,
  );
  for (const row of entities) {
    const outcome = outcomes.get(text(row.rowKey))!;
    settle(report, itemOf(row, names), outcome);
    if (outcome === "deleted") deleted.add(text(row.rowKey));
  }
  const rest = found.filter((row) => {
    const kind = kindOf(row);
    if (kind === "observation") return !deleted.has(text(row.entityId));
    return kind === "relation" && !deleted.has(text(row.fromId)) && !deleted.has(text(row.toId));
  });
  await forEachLimited(rest, CONCURRENCY, async (row) => {
    const outcome =
      kindOf(row) === "observation"
        ? await sweepObservation(gateway, workspace, stamp, row, nowMs)
        : await sweepRelation(gateway, workspace, stamp, row, nowMs);
    settle(report, itemOf(row, names), outcome);
  });
  return report;
}

type Outcome = "deleted" | { skipped: string };

function settle(report: SweepReport, item: SweptItem, outcome: Outcome): void {
  if (outcome === "deleted") report.items.push(item);
  else report.skipped.push({ ...item, reason: outcome.skipped });
}

/**
 * The expired rows: one query of the partition, the filter served by storage. Entity, observation and canonical relation rows
 * (a relation's edge rows carry the same columns and are reached through it). `expiresAt ge '0'` leaves out the rows without
 * one, and those where it was cleared (""). Pinned rows are few and are left out here.
 */
async function expiredRows(gateway: TableGateway, workspace: string, nowMs: number): Promise<StoredRow[]> {
  const filter = odata`PartitionKey eq ${workspace} and expiresAt ge ${"0"} and expiresAt le ${iso(nowMs)}`;
  const rows: StoredRow[] = [];
  for await (const page of gateway.pages(filter)) {
    for (const row of page) {
      const kind = kindOf(row);
      if ((kind === "entity" || kind === "observation" || kind === "relation") && isExpired(validityOfRow(row), nowMs)) rows.push(row);
    }
  }
  return rows;
}

/** Entity names for the observations found (observation rows do not carry them): the entity rows found, else a point read. */
async function namesOf(gateway: TableGateway, workspace: string, rows: readonly StoredRow[]): Promise<Map<string, string>> {
  const names = entityNames(rows);
  const unknown = [...new Set(rows.filter((row) => kindOf(row) === "observation").map((row) => text(row.entityId)))].filter(
    (id) => !names.has(id),
  );
  const heads = await Promise.all(unknown.map((id) => gateway.pointRead(workspace, rowKey.entity(id))));
  unknown.forEach((id, i) => names.set(id, text(heads[i]?.name)));
  return names;
}

function itemOf(row: StoredRow, names: ReadonlyMap<string, string>): SweptItem {
  const expiresAt = text(row.expiresAt);
  switch (kindOf(row)) {
    case "entity":
      return { kind: "entity", entityId: text(row.rowKey), name: text(row.name), expiresAt };
    case "observation":
      return {
        kind: "observation",
        entityId: text(row.entityId),
        entityName: names.get(text(row.entityId)) ?? "",
        content: text(row.content),
        expiresAt,
      };
    default:
      return {
        kind: "relation",
        relationId: text(row.relationId),
        from: text(row.fromName),
        to: text(row.toName),
        relationType: text(row.relationType),
        expiresAt,
      };
  }
}

/**
 * Runs `attempt` with the row as read; on a lost race (412: the row changed; 404: a row it deletes went away) reads the row
 * again with `reread` and tries again while it is still expired.
 */
async function untilSettled(
  first: StoredRow | undefined,
  nowMs: number,
  reread: () => Promise<StoredRow | undefined>,
  attempt: (row: StoredRow) => Promise<Outcome>,
): Promise<Outcome> {
  let row = first;
  for (let count = 1; ; count++) {
    if (!row) return { skipped: "deleted meanwhile" };
    if (!isExpired(validityOfRow(row), nowMs)) return { skipped: "renewed meanwhile" };
    try {
      return await attempt(row);
    } catch (error) {
      const failure = classifyStorageError(error);
      if (failure !== "precondition-failed" && failure !== "not-found") throw error;
      if (count >= ATTEMPTS) return { skipped: "it kept changing while being swept: the next sweep takes it" };
    }
    row = await reread();
  }
}

async function sweepObservation(gateway: TableGateway, workspace: string, stamp: Stamp, first: StoredRow, nowMs: number): Promise<Outcome> {
  const entityId = text(first.entityId);
  const key = text(first.rowKey);
  // One range from the entity row to the observation's last tag link (not an OR of keys, which Table Storage answers with a
  // partition scan): the entity row names the entity in the events; the observations before this one are passed over.
  const end = keyRange.tagsOf({ entityId, observationId: key.slice(key.lastIndexOf("~") + 1) }).to;
  const read = () => gateway.queryRange(workspace, { from: entityId, to: end });
  let rows = await read();
  const own = (range: readonly StoredRow[]) => range.find((row) => text(row.rowKey) === key);
  if (!rows.some((row) => kindOf(row) === "entity")) return { skipped: "its entity is gone" };
  return untilSettled(
    own(rows),
    nowMs,
    async () => own((rows = await read())),
    async (row) => {
      const dependents = rows.filter((candidate) => text(candidate.rowKey).startsWith(`${key}~`) && tagPairOf(candidate));
      const head = rows.filter((candidate) => kindOf(candidate) === "entity");
      // deletionUnits leaves the entity row alone; it rides along to name the entity in the changes.
      const units = deletionUnits(workspace, [...head, row, ...dependents]);
      await commit(gateway, workspace, stamp, [joinUnits(units, new Map([[key, row.etag]]))], { order: "one" });
      return "deleted";
    },
  );
}

async function sweepRelation(gateway: TableGateway, workspace: string, stamp: Stamp, first: StoredRow, nowMs: number): Promise<Outcome> {
  const key = text(first.rowKey);
  return untilSettled(
    first,
    nowMs,
    () => gateway.pointRead(workspace, key),
    async (row) => {
      const keys = relationRowKeys({ id: text(row.relationId), fromEntityId: text(row.fromId), toEntityId: text(row.toId) });
      const change = deletionOf(row, new Map());
      await commit(
        gateway,
        workspace,
        stamp,
        [
          {
            actions: keys.map((rowKeyOf) => deleteAction(workspace, rowKeyOf)),
            conditions: new Map([[key, row.etag]]),
            changes: change ? [change] : [],
          },
        ],
        { order: "one" },
      );
      return "deleted";
    },
  );
}

async function sweepEntity(gateway: TableGateway, workspace: string, stamp: Stamp, id: string, nowMs: number): Promise<Outcome> {
  const head = (range: readonly StoredRow[]) => range.find((row) => kindOf(row) === "entity");
  const read = () => gateway.queryRange(workspace, keyRange.wholeEntity(id));
  // The whole range, read again: what hangs off the entity now, and the entity row's current ETag.
  let rows = await read();
  return untilSettled(
    head(rows),
    nowMs,
    async () => head((rows = await read())),
    async (current) => {
      const dependents = deletionUnits(workspace, rows);
      const final = finalOf(workspace, current);
      const all = [...dependents, final];
      if (pack(workspace, all).length === 1) {
        await commit(gateway, workspace, stamp, all);
        return "deleted";
      }
      // Too big for one transaction: each transaction of dependents merges the entity row on the ETag it last saw, so a
      // renewal between two of them stops the sweep there, and the entity row goes last.
      let etag = current.etag;
      for (const batch of pack(workspace, dependents, LIMITS.batchOperations - 1, 1)) {
        const guard: Unit = { actions: [["update", { partitionKey: workspace, rowKey: id }, "Merge", { etag }]] };
        await commit(gateway, workspace, stamp, [joinUnits([guard, ...batch.units], batch.conditions)], { order: "one" });
        const now = await gateway.pointRead(workspace, rowKey.entity(id));
        if (!now) return { skipped: "deleted meanwhile" };
        if (!isExpired(validityOfRow(now), nowMs)) return { skipped: "renewed meanwhile" };
        etag = now.etag;
      }
      await commit(gateway, workspace, stamp, [{ ...final, conditions: new Map([[id, etag]]) }], { order: "one" });
      return "deleted";
    },
  );
}

/**
 * Expired entities in bulk: their ranges read a few per query, and entities small enough sharing transactions (each delete
 * still holding If-Match on its entity row's ETag, read in that query). A shared transaction that fails (one of its
 * entities renewed or changed) commits nothing, and its entities are swept one by one (sweepEntity), as are the entities
 * too big for one transaction.
 */
async function sweepEntities(
  gateway: TableGateway,
  workspace: string,
  stamp: Stamp,
  ids: readonly string[],
  nowMs: number,
): Promise<Map<string, Outcome>> {
  const outcomes = new Map<string, Outcome>();
  // One range read per entity, in parallel: an OR of ranges would be answered with a partition scan on Table Storage.
  const ranges = new Map<string, StoredRow[]>(ids.map((id) => [id, []]));
  await forEachLimited(ids, CONCURRENCY, async (id) => {
    ranges.set(id, await gateway.queryRange(workspace, keyRange.wholeEntity(id)));
  });
  const alone: string[] = [];
  const batches: { ids: string[]; units: Unit[] }[] = [];
  for (const id of ids) {
    const rows = ranges.get(id)!;
    const head = rows.find((row) => kindOf(row) === "entity");
    if (!head) outcomes.set(id, { skipped: "deleted meanwhile" });
    else if (!isExpired(validityOfRow(head), nowMs)) outcomes.set(id, { skipped: "renewed meanwhile" });
    else {
      const units = [...deletionUnits(workspace, rows), finalOf(workspace, head)];
      const open = batches.at(-1);
      if (open && pack(workspace, [...open.units, ...units]).length === 1) {
        open.ids.push(id);
        open.units.push(...units);
      } else if (pack(workspace, units).length === 1) batches.push({ ids: [id], units });
      else alone.push(id);
    }
  }
  await forEachLimited(batches, CONCURRENCY, async (batch) => {
    try {
      await commit(gateway, workspace, stamp, batch.units, { order: "one" });
      for (const id of batch.ids) outcomes.set(id, "deleted");
    } catch (error) {
      const failure = classifyStorageError(error);
      if (failure !== "precondition-failed" && failure !== "not-found") throw error;
      alone.push(...batch.ids);
    }
  });
  await forEachLimited(alone, CONCURRENCY, async (id) => void outcomes.set(id, await sweepEntity(gateway, workspace, stamp, id, nowMs)));
  return outcomes;
}

/** The last step of an entity's delete: its row, on the ETag read, with its event. */
function finalOf(workspace: string, head: StoredRow): Unit {
  const id = text(head.rowKey);
  return {
    actions: [deleteAction(workspace, id)],
    conditions: new Map([[id, head.etag]]),
    changes: [{ kind: "entity.deleted", entityId: id, entityName: text(head.name), before: entityStateOf(head) }],
  };
}

/** Units as one: their actions, changes and conditions together (order "one" sends them as one transaction). */
function joinUnits(units: readonly Unit[], conditions: ReadonlyMap<string, string>): Unit {
  const changes: Change[] = units.flatMap((unit) => [...(unit.changes ?? [])]);
  const all = new Map(conditions);
  for (const unit of units) for (const [key, etag] of unit.conditions ?? []) all.set(key, etag);
  return { actions: units.flatMap((unit) => unit.actions), changes, conditions: all };
}
