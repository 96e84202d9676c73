import type { TransactionAction } from "@azure/data-tables";

import type { Change } from "../../domain/feed/history.js";
import { observationId } from "../../domain/model/ids.js";
import type { Actor, Validity } from "../../domain/model/model.js";
import type { ExpiryOutcome, ExpiryTarget } from "../../domain/ports/store.js";
import { heldValidity, isExpired, patchValidity } from "../../domain/rules/validity.js";
import { entityStateOf, relationStateOf } from "../rows/changes.js";
import { keyRange, relationRowKeys, rowKey } from "../rows/keys.js";
import { kindOf, text, validityOfRow } from "../rows/rows.js";
import { stampOf, update } from "../rows/rowWrites.js";
import type { TableGateway } from "../table/gateway.js";
import { retrying } from "../table/retrying.js";
import { commit } from "./transactions.js";

/**
 * set_expiry (docs/history.md#expiry-and-pinning): sets or clears `expiresAt` and `pinned` on an entity row, one observation
 * row, or one relation (its three rows). One read of the target (with the entity row where the target hangs off it), then
 * one transaction that merges the patch with If-Match on the target row's ETag, guards the entity (rule 1 in
 * transactions.ts) and carries the event. A 412 means the row changed since the read (a sweep deleting it fails the same
 * way, the other way round: sweep.ts): read again and decide again.
 */

/** The columns a patch merges: "" clears expiresAt; pinned is stored as a boolean. */
function patchColumns(patch: Validity): Record<string, unknown> {
  return {
    ...(patch.expiresAt !== undefined ? { expiresAt: patch.expiresAt } : {}),
    ...(patch.pinned !== undefined ? { pinned: patch.pinned } : {}),
  };
}

export async function setExpiry(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  target: ExpiryTarget,
  patch: Validity,
  nowMs: number,
): Promise<ExpiryOutcome> {
  const stamp = stampOf(actor, gateway.clock);
  return retrying({ retryOn: ["precondition-failed", "not-found"] }, async () => {
    switch (target.kind) {
      case "entity": {
        const row = await gateway.pointRead(workspace, rowKey.entity(target.entityId));
        if (!row || kindOf(row) !== "entity") return { status: "missing" };
        const before = validityOfRow(row);
        if (isExpired(before, nowMs)) return { status: "expired", expiresAt: before!.expiresAt! };
        const change: Change = {
          kind: "entity.updated",
          entityId: target.entityId,
          entityName: text(row.name),
          after: entityStateOf(row),
          validity: patch,
          ...(before ? { validityBefore: before } : {}),
        };
        const merged = { partitionKey: workspace, rowKey: rowKey.entity(target.entityId), ...patchColumns(patch), ...update(stamp) };
        await commit(gateway, workspace, stamp, [{ actions: [["update", merged, "Merge", { etag: row.etag }]], changes: [change] }], {
          order: "one",
        });
        return done(before, patch, text(row.name));
      }
      case "observation": {
        const key = rowKey.observation(target.entityId, observationId(target.entityId, target.content));
        // One range read (not an OR of keys, which Table Storage answers with a partition scan): the entity row (its name, its
        // expiry) and its observations, among them this one.
        const rows = await gateway.queryRange(workspace, keyRange.entityWithObservations(target.entityId));
        const head = rows.find((row) => kindOf(row) === "entity");
        const row = rows.find((candidate) => text(candidate.rowKey) === key);
        if (!head) return { status: "missing", entityMissing: true };
        const entityExpiry = validityOfRow(head);
        if (isExpired(entityExpiry, nowMs)) return { status: "expired", expiresAt: entityExpiry!.expiresAt!, entityExpired: true };
        if (!row) return { status: "missing" };
        const before = validityOfRow(row);
        if (isExpired(before, nowMs)) return { status: "expired", expiresAt: before!.expiresAt! };
        const change: Change = {
          kind: "observation.updated",
          entityId: target.entityId,
          entityName: text(head.name),
          observationId: observationId(target.entityId, target.content),
          content: target.content,
          validity: patch,
          ...(before ? { validityBefore: before } : {}),
        };
        // The observation row's own fields are created once; only its validity columns are merged.
        const merged = { partitionKey: workspace, rowKey: key, ...patchColumns(patch) };
        await commit(
          gateway,
          workspace,
          stamp,
          [{ actions: [["update", merged, "Merge", { etag: row.etag }]], guards: [target.entityId], changes: [change] }],
          { order: "one" },
        );
        return done(before, patch, text(head.name));
      }
      case "relation": {
        const row = await gateway.pointRead(workspace, rowKey.relation(target.relation.id));
        if (!row || kindOf(row) !== "relation") return { status: "missing" };
        const before = validityOfRow(row);
        if (isExpired(before, nowMs)) return { status: "expired", expiresAt: before!.expiresAt! };
        const [canonical, ...edges] = relationRowKeys(target.relation);
        const fields = { ...patchColumns(patch), ...update(stamp) };
        const actions: TransactionAction[] = [
          ["update", { partitionKey: workspace, rowKey: canonical!, ...fields }, "Merge", { etag: row.etag }],
          ...edges.map((key): TransactionAction => ["update", { partitionKey: workspace, rowKey: key, ...fields }, "Merge"]),
        ];
        const state = relationStateOf(row);
        const change: Change = {
          kind: "relation.updated",
          relationId: target.relation.id,
          before: state,
          after: state,
          validity: patch,
          ...(before ? { validityBefore: before } : {}),
        };
        await commit(
          gateway,
          workspace,
          stamp,
          [{ actions, guards: [target.relation.fromEntityId, target.relation.toEntityId], changes: [change] }],
          { order: "one" },
        );
        return done(before, patch, text(row.fromName));
      }
    }
  });
}

function done(before: Validity | undefined, patch: Validity, entityName: string): ExpiryOutcome {
  const after = patchValidity(before, patch);
  return {
    status: "done",
    entityName,
    ...(after?.expiresAt ? { expiresAt: after.expiresAt } : {}),
    pinned: heldValidity(after)?.pinned === true,
  };
}
