import type { TransactionAction } from "@azure/data-tables";
import type { MergeReport, RelationLabel } from "../domain/curationModel.js";
import { NotFoundError } from "../domain/errors.js";
import type { Change } from "../domain/history.js";
import { observationId, relationId } from "../domain/ids.js";
import type { Actor } from "../domain/model.js";
import { entityStateOf, relationStateOf } from "./changes.js";
import type { TableGateway } from "./gateway.js";
import { keyRange, relationRowKeys, rowKey, tagLinkKeys } from "./keys.js";
import { readEvents } from "./history.js";
import { retrying } from "./retrying.js";
import { relationRows, stampOf, update, type Row, type Stamp } from "./rowWrites.js";
import { kindOf, tagPairOf, text, type StoredRow } from "./rows.js";
import { commitInOrder, deleteAction, transactUnit, type Unit } from "./transactions.js";
import { newVersion } from "./versions.js";

/**
 * merge_entities (docs/curate.md#merge_entities). Crash safety comes from the order of the writes:
 * each move is one transaction that creates the row on the target and deletes it from the source
 * (a relation: the new relation's three rows and the old one's), so every row is on one side or the
 * other, never both nor neither; the source's entity row is deleted last, with If-Match on the ETag
 * read (rule 3, transactions.ts), in one transaction with the target's update. Until then the source
 * exists, so a rerun reads what is left and moves it; after that the merge is complete and a rerun
 * finds no source and writes nothing. Sources are merged one after another, each one's moves in order.
 */

interface EntityRange {
  id: string;
  head: StoredRow;
  rows: StoredRow[];
}

const SELECTED = (rows: StoredRow[], kind: string) => rows.filter((row) => kindOf(row) === kind);

export async function mergeEntities(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  request: { targetId: string; targetLabel: string; sources: { id: string; label: string }[]; dryRun: boolean },
): Promise<MergeReport> {
  const stamp = stampOf(actor, gateway.clock);
  const report = emptyReport(request);
  // 409: a row a move creates appeared meanwhile; 412: a source changed since the read; 404: a row went away. Read again.
  await retrying({ retryOn: ["entity-exists", "precondition-failed", "not-found"], exhausted: "conflict" }, async () => {
    const target = await readRange(gateway, workspace, request.targetId);
    if (!target) throw new NotFoundError(`Target entity '${request.targetLabel}' not found. Nothing was merged.`);
    const read = await Promise.all(request.sources.map((source) => readRange(gateway, workspace, source.id)));
    const absent = request.sources.filter((_, i) => !read[i]);
    // A source already merged into this target (by this call before a retry, or by an interrupted earlier call) is done.
    const merged = await Promise.all(absent.map((source) => mergedInto(gateway, workspace, source.id, target.id)));
    const unknown = absent.filter((_, i) => !merged[i]);
    if (unknown.length > 0) {
      throw new NotFoundError(
        `Source ${unknown.map((source) => `'${source.label}'`).join(", ")} not found (and not merged into '${request.targetLabel}' before). ` +
          "Nothing was merged. Check the names with search_nodes.",
      );
    }
    const sources = read.filter((source): source is EntityRange => source !== undefined);
    Object.assign(report, emptyReport(request), {
      target: { id: target.id, name: text(target.head.name) },
      sources: sources.map((source) => ({ id: source.id, name: text(source.head.name) })),
      alreadyMerged: absent.map((source) => source.label),
    });
    const merging = new Set(request.sources.map((source) => source.id));
    const names = new Map([[target.id, text(target.head.name)]]);
    const targetKeys = new Set(target.rows.map((row) => text(row.rowKey)));
    const done = new Set<string>(); // relation ids already planned (a relation between two sources is in both ranges)
    const plans = sources.map((source) => planSource(workspace, stamp, target, source, merging, names, targetKeys, done, report));
    if (request.dryRun) return;
    for (const plan of plans) {
      await commitInOrder(gateway, workspace, stamp, plan.moves);
      await transactUnit(gateway, workspace, stamp, plan.final);
    }
  });
  return report;
}

