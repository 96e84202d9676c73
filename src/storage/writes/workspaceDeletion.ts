import { odata, type TransactionAction } from "@azure/data-tables";

import { forEachLimited } from "../../domain/model/concurrency.js";
import { ConflictError } from "../../domain/model/errors.js";
import { LIMITS } from "../../domain/model/limits.js";
import { ownerOf, relationRowKeys, rowKey, vectorPartition } from "../rows/keys.js";
import { kindOf, type StoredRow, tagPairOf, text } from "../rows/rows.js";
import { CONCURRENCY, type TableGateway } from "../table/gateway.js";
import { classifyStorageError, type StorageFailure, toMemoryError } from "../table/storageErrors.js";

/**
 * Emptying a workspace's partition while writers may still be writing to it (docs/navigate.md#delete_workspace).
 *
 * Each pass reads the partition (every row but the registry row, a few properties each) and deletes it under the same
 * rules as delete_entities (transactions.ts, rules 1, 3 and 4): what hangs off a row goes before it or in the same
 * transaction, and every row others hang rows off (entity rows, observations, tag definitions) is deleted with If-Match on
 * the ETag read. A write that hung a row off one of them after the read changed that ETag (its guard), so the delete fails
 * with 412; a row gone meanwhile fails it with 404. Either way the pass stops before anything that depended on the failed
 * transaction, and the next pass reads again. Passes go on until one reads nothing: then every row committed before that
 * read is gone, and what a writer commits later (its guard fails with 404 once its entity row is gone; a create starts a
 * fresh entity) is the next workspace's.
 */

/** Passes (each one read of the partition) before the call gives up with ConflictError: writers kept writing. */
const MAX_PASSES = 10;

/** What a pass reads of each row: enough to find the rows deleted together with it (a relation's three, a tag's pair). */
const SELECT = ["RowKey", "kind", "relationId", "fromId", "toId", "tagId", "entityId", "observationId"];

/**
 * Rows deleted in one transaction. `level` orders them: 0, rows nothing hangs off (or that take what hangs off them along:
 * an observation with its tags); 1, an observation whose tags did not fit with it; 2, entity rows and tag definitions.
 * A unit of a level never commits before the units of lower levels it may depend on (see waves).
 */
interface Unit {
  keys: string[];
  /** Row key -> the ETag read: deleted only if it is still that row (a write since hung something off it). */
  conditions: [string, string][];
  level: number;
  /**
   * Set when some of its rows were not read (a relation or tag pair left half by an older version, or written during the
   * read): the rows that were. Such a unit is a transaction of its own, and if some of its rows are missing (404), these go.
   */
  read?: string[];
}

interface Chunk {
  units: Unit[];
  operations: number;
  minLevel: number;
  maxLevel: number;
  /** A unit with rows that were not read, alone. */
  loose: boolean;
}

/**
 * Deletes every row of the workspace but its registry row, pass after pass until a pass reads nothing. Returns the rows
 * deleted. Throws ConflictError after MAX_PASSES passes that all found rows (writers kept writing); what it left is whole.
 */
export async function emptyPartition(gateway: TableGateway, workspace: string): Promise<number> {
  let deleted = 0;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const rows = await gateway.query(odata`PartitionKey eq ${workspace} and RowKey ne ${rowKey.workspace}`, SELECT);
    if (rows.length === 0) return deleted;
    deleted += await deletePass(gateway, workspace, plan(rows));
  }
  throw new ConflictError(
    `Workspace '${workspace}' kept being written while it was deleted: ${deleted} rows were deleted, and rows written meanwhile ` +
      "remain (none half-deleted). Stop the writers and call delete_workspace again.",
  );
}

/**
 * Deletes the workspace's kept vectors (rows/keys.ts vectorPartition), which hold what its texts meant: one key-only read, then
 * transactions of 100. Nothing hangs off a vector and none is ever wrong (a row is a function of its model and text), so there
 * is no race to settle: a vector an index saves meanwhile is the one a later workspace of that name would compute. Returns
 * the rows deleted.
 */
