import { forEachLimited } from "../../domain/model/concurrency.js";
import { observationId } from "../../domain/model/ids.js";
import type { Actor, Validity } from "../../domain/model/model.js";
import type { ObservationChange } from "../../domain/ports/store.js";
import { isExpired } from "../../domain/rules/validity.js";
import { entityNames } from "../rows/changes.js";
import { keyRange, rowKey } from "../rows/keys.js";
import { kindOf, type StoredRow, validityOfRow } from "../rows/rows.js";
import { type Stamp, stampOf } from "../rows/rowWrites.js";
import type { TableGateway } from "../table/gateway.js";
import { retrying } from "../table/retrying.js";
import { deletionUnits } from "./deletion.js";
import { entityEtagGuard, factKeysFor, planObservations } from "./supersession.js";
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
  const committed = new Set<string>(); // observation row keys written (created or reopened) by this call
  const result = () => ({
    missing: [] as string[],
    added: new Map(
      ids.map((id) => [
        id,
        (wanted.get(id)?.contents ?? []).filter((content) => committed.has(rowKey.observation(id, observationId(id, content)))),
      ]),
    ),
  });
  // The declared fact keys, read beside the ranges (only when an observation looks like `key: value`).
  const singleValued = changes.every((change) => change.asRecorded)
    ? Promise.resolve(new Set<string>())
    : factKeysFor(
        gateway,
        workspace,
        [...wanted.values()].flatMap((change) => change.contents),
      );
  // 409: a concurrent call added the same content; 404: an entity was deleted meanwhile; 412: a row reopened or superseded,
  // or an entity serialising a single-valued fact (supersession.ts), changed since the read. Read again and do what is left.
  return retrying({ retryOn: ["entity-exists", "not-found", "precondition-failed"] }, async () => {
    const [ranges, keys] = await Promise.all([
      Promise.all(ids.map((id) => gateway.queryRange(workspace, keyRange.entityWithObservations(id)))),
      singleValued,
    ]);
    // An entity that expired is gone from every read, so it is missing here too (upsert_entity brings it back).
    const now = gateway.clock();
    const missing = ids.filter((_, i) => !ranges[i]!.some((row) => kindOf(row) === "entity" && !isExpired(validityOfRow(row), now)));
    if (missing.length > 0) return { ...result(), missing };
    const stamp = stampOf(actor, gateway.clock);
    const names = entityNames(ranges.flat());
    const units = ids.flatMap((id, i): AddUnit[] => {
      const change = wanted.get(id)!;
      const rows = ranges[i]!;
      // `create`, not upsert: if a concurrent call adds the same content, one of us learns it (409) and reports it not added.
      const plan = planObservations(workspace, { id, name: names.get(id) ?? "" }, rows, change.contents, change.times, keys, stamp);
      if (plan.serial.actions.length === 0) return plan.units;
      // The single-valued fact first, with the entity row on its ETag; the entity's other observations after it (in the
      // same transaction they need no guard of their own).
      const head = rows.find((row) => kindOf(row) === "entity")!;
      const serial: AddUnit = {
        actions: [entityEtagGuard(workspace, head), ...plan.serial.actions],
        changes: plan.serial.changes,
        adds: plan.serial.adds,
      };
      return [serial, ...plan.units];
    });
    await commit(gateway, workspace, stamp, units, {
      committed: (done) => {
        for (const unit of done) for (const key of unit.adds) committed.add(key);
      },
    });
    return result();
  });
}

type AddUnit = Unit & { adds: string[] };

export async function deleteObservations(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  changes: readonly ObservationChange[],
): Promise<void> {
  const wanted = new Map([...mergeChanges(changes)].map(([id, change]) => [id, change.contents]));
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

/** One entry per entity, contents in first-seen order (with the first valid time given for it). */
function mergeChanges(changes: readonly ObservationChange[]): Map<string, { contents: string[]; times?: Validity }> {
  const merged = new Map<string, { contents: string[]; times?: Validity }>();
  for (const change of changes) {
    const held = merged.get(change.entityId);
    const times = held?.times ?? change.times;
    merged.set(change.entityId, { contents: [...(held?.contents ?? []), ...change.contents], ...(times ? { times } : {}) });
  }
  return merged;
}