/**
 * Whether the entity's last change is its deletion by a merge into `targetId` (its history: a
 * server-side filter over the events, read only for a source that is not there).
 */
async function mergedInto(gateway: TableGateway, workspace: string, entityId: string, targetId: string): Promise<boolean> {
  const events = await readEvents(gateway, workspace, { entityId });
  const last = events
    .flatMap((event) => event.changes)
    .filter((change) => change.entityId === entityId && change.kind.startsWith("entity."))
    .at(-1);
  return last?.kind === "entity.deleted" && last.mergedInto === targetId;
}

async function readRange(gateway: TableGateway, workspace: string, id: string): Promise<EntityRange | undefined> {
  const rows = await gateway.queryRange(workspace, keyRange.wholeEntity(id));
  const head = rows.find((row) => kindOf(row) === "entity");
  return head ? { id, head, rows } : undefined;
}

function emptyReport(request: { targetId: string; targetLabel: string; sources: { id: string; label: string }[] }): MergeReport {
  return {
    target: { id: request.targetId, name: request.targetLabel },
    sources: request.sources.map((source) => ({ id: source.id, name: source.label })),
    observations: { moved: 0, droppedDuplicates: 0 },
    relations: { moved: [], droppedSelfLoops: [], droppedDuplicates: [] },
    tags: { moved: 0, droppedDuplicates: 0 },
    alreadyMerged: [],
  };
}

