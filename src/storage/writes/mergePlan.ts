import type { TransactionAction } from "@azure/data-tables";

import type { Change } from "../../domain/feed/history.js";
import { observationId, relationId } from "../../domain/model/ids.js";
import type { Validity } from "../../domain/model/model.js";
import { byCreation, orderKey } from "../../domain/model/order.js";
import type { MergeReport, RelationLabel } from "../../domain/rules/curationModel.js";
import { presentLens, statusOf } from "../../domain/rules/validity.js";
import { entityStateOf, relationStateOf } from "../rows/changes.js";
import { relationRowKeys, rowKey, tagLinkKeys } from "../rows/keys.js";
import { kindOf, type StoredRow, tagPairOf, text, VALIDITY_COLUMNS, validityOfRow } from "../rows/rows.js";
import { relationRows, type Row, type Stamp, update } from "../rows/rowWrites.js";
import { newVersion } from "../rows/versions.js";
import { deleteAction, rowGuard, type Unit } from "./transactions.js";

/**
 * The plan of merge_entities (docs/curate.md#merge_entities): one source's moves, each a unit that
 * commits whole, and its final unit. The rule every unit keeps (docs/architecture.md, Concurrency
 * rules, Merges): a row leaves a source only in the transaction that puts it on the target, and that
 * transaction fails unless both sides are still what the merge read:
 * - the source's row is deleted with If-Match on the ETag read (412 once it changed: a tag hung on an
 *   observation, a relation's metadata updated), and any delete fails with 404 once the row is gone
 *   (another call moved or deleted it);
 * - its copy is created on the target (409 if one appeared since the read), or, when the target's
 *   read already held that content (a duplicate, dropped), the target's row is guarded (rule 1 in
 *   transactions.ts: 404 if it is gone since, for example moved away by a crossed merge).
 * Without that last guard, two crossed merges each took the other's copy as "already on the target"
 * and deleted both. When the target's copy of an observation is not current and the source's is, the
 * dropped duplicate would take a current fact with it: the target's row takes the source's times
 * instead, in that move's transaction, on the ETag read (412 if it changed since).
 */

export interface EntityRange {
  id: string;
  head: StoredRow;
  rows: StoredRow[];
}

/** What one attempt's planning shares across sources: keys planned onto the target so far, relations planned. */
export interface PlanContext {
  workspace: string;
  stamp: Stamp;
  target: EntityRange;
  /** The ids of every source in the call: a relation to one of them ends on the target. */
  merging: ReadonlySet<string>;
  /** The target's row keys: read, and planned by earlier moves of this attempt. */
  targetKeys: Set<string>;
  /** Relation ids already planned (a relation between two sources is in both ranges). */
  done: Set<string>;
  /** The order position of the next moved observation; it only grows within a call, across attempts too. */
  position: { next: number };
  report: MergeReport;
  /** The target's observations (row key -> TargetCopy), as read and as planned so far: filled by the first source's planning. */
  targetObservations?: Map<string, TargetCopy>;
}

/** One observation on the target as planning knows it: its times, and how a later source's copy may change them. */
interface TargetCopy {
  validity: Validity | undefined;
  /** The ETag read, while no unit of this call touched the row (a guard changes it). */
  etag?: string;
  /** When an earlier source's move creates it in this call: that unit's new row and its event, still to commit. */
  created?: { row: Row; change: Change };
}

const SELECTED = (rows: readonly StoredRow[], kind: string) => rows.filter((row) => kindOf(row) === kind);
const ifMatch = (row: StoredRow): Map<string, string> => new Map([[text(row.rowKey), text(row.etag)]]);

/** One source's moves, in the order they must commit, and its final transaction. */
export function planSource(context: PlanContext, source: EntityRange): { moves: Unit[]; final: Unit } {
  const moves = [...relationMoves(context, source), ...observationMoves(context, source), ...entityTagMoves(context, source)];
  return { moves, final: finalUnit(context, source) };
}

