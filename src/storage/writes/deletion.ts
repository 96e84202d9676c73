import type { TransactionAction } from "@azure/data-tables";

import type { Actor } from "../../domain/model/model.js";
import { deletionOf, entityNames, entityStateOf } from "../rows/changes.js";
import { keyRange, ownerOf, relationRowKeys } from "../rows/keys.js";
import { kindOf, type StoredRow, tagPairOf } from "../rows/rows.js";
import { stampOf } from "../rows/rowWrites.js";
import type { TableGateway } from "../table/gateway.js";
import { retrying } from "../table/retrying.js";
import { commit, deleteAction, type Unit } from "./transactions.js";

/**
 * Deletes entities with everything attached: dependents first, then each entity row with If-Match
 * on the ETag read (rules 3 and 4 in transactions.ts), in one transaction with its event (rule 6),
 * one per entity, which may also take the entity's last dependents (see CommitOptions.finals in transactions.ts).
 */
export async function deleteEntities(gateway: TableGateway, workspace: string, actor: Actor, entityIds: readonly string[]): Promise<void> {
  const ids = [...new Set(entityIds)];
  const stamp = stampOf(actor, gateway.clock);
  // 412: an entity changed since the read; 404: a row went away (a concurrent delete). Read again.
  await retrying({ retryOn: ["precondition-failed", "not-found"], exhausted: "conflict" }, async () => {
    const rows = (await Promise.all(ids.map((id) => gateway.queryRange(workspace, keyRange.wholeEntity(id))))).flat();
    if (rows.length === 0) return;
    const heads = rows.filter((row) => kindOf(row) === "entity");
    const finals = heads.map((row): Unit => {
      const key = String(row.rowKey);
      return {
        actions: [deleteAction(workspace, key)],
        conditions: new Map([[key, row.etag]]),
        changes: [{ kind: "entity.deleted", entityId: key, entityName: String(row.name ?? ""), before: entityStateOf(row) }],
      };
    });
    // A dependent may ride in an entity's final only if no other entity being deleted holds one of its rows: that
    // entity's final could commit while this one fails (412), leaving a row in the range of an entity that is gone.
    const deleting = new Set(heads.map((row) => String(row.rowKey)));
    const joins = (unit: Unit, final: Unit) =>
      unit.actions.every((action) => {
        const owner = ownerOf(String(action[1].rowKey));
        return !deleting.has(owner) || owner === String(final.actions[0]![1].rowKey);
      });
    await commit(gateway, workspace, stamp, deletionUnits(workspace, rows), { finals, joins });
  });
}

/**
 * What deleting these rows of entity ranges (the entity rows aside) takes: each relation as one unit
 * (its canonical row and both edge rows, wherever they live), each tag link with its index row, then
 * every other row on its own (singles last, so they fill the gaps the pairs and triples leave). Each
 * unit carries its change, with the before-image read.
 */
export function deletionUnits(workspace: string, rows: readonly StoredRow[]): Unit[] {
  const remove = (key: string): TransactionAction => deleteAction(workspace, key);
  const names = entityNames(rows);
  const changesOf = (row: StoredRow) => {
    const change = deletionOf(row, names);
    return change ? [change] : [];
  };
  const covered = new Set<string>();
  const relationUnits: Unit[] = [];
  const tagUnits: Unit[] = [];
  for (const row of rows) {
    const kind = kindOf(row);
    const pair = tagPairOf(row);
    if (pair) {
      covered.add(String(row.rowKey));
      tagUnits.push({ actions: [remove(pair.link), remove(pair.index)], changes: changesOf(row) });
    }
    if (kind !== "edge-in" && kind !== "edge-out") continue;
    const keys = relationRowKeys({ id: String(row.relationId), fromEntityId: String(row.fromId), toEntityId: String(row.toId) });
    if (covered.has(keys[0]!)) continue; // both edges of the relation are being deleted
    keys.forEach((key) => covered.add(key));
    relationUnits.push({ actions: keys.map(remove), changes: changesOf(row) });
  }
  const singles = rows
    .filter((row) => kindOf(row) !== "entity" && !covered.has(String(row.rowKey)))
    .map((row): Unit => ({ actions: [remove(String(row.rowKey))], changes: changesOf(row) }));
  return [...relationUnits, ...tagUnits, ...singles];
}