/** One source's moves (each a unit that commits whole) and its final transaction. */
function planSource(
  workspace: string,
  stamp: Stamp,
  target: EntityRange,
  source: EntityRange,
  merging: ReadonlySet<string>,
  names: ReadonlyMap<string, string>,
  targetKeys: Set<string>,
  done: Set<string>,
  report: MergeReport,
): { moves: Unit[]; final: Unit } {
  const remove = (key: string): TransactionAction => deleteAction(workspace, key);
  const targetName = names.get(target.id)!;
  const sourceName = text(source.head.name);
  const moves: Unit[] = [];
  const onto = (id: string) => (merging.has(id) ? target.id : id);
  const nameOf = (id: string, stored: string) => (id === target.id ? targetName : stored);

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
    const oldRows = relationRowKeys(old).map(remove);
    // A self-loop made by the merge (the source related to the target, or two sources to each other) is dropped.
    if (from === to && old.fromEntityId !== old.toEntityId) {
      report.relations.droppedSelfLoops.push(label);
      moves.push({ actions: oldRows, changes: [deletion] });
      continue;
    }
    // One end is the target: its range tells whether the relation exists there already.
    const targetEdge = from === target.id ? rowKey.edgeOut(from, write.id) : rowKey.edgeIn(to, write.id);
    if (targetKeys.has(targetEdge)) {
      report.relations.droppedDuplicates.push(label);
      moves.push({ actions: oldRows, changes: [deletion] });
      continue;
    }
    // The relation's own fields and history stay (metadata, createdAt, createdBy, order); it is updated now.
    const fields = {
      metadata: text(edge.metadata) || "{}",
      createdAt: text(edge.createdAt),
      ...(typeof edge.createdBy === "string" ? { createdBy: edge.createdBy } : {}),
      ...(typeof edge.order === "string" ? { order: edge.order } : {}),
      ...update(stamp),
      version: newVersion(),
    };
    const rows = relationRows(workspace, write, fields);
    targetKeys.add(targetEdge);
    report.relations.moved.push(label);
    moves.push({
      actions: [...rows.map((row): TransactionAction => ["create", row]), ...oldRows],
      guards: [...new Set([from, to])],
      changes: [deletion, { kind: "relation.created", relationId: write.id, after: relationStateOf(rows[0]!) }],
    });
  }

  const tagsOn = (observationKey: string) =>
    source.rows.filter((row) => kindOf(row) === "observation-tag" && text(row.rowKey).startsWith(`${observationKey}~`));
  for (const observation of SELECTED(source.rows, "observation")) {
    const content = text(observation.content);
    const newId = observationId(target.id, content);
    const newKey = rowKey.observation(target.id, newId);
    const oldKey = text(observation.rowKey);
    const actions: TransactionAction[] = [];
    const changes: Change[] = [];
    const exists = targetKeys.has(newKey);
    if (exists) report.observations.droppedDuplicates += 1;
    else {
      report.observations.moved += 1;
      targetKeys.add(newKey);
      const { etag: _etag, timestamp: _timestamp, partitionKey: _pk, rowKey: _rk, ...stored } = observation;
      actions.push(["create", { ...stored, partitionKey: workspace, rowKey: newKey, entityId: target.id }]);
      changes.push({ kind: "observation.created", entityId: target.id, entityName: targetName, observationId: newId, content });
    }
    for (const link of tagsOn(oldKey)) {
      const moved = moveTag(workspace, link, { entityId: target.id, observationId: newId }, targetName, targetKeys, report);
      actions.push(...moved.actions);
      changes.push(...moved.changes);
    }
    actions.push(remove(oldKey));
    changes.push({
      kind: "observation.deleted",
      entityId: source.id,
      entityName: sourceName,
      observationId: text(observation.rowKey).slice(oldKey.lastIndexOf("~") + 1),
      content,
    });
    // A tag moved onto an observation the target had already hangs on that row: guard it too (rule 1).
    const guardRows: TransactionAction[] =
      exists && tagsOn(oldKey).length > 0 ? [["update", { partitionKey: workspace, rowKey: newKey }, "Merge"]] : [];
    moves.push({ actions: [...guardRows, ...actions], guards: [target.id], changes });
  }

  for (const link of SELECTED(source.rows, "entity-tag")) {
    const moved = moveTag(workspace, link, { entityId: target.id }, targetName, targetKeys, report);
    moves.push({ actions: moved.actions, guards: [target.id], changes: moved.changes });
  }

  // Last: the source's entity row, on the ETag read, with the target's update (its version changes: it took on the source).
  const version = newVersion();
  const targetBefore = entityStateOf(target.head);
  const sourceKey = rowKey.entity(source.id);
  const final: Unit = {
    actions: [
      ["update", { partitionKey: workspace, rowKey: rowKey.entity(target.id), ...update(stamp), version }, "Merge"],
      remove(sourceKey),
    ],
    conditions: new Map([[sourceKey, source.head.etag]]),
    changes: [
      { kind: "entity.updated", entityId: target.id, entityName: targetName, before: targetBefore, after: { ...targetBefore, version } },
      { kind: "entity.deleted", entityId: source.id, entityName: sourceName, before: entityStateOf(source.head), mergedInto: target.id },
    ],
  };
  return { moves, final };
}

/** A tag link (and its index row) moved from a source onto the target; dropped if the target carries that tag already. */
function moveTag(
  workspace: string,
  link: StoredRow,
  onto: { entityId: string; observationId?: string },
  targetName: string,
  targetKeys: Set<string>,
  report: MergeReport,
): { actions: TransactionAction[]; changes: Change[] } {
  const old = tagPairOf(link)!;
  const keys = tagLinkKeys(onto, text(link.tagId));
  const tagName = text(link.tagName);
  const actions: TransactionAction[] = [deleteAction(workspace, old.link), deleteAction(workspace, old.index)];
  const at = onto.observationId !== undefined ? { observationId: onto.observationId } : {};
  const changes: Change[] = [
    {
      kind: "tag.deleted",
      entityId: text(link.entityId),
      entityName: text(link.entityName),
      ...(text(link.observationId) ? { observationId: text(link.observationId) } : {}),
      tagName,
    },
  ];
  if (targetKeys.has(keys.link)) {
    report.tags.droppedDuplicates += 1;
    return { actions, changes };
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