function relationMoves(context: PlanContext, source: EntityRange): Unit[] {
  const { workspace, stamp, target, merging, targetKeys, done, report } = context;
  const targetName = text(target.head.name);
  const onto = (id: string) => (merging.has(id) ? target.id : id);
  const nameOf = (id: string, stored: string) => (id === target.id ? targetName : stored);
  const moves: Unit[] = [];
  for (const edge of [...SELECTED(source.rows, "edge-out"), ...SELECTED(source.rows, "edge-in")]) {
    const id = text(edge.relationId);
    if (done.has(id)) continue;
    done.add(id);
    const old = { id, fromEntityId: text(edge.fromId), toEntityId: text(edge.toId) };
    const from = onto(old.fromEntityId);
    const to = onto(old.toEntityId);
    const write = {
      id: relationId(workspace, from, text(edge.relationType), to),
      fromEntityId: from,
      toEntityId: to,
      fromName: nameOf(from, text(edge.fromName)),
      toName: nameOf(to, text(edge.toName)),
      relationType: text(edge.relationType),
    };
    const label: RelationLabel = { from: write.fromName, relationType: write.relationType, to: write.toName };
    const deletion: Change = { kind: "relation.deleted", relationId: id, before: relationStateOf(edge) };
    // The old relation goes only as read: an update since (upsert_relation writes all three rows) fails the delete (412).
    const oldRows = { actions: relationRowKeys(old).map((key) => deleteAction(workspace, key)), conditions: ifMatch(edge) };
    // A self-loop made by the merge (the source related to the target, or two sources to each other) is dropped.
    if (from === to && old.fromEntityId !== old.toEntityId) {
      report.relations.droppedSelfLoops.push(label);
      moves.push({ ...oldRows, changes: [deletion] });
      continue;
    }
    // One end is the target: its range tells whether the relation exists there already.
    const targetEdge = from === target.id ? rowKey.edgeOut(from, write.id) : rowKey.edgeIn(to, write.id);
    if (targetKeys.has(targetEdge)) {
      // Dropped as a duplicate only while the target's relation is still there (guarded: 404 if it went).
      report.relations.droppedDuplicates.push(label);
      moves.push({ ...oldRows, actions: [rowGuard(workspace, targetEdge), ...oldRows.actions], changes: [deletion] });
      continue;
    }
    // The relation's own fields and history stay (metadata, createdAt, createdBy, order), and so do its valid time,
    // expiry and pin (an ended relation stays ended, docs/history.md#two-times); it is updated now.
    const validity = validityOfRow(edge);
    const fields = {
      metadata: text(edge.metadata) || "{}",
      createdAt: text(edge.createdAt),
      ...(typeof edge.createdBy === "string" ? { createdBy: edge.createdBy } : {}),
      ...(typeof edge.order === "string" ? { order: edge.order } : {}),
      ...update(stamp),
      version: newVersion(),
      ...validity,
    };
    const rows = relationRows(workspace, write, fields);
    targetKeys.add(targetEdge);
    report.relations.moved.push(label);
    moves.push({
      actions: [...rows.map((row): TransactionAction => ["create", row]), ...oldRows.actions],
      conditions: oldRows.conditions,
      guards: [...new Set([from, to])],
      changes: [
        deletion,
        { kind: "relation.created", relationId: write.id, after: relationStateOf(rows[0]!), ...(validity ? { validity } : {}) },
      ],
    });
  }
  return moves;
}

/**
 * The source's observations, in the order they were added. A moved one is added to the target now:
 * its order key is the merge's time and its place in the call, so the target lists its own first, then
 * each source's in their original order (src/domain/model/order.ts), as the feed (one event per move, in
 * this order) tells the index.
 */
