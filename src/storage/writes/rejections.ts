import type { TransactionAction } from "@azure/data-tables";

import type { Change, PairSide } from "../../domain/feed/history.js";
import { NotFoundError } from "../../domain/model/errors.js";
import type { Actor } from "../../domain/model/model.js";
import type { RejectedPair } from "../../domain/ports/store.js";
import { keyRange, rowKey } from "../rows/keys.js";
import { text } from "../rows/rows.js";
import { stampOf } from "../rows/rowWrites.js";
import type { TableGateway } from "../table/gateway.js";
import { retrying } from "../table/retrying.js";
import { classifyStorageError } from "../table/storageErrors.js";
import { commit, deleteAction, rowGuard, type Unit } from "./transactions.js";

/**
 * Rejected duplicate pairs (reject_duplicate_pair, docs/curate.md#rejecting-a-pair): one row per pair, `~dup~{low}~{high}`
 * (keys.ts), written or deleted in one transaction with its event (transactions.ts rule 6). No read comes first: the row's
 * key makes the write idempotent (a create that meets the row, or a delete that misses it, fails the whole transaction
 * and writes nothing, event included).
 *
 * A rejection guards both entity rows (transactions.ts rule 1), so it lands only while both exist: one deleted or merged
 * away meanwhile fails it with 404, and an ETag-checked delete or merge that read the entity before it reads again.
 * Rows are not removed when an entity goes later: detection only pairs entities that exist, so such a row is never
 * matched, and an entity re-created under the same name (the same id) is the same name the person judged.
 */

/** The two sides in key order, so the row names them as its key does. */
function ordered(a: PairSide, b: PairSide): [PairSide, PairSide] {
  return a.entityId < b.entityId ? [a, b] : [b, a];
}

/**
 * Remembers (or with `undo`, forgets) the pair. Returns whether this call changed what is stored. A guard that found an
 * entity gone while both exist again (deleted and re-created between the transaction and the reads) is a race: the one
 * optimistic-concurrency loop (retrying.ts) runs the call again from the start.
 */
export async function rejectPair(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  pair: { a: PairSide; b: PairSide },
  undo: boolean,
): Promise<{ changed: boolean }> {
  const sides = ordered(pair.a, pair.b);
  const key = rowKey.rejection(sides[0].entityId, sides[1].entityId);
  // The event names the pair as the caller did (its summary reads as they asked); the key alone is order-free.
  const change: Change = { kind: undo ? "rejection.deleted" : "rejection.created", pair: [pair.a, pair.b] };
  return retrying({ retryOn: ["not-found"] }, async () => {
    const stamp = stampOf(actor, gateway.clock);
    const row: TransactionAction = [
      "create",
      {
        partitionKey: workspace,
        rowKey: key,
        kind: "duplicate-rejection",
        aId: sides[0].entityId,
        aName: sides[0].entityName,
        bId: sides[1].entityId,
        bName: sides[1].entityName,
        rejectedAt: stamp.now,
        rejectedBy: actor.principal,
      },
    ];
    const unit: Unit = undo
      ? { actions: [deleteAction(workspace, key)], changes: [change] }
      : {
          actions: [...sides.map((side) => rowGuard(workspace, rowKey.entity(side.entityId))), row],
          changes: [change],
        };
    try {
      await commit(gateway, workspace, stamp, [unit], { order: "one" });
      return { changed: true };
    } catch (error) {
      const failure = classifyStorageError(error);
      // Already rejected: the row stands, nothing written (the create failed the transaction, its event with it).
      if (!undo && failure === "entity-exists") return { changed: false };
      if (failure !== "not-found") throw error;
      // A guard found an entity gone (reject), or there was no rejection to forget (undo): which, if any, entity is missing?
      const named = [pair.a, pair.b]; // as the caller named them, for the message
      const rows = await Promise.all(named.map((side) => gateway.pointRead(workspace, rowKey.entity(side.entityId))));
      const missing = named.filter((_, i) => rows[i] === undefined).map((side) => `'${side.entityName}'`);
      if (missing.length > 0) {
        throw new NotFoundError(
          `${missing.length === 1 ? "Entity" : "Entities"} ${missing.join(" and ")} ${missing.length === 1 ? "does" : "do"} not exist in workspace '${workspace}' ` +
            "(names match exactly; a merge or delete may have removed it). Nothing was written: detect_duplicate_entities lists " +
            "the pairs there are.",
        );
      }
      if (undo) return { changed: false };
      throw error;
    }
  });
}

/** Every rejected pair of the workspace: one range query (the rows hold both ids). */
export async function rejectedPairs(gateway: TableGateway, workspace: string): Promise<RejectedPair[]> {
  const rows = await gateway.queryRange(workspace, keyRange.rejections, ["aId", "aName", "bId", "bName"]);
  return rows.map((row) => ({
    a: { entityId: text(row.aId), entityName: text(row.aName) },
    b: { entityId: text(row.bId), entityName: text(row.bName) },
  }));
}
