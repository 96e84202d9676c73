import type { TransactionAction } from "@azure/data-tables";
import type { TableGateway } from "./gateway.js";
import { keyRange, relationRowKeys } from "./keys.js";
import { retrying } from "./retrying.js";
import { kindOf, tagPairOf, type StoredRow } from "./rows.js";
import { commitUnits, deleteAction, forEachLimited, type Unit } from "./transactions.js";

/**
 * Deletes entities with everything attached: dependents first, then each entity row with If-Match
 * on the ETag read (rules 3 and 4 in transactions.ts). @azure/data-tables cannot send If-Match on a
 * delete inside a transaction, so each entity row is one request of its own.
 */
export async function deleteEntities(gateway: TableGateway, workspace: string, entityIds: readonly string[]): Promise<void> {
  const ids = [...new Set(entityIds)];
  // 412: an entity changed since the read; 404: a row went away (a concurrent delete). Read again.
  await retrying({ retryOn: ["precondition-failed", "not-found"], exhausted: "conflict" }, async () => {
    const rows = (await Promise.all(ids.map((id) => gateway.queryRange(workspace, keyRange.wholeEntity(id))))).flat();
    if (rows.length === 0) return;
    await commitUnits(gateway, workspace, deletionUnits(workspace, rows));
    const heads = rows.filter((row) => kindOf(row) === "entity");
    await forEachLimited(heads, heads.length, (row) => gateway.deleteRow(workspace, String(row.rowKey), row.etag));
  });
}

/**
 * What deleting these rows of entity ranges (the entity rows aside) takes: each relation as one unit
 * (its canonical row and both edge rows, wherever they live), each tag link with its index row, then
 * every other row on its own (singles last, so they fill the gaps the pairs and triples leave).
 */
export function deletionUnits(workspace: string, rows: readonly StoredRow[]): Unit[] {
  const remove = (key: string): TransactionAction => deleteAction(workspace, key);
  const covered = new Set<string>();
  const relationUnits: Unit[] = [];
  const tagUnits: Unit[] = [];
  for (const row of rows) {
    const kind = kindOf(row);
    const pair = tagPairOf(row);
    if (pair) {
      covered.add(String(row.rowKey));
      tagUnits.push({ actions: [remove(pair.link), remove(pair.index)] });
    }
    if (kind !== "edge-in" && kind !== "edge-out") continue;
    const keys = relationRowKeys({ id: String(row.relationId), fromEntityId: String(row.fromId), toEntityId: String(row.toId) });
    if (covered.has(keys[0]!)) continue; // both edges of the relation are being deleted
    keys.forEach((key) => covered.add(key));
    relationUnits.push({ actions: keys.map(remove) });
  }
  const singles = rows
    .filter((row) => kindOf(row) !== "entity" && !covered.has(String(row.rowKey)))
    .map((row): Unit => ({ actions: [remove(String(row.rowKey))] }));
  return [...relationUnits, ...tagUnits, ...singles];
}