function observationMoves(context: PlanContext, source: EntityRange): Unit[] {
  const { workspace, stamp, target, targetKeys, report } = context;
  const targetName = text(target.head.name);
  const sourceName = text(source.head.name);
  const tagsOn = (observationKey: string) =>
    source.rows.filter((row) => kindOf(row) === "observation-tag" && text(row.rowKey).startsWith(`${observationKey}~`));
  context.targetObservations ??= new Map(
    SELECTED(target.rows, "observation").map((row) => [text(row.rowKey), { validity: validityOfRow(row), etag: text(row.etag) }]),
  );
  const copies = context.targetObservations;
  const lens = presentLens(stamp.clock());
  const current = (validity: Validity | undefined) => statusOf(validity, lens) === "current";
  const ordered = SELECTED(source.rows, "observation")
    .map((row) => ({ row, order: text(row.order) || text(row.createdAt), id: text(row.rowKey) }))
    .sort(byCreation)
    .map(({ row }) => row);
  return ordered.map((observation): Unit => {
    const content = text(observation.content);
    const newId = observationId(target.id, content);
    const newKey = rowKey.observation(target.id, newId);
    const oldKey = text(observation.rowKey);
    const actions: TransactionAction[] = [];
    const changes: Change[] = [];
    const copy = copies.get(newKey);
    if (targetKeys.has(newKey)) {
      // Dropped as a duplicate only while the target's copy is still there (guarded: 404 if it went). Tags moved onto
      // it hang on that row too (rule 1). The kept copy is the one current now (docs/curate.md#merge_entities): when the
      // target's is not and this one is, the target's takes this one's times.
      report.observations.droppedDuplicates += 1;
      const validity = validityOfRow(observation);
      const takes = copy !== undefined && !current(copy.validity) && current(validity);
      if (!takes) actions.push(rowGuard(workspace, newKey));
      else if (copy.created) {
        // An earlier source's move creates it in this call: it is created with this copy's times instead.
        for (const column of VALIDITY_COLUMNS) delete copy.created.row[column];
        Object.assign(copy.created.row, validity);
        if (validity) copy.created.change.validity = validity;
        else delete copy.created.change.validity;
        actions.push(rowGuard(workspace, newKey));
      } else {
        // Only its validity columns change, on the ETag read: a supersession, reopening or expiry set since fails it
        // (412, read again). Once an earlier unit of this call guarded the row, its ETag is unknown: merged as it is then.
        const patch = validityPatch(copy.validity, validity);
        const row = { partitionKey: workspace, rowKey: newKey, ...patch };
        actions.push(copy.etag ? ["update", row, "Merge", { etag: copy.etag }] : ["update", row, "Merge"]);
        changes.push({
          kind: "observation.updated",
          entityId: target.id,
          entityName: targetName,
          observationId: newId,
          content,
          validity: patch,
          ...(copy.validity ? { validityBefore: copy.validity } : {}),
        });
      }
      if (copy) {
        if (takes) copy.validity = validity;
        delete copy.etag;
      }
    } else {
      report.observations.moved += 1;
      targetKeys.add(newKey);
      // The row moves whole, its validity columns with it; the event records them too, or every fold of the feed (asOf,
      // the index) would hold the moved observation as current while storage holds it superseded, ended or expiring.
      const { etag: _etag, timestamp: _timestamp, partitionKey: _pk, rowKey: _rk, ...stored } = observation;
      const order = orderKey(stamp.now, context.position.next++);
      const validity = validityOfRow(observation);
      const row: Row = { ...stored, partitionKey: workspace, rowKey: newKey, entityId: target.id, order };
      const change: Change = {
        kind: "observation.created",
        entityId: target.id,
        entityName: targetName,
        observationId: newId,
        content,
        ...(validity ? { validity } : {}),
      };
      actions.push(["create", row]);
      changes.push(change);
      copies.set(newKey, { validity, created: { row, change } });
    }
    for (const link of tagsOn(oldKey)) {
      const moved = moveTag(context, link, { entityId: target.id, observationId: newId });
      actions.push(...moved.actions);
      changes.push(...moved.changes);
    }
    actions.push(deleteAction(workspace, oldKey));
    changes.push({
      kind: "observation.deleted",
      entityId: source.id,
      entityName: sourceName,
      observationId: oldKey.slice(oldKey.lastIndexOf("~") + 1),
      content,
    });
    // On the ETag read: a tag hung on it since the read would be left behind (412 instead: read again).
    return { actions, conditions: ifMatch(observation), guards: [target.id], changes };
  });
}

