import { forEachLimited } from "../../domain/model/concurrency.js";
import { observationId } from "../../domain/model/ids.js";
import type { Actor } from "../../domain/model/model.js";
import type { ObservationChange } from "../../domain/ports/store.js";
import { entityNames, observationCreated } from "../rows/changes.js";
import { keyRange, rowKey } from "../rows/keys.js";
import { kindOf, type StoredRow } from "../rows/rows.js";
import { newObservationRows, type Stamp, stampOf, storedKeys } from "../rows/rowWrites.js";
import type { TableGateway } from "../table/gateway.js";
import { retrying } from "../table/retrying.js";
import { deletionUnits } from "./deletion.js";
import { commit, CONCURRENCY, type Unit } from "./transactions.js";

/** Observations added to and deleted from existing entities. Concurrency rules: transactions.ts. */

/** What finding a tag link's pair takes, and naming it in the change. */
const TAG_LINK_COLUMNS = ["RowKey", "kind", "tagId", "tagName", "entityId", "entityName", "observationId"];

export async function addObservations(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  changes: readonly ObservationChange[],
): Promise<{ missing: string[]; added: Map<string, string[]> }> {
  const wanted = mergeChanges(changes);
  const ids = [...wanted.keys()];
  const committed = new Set<string>(); // observation row keys written by this call
  const result = () => ({
    missing: [] as string[],
    added: new Map(
      ids.map((id) => [id, (wanted.get(id) ?? []).filter((content) => committed.has(rowKey.observation(id, observationId(id, content))))]),
    ),
  });
  // 409: a concurrent call added the same content; 404: an entity was deleted meanwhile. Read again and do what is left.
  return retrying({ retryOn: ["entity-exists", "not-found"] }, async () => {
    const ranges = await Promise.all(ids.map((id) => gateway.queryRange(workspace, keyRange.entityWithObservations(id))));
    const missing = ids.filter((_, i) => !ranges[i]!.some((row) => kindOf(row) === "entity"));
    if (missing.length > 0) return { ...result(), missing };
    const stamp = stampOf(actor, gateway.clock);
    const names = entityNames(ranges.flat());
    const units = ids.flatMap((id, i) => {
      const { rows } = newObservationRows(workspace, id, wanted.get(id) ?? [], storedKeys(ranges[i]!), stamp);
      // `create`, not upsert: if a concurrent call adds the same content, one of us learns it (409) and reports it not added.
      return rows.map((row): Unit => ({
        actions: [["create", row]],
        guards: [id],
        changes: [observationCreated(id, names.get(id) ?? "", row)],
      }));
    });
    await commit(gateway, workspace, stamp, units, {
      committed: (done) => {
        for (const action of done.flatMap((unit) => unit.actions)) if (action[0] === "create") committed.add(String(action[1].rowKey));
      },
    });
    return result();
  });
}

export async function deleteObservations(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  changes: readonly ObservationChange[],
): Promise<void> {
  const wanted = mergeChanges(changes);
  const stamp = stampOf(actor, gateway.clock);
  const ids = [...wanted.keys()];
  // 404: a row went away (a concurrent delete). Read again.
  await retrying({ retryOn: ["not-found"], exhausted: "conflict" }, async () => {
    // Each entity's range holds its observations and their tag links.
    const ranges = await Promise.all(ids.map((id) => gateway.queryRange(workspace, keyRange.entityWithObservations(id))));
    const entities = ids.map((id, i) => ({ id, rows: ranges[i]! }));
    await forEachLimited(entities, CONCURRENCY, ({ id, rows }) =>
      deleteObservationRows(gateway, workspace, stamp, id, rows, wanted.get(id) ?? []),
    );
  });
}

/**
 * Deletes the observations with these contents from one entity's range rows, with their tag links and
 * the links' index rows. Tagging an observation guards its row (rule 1), so once the row is gone no tag
 * can be hung on it; a tag hung on it after the read, before the delete, is found by reading the range
 * again, and deleted with its index row.
 */
async function deleteObservationRows(
  gateway: TableGateway,
  workspace: string,
  stamp: Stamp,
  entityId: string,
  rows: readonly StoredRow[],
  contents: readonly string[],
): Promise<void> {
  const doomed = new Set(contents.map((content) => rowKey.observation(entityId, observationId(entityId, content))));
  const ownKey = (row: StoredRow) =>
    kindOf(row) === "observation" ? String(row.rowKey) : rowKey.observation(entityId, String(row.observationId));
  const victims = (range: readonly StoredRow[]) =>
    range.filter((row) => (kindOf(row) === "observation" || kindOf(row) === "observation-tag") && doomed.has(ownKey(row)));
  const first = victims(rows);
  if (first.length === 0) return;
  // The entity row rides along (not deleted: deletionUnits leaves entity rows) to name the entity in the changes.
  const head = rows.filter((row) => kindOf(row) === "entity");
  await commit(gateway, workspace, stamp, deletionUnits(workspace, [...head, ...first]));
  const late = victims(await gateway.queryRange(workspace, keyRange.entityWithObservations(entityId), TAG_LINK_COLUMNS));
  // A doomed observation present again was added back meanwhile: its tags are its own.
  const back = new Set(late.filter((row) => kindOf(row) === "observation").map(ownKey));
  const orphans = late.filter((row) => !back.has(ownKey(row)));
  await commit(gateway, workspace, stamp, deletionUnits(workspace, [...head, ...orphans]));
}

/** One entry per entity, contents in first-seen order. */
function mergeChanges(changes: readonly ObservationChange[]): Map<string, string[]> {
  const merged = new Map<string, string[]>();
  for (const change of changes) merged.set(change.entityId, [...(merged.get(change.entityId) ?? []), ...change.contents]);
  return merged;
}