export async function emptyVectors(gateway: TableGateway, workspace: string): Promise<number> {
  const partitionKey = vectorPartition(workspace);
  let deleted = 0;
  // Until a read finds none: a transaction one of whose rows went meanwhile (another deletion) fails whole, and its other
  // rows are deleted one by one.
  for (;;) {
    const keys = (await gateway.query(odata`PartitionKey eq ${partitionKey}`, ["RowKey"])).map((row) => text(row.rowKey));
    if (keys.length === 0) return deleted;
    const chunks: string[][] = [];
    for (let i = 0; i < keys.length; i += LIMITS.batchOperations) chunks.push(keys.slice(i, i + LIMITS.batchOperations));
    await forEachLimited(chunks, CONCURRENCY, async (chunk) => {
      try {
        await gateway.transact(chunk.map((key) => ["delete", { partitionKey, rowKey: key }]));
        deleted += chunk.length;
      } catch (error) {
        if (classifyStorageError(error) !== "not-found") throw toMemoryError(error);
        for (const key of chunk) {
          try {
            await gateway.deleteRow(partitionKey, key, "*");
            deleted += 1;
          } catch (single) {
            if (classifyStorageError(single) !== "not-found") throw toMemoryError(single);
          }
        }
      }
    });
  }
}

/** The units that delete these rows, each row in exactly one. */
export function plan(rows: readonly StoredRow[]): Unit[] {
  const seen = new Set(rows.map((row) => text(row.rowKey)));
  const covered = new Set<string>();
  const units: Unit[] = [];
  /** A group of rows that must go together (a relation's three, a tag's link and index row), from any of them. */
  const group = (key: string, keys: readonly string[]): Unit => {
    const all = keys.includes(key) ? [...keys] : [key];
    all.forEach((each) => covered.add(each));
    return {
      keys: all,
      conditions: [],
      level: 0,
      ...(all.every((each) => seen.has(each)) ? {} : { read: all.filter((each) => seen.has(each)) }),
    };
  };
  // Tag pairs on observations go with their observation (both ways of hanging rows off it are then settled at once).
  const observationTags = new Map<string, Unit[]>();
  const looseTags = new Set<string>();
  for (const row of rows) {
    const pair = kindOf(row) === "observation-tag" || kindOf(row) === "tag-index" ? tagPairOf(row) : undefined;
    if (!pair || !text(row.observationId)) continue;
    const observation = rowKey.observation(text(row.entityId), text(row.observationId));
    if (!seen.has(observation) || covered.has(pair.link)) continue;
    const unit = group(text(row.rowKey), [pair.link, pair.index]);
    if (unit.read) {
      unit.keys.forEach((key) => covered.delete(key)); // left for the loop below, on its own, before its observation
      looseTags.add(observation);
      continue;
    }
    observationTags.set(observation, [...(observationTags.get(observation) ?? []), unit]);
  }
  const owners = new Set(
    rows
      .map((row) => text(row.rowKey))
      .filter((key) => key.includes("~"))
      .map(ownerOf),
  );
  for (const row of rows) {
    const key = text(row.rowKey);
    if (covered.has(key)) continue;
    const kind = kindOf(row);
    if (kind === "relation" || kind === "edge-in" || kind === "edge-out") {
      const [relationId, fromEntityId, toEntityId] = [text(row.relationId), text(row.fromId), text(row.toId)];
      units.push(group(key, relationId && fromEntityId && toEntityId ? relationRowKeys({ id: relationId, fromEntityId, toEntityId }) : []));
    } else if (kind === "entity-tag" || kind === "observation-tag" || kind === "tag-index") {
      const pair = tagPairOf(row)!;
      units.push(group(key, [pair.link, pair.index]));
    } else if (kind === "observation") {
      const tags = observationTags.get(key) ?? [];
      const whole = 1 + tags.reduce((sum, unit) => sum + unit.keys.length, 0);
      const observation = { keys: [key], conditions: [[key, row.etag]] as [string, string][], level: 0 };
      if (looseTags.has(key)) units.push(...tags, { ...observation, level: 1 });
      else if (whole <= LIMITS.batchOperations) units.push({ ...observation, keys: [key, ...tags.flatMap((unit) => unit.keys)] });
      else units.push(...tags, { ...observation, level: 1 });
    } else if (kind === "entity") {
      // An entity with nothing in its range goes at level 0: nothing can hang off it without changing its ETag.
      units.push({ keys: [key], conditions: [[key, row.etag]], level: owners.has(key) ? 2 : 0 });
    } else if (kind === "tag") {
      units.push({ keys: [key], conditions: [[key, row.etag]], level: 2 });
    } else {
      units.push({ keys: [key], conditions: [], level: 0 }); // events, markers, the pruning marker: nothing hangs off them
    }
  }
  return units;
}