/** The patch (Validity: "" and `pinned: false` clear) that turns `held` into `wanted`: only the fields that differ. */
function validityPatch(held: Validity | undefined, wanted: Validity | undefined): Validity {
  const patch: Record<string, string | boolean> = {};
  for (const column of VALIDITY_COLUMNS) {
    const value = wanted?.[column] ?? (column === "pinned" ? false : "");
    if (value !== (held?.[column] ?? (column === "pinned" ? false : ""))) patch[column] = value;
  }
  return patch as Validity;
}

function entityTagMoves(context: PlanContext, source: EntityRange): Unit[] {
  return SELECTED(source.rows, "entity-tag").map((link): Unit => {
    const moved = moveTag(context, link, { entityId: context.target.id });
    return { actions: moved.actions, guards: [context.target.id], changes: moved.changes };
  });
}

/** Last: the source's entity row, on the ETag read, with the target's update (its version changes: it took on the source). */
function finalUnit(context: PlanContext, source: EntityRange): Unit {
  const { workspace, stamp, target } = context;
  const version = newVersion();
  const targetBefore = entityStateOf(target.head);
  const sourceKey = rowKey.entity(source.id);
  return {
    actions: [
      ["update", { partitionKey: workspace, rowKey: rowKey.entity(target.id), ...update(stamp), version }, "Merge"],
      deleteAction(workspace, sourceKey),
    ],
    conditions: new Map([[sourceKey, text(source.head.etag)]]),
    changes: [
      {
        kind: "entity.updated",
        entityId: target.id,
        entityName: text(target.head.name),
        before: targetBefore,
        // Only what this merge writes (EntityUpdate): the target's other fields stay as stored, and are not held by an ETag.
        after: { name: targetBefore.name, version },
      },
      {
        kind: "entity.deleted",
        entityId: source.id,
        entityName: text(source.head.name),
        before: entityStateOf(source.head),
        mergedInto: target.id,
      },
    ],
  };
}

/**
 * A tag link (and its index row) moved from a source onto the target; dropped if the target carries that tag already,
 * and then only while it still does (its link guarded: 404 if it went).
 */
function moveTag(
  context: PlanContext,
  link: StoredRow,
  onto: { entityId: string; observationId?: string },
): { actions: TransactionAction[]; changes: Change[] } {
  const { workspace, targetKeys, report } = context;
  const targetName = text(context.target.head.name);
  const old = tagPairOf(link)!;
  const keys = tagLinkKeys(onto, text(link.tagId));
  const tagName = text(link.tagName);
  const actions: TransactionAction[] = [deleteAction(workspace, old.link), deleteAction(workspace, old.index)];
  const at = onto.observationId !== undefined ? { observationId: onto.observationId } : {};
  const observationAt = text(link.observationId) ? { observationId: text(link.observationId) } : {};
  const changes: Change[] = [
    { kind: "tag.deleted", entityId: text(link.entityId), entityName: text(link.entityName), ...observationAt, tagName },
  ];
  if (targetKeys.has(keys.link)) {
    report.tags.droppedDuplicates += 1;
    return { actions: [rowGuard(workspace, keys.link), ...actions], changes };
  }
  targetKeys.add(keys.link);
  report.tags.moved += 1;
  const row: Row = {
    partitionKey: workspace,
    rowKey: keys.link,
    kind: link.kind,
    tagId: text(link.tagId),
    tagName,
    entityId: onto.entityId,
    entityName: targetName,
    ...at,
    createdAt: text(link.createdAt),
  };
  actions.unshift(["create", row], ["create", { ...row, rowKey: keys.index, kind: "tag-index" }]);
  changes.push({ kind: "tag.created", entityId: onto.entityId, entityName: targetName, ...at, tagName });
  return { actions, changes };
}