/** How many of the most recent chunks a unit may still join (first fit, so small units fill the gaps big ones leave). */
const OPEN_CHUNKS = 4;

/**
 * Packs the units into transactions of at most 100 rows, level after level (a loose unit alone), and sorts the
 * transactions into waves: a transaction waits for every earlier one holding a unit of a lower level than its highest.
 */
export function waves(units: readonly Unit[]): Chunk[][] {
  const chunks: Chunk[] = [];
  const loose = units.filter((unit) => unit.read);
  for (const unit of loose) chunks.push({ units: [unit], operations: unit.keys.length, minLevel: 0, maxLevel: 0, loose: true });
  const levels = [...new Set(units.map((unit) => unit.level))].sort((a, b) => a - b);
  let from = chunks.length;
  for (const level of levels) {
    for (const unit of units.filter((each) => !each.read && each.level === level)) {
      const open = chunks.slice(Math.max(from, chunks.length - OPEN_CHUNKS));
      let target = open.find((chunk) => !chunk.loose && chunk.operations + unit.keys.length <= LIMITS.batchOperations);
      if (!target) {
        target = { units: [], operations: 0, minLevel: level, maxLevel: level, loose: false };
        chunks.push(target);
      }
      target.units.push(unit);
      target.operations += unit.keys.length;
      target.minLevel = Math.min(target.minLevel, level);
      target.maxLevel = Math.max(target.maxLevel, level);
    }
    from = Math.max(from, chunks.length - 1); // a higher level may share only the last transaction of this one
  }
  // The latest wave holding a transaction whose lowest level is L, for each L: a transaction goes after every one of those
  // with L below its highest level.
  const latest = new Map<number, number>();
  const wave = chunks.map((chunk) => {
    const after = [...latest].filter(([level]) => level < chunk.maxLevel).map(([, at]) => at + 1);
    const at = Math.max(0, ...after);
    latest.set(chunk.minLevel, Math.max(latest.get(chunk.minLevel) ?? 0, at));
    return at;
  });
  const grouped: Chunk[][] = [];
  chunks.forEach((chunk, index) => (grouped[wave[index]!] ??= []).push(chunk));
  return grouped.filter((group) => group.length > 0);
}

/** One pass's deletes, wave by wave; a wave that lost a race ends the pass (the next one reads again). Returns the rows deleted. */
async function deletePass(gateway: TableGateway, workspace: string, units: readonly Unit[]): Promise<number> {
  let deleted = 0;
  for (const wave of waves(units)) {
    let raced = false;
    await forEachLimited(wave, CONCURRENCY, async (chunk) => {
      const attempt = async (keys: string[]): Promise<StorageFailure | undefined> => {
        const actions: TransactionAction[] = keys.map((key) => ["delete", { partitionKey: workspace, rowKey: key }]);
        try {
          await gateway.transact(actions, new Map(chunk.units.flatMap((unit) => unit.conditions)));
          deleted += actions.length;
          return undefined;
        } catch (error) {
          const failure = classifyStorageError(error);
          if (failure !== "not-found" && failure !== "precondition-failed") throw toMemoryError(error);
          return failure;
        }
      };
      let failure = await attempt(chunk.units.flatMap((unit) => unit.keys));
      // A half relation or tag pair (an older version's): what is left of it goes, as it is.
      const read = chunk.loose ? chunk.units[0]!.read : undefined;
      if (failure === "not-found" && read && read.length > 0) failure = await attempt(read);
      if (failure) raced = true;
    });
    if (raced) break;
  }
  return deleted;
}
