import { odata, type TransactionAction } from "@azure/data-tables";

import type { Change } from "../../domain/feed/history.js";
import { forEachLimited } from "../../domain/model/concurrency.js";
import type { Actor, TagDefinition } from "../../domain/model/model.js";
import type { TagChange, TagRef, TagTarget } from "../../domain/ports/store.js";
import { deletionOf } from "../rows/changes.js";
import { keyRange, rowKey, tagLinkKeys } from "../rows/keys.js";
import { kindOf, type StoredRow, type TagLinkRow, tagPairOf, type TagRow, text, toTagDefinition } from "../rows/rows.js";
import { type Stamp, stampOf } from "../rows/rowWrites.js";
import type { TableGateway } from "../table/gateway.js";
import { retrying } from "../table/retrying.js";
import { commit, CONCURRENCY, deleteAction, rowGuard, type Unit } from "./transactions.js";

/**
 * Writing tags (layout in keys.ts, concurrency rules in transactions.ts). A tag on an entity or an
 * observation is two rows, a link in the entity's range and an index row in the tag's range, always
 * written and deleted together in one transaction; writing them guards the entity row (and the
 * observation row), and merges the tag's definition.
 */

/** The tag writes, for the store to bind (retention.ts, prunedWrites). */
export const tagWrites = { addTags, removeTags, defineTag, deleteTags };

/** Index columns a tag's rows need to find their pairs, and to be counted. */
export const INDEX_COLUMNS = ["RowKey", "kind", "tagId", "tagName", "entityId", "entityName", "observationId"];

function addTags(gateway: TableGateway, workspace: string, actor: Actor, target: TagTarget, tags: readonly TagRef[]): Promise<TagChange> {
  const stamp = stampOf(actor, gateway.clock);
  // 409: a concurrent call added one of these tags; 404: the entity or observation was deleted meanwhile. Read again.
  return retrying({ retryOn: ["entity-exists", "not-found"] }, async (): Promise<TagChange> => {
    const rows = await readTarget(gateway, workspace, target);
    const missing = missingPart(target, rows);
    if (missing) return missing;
    const carried = new Set(linksOf(target, rows).map((row) => text(row.tagId)));
    const fresh = tags.filter((tag) => !carried.has(tag.id));
    if (fresh.length === 0) return { status: "done", tags: [] };
    const entityName = text(rows.find((row) => kindOf(row) === "entity")?.name);
    const now = new Date(gateway.clock()).toISOString();
    const guards = [rowGuard(workspace, rowKey.entity(target.entityId))];
    if (target.observationId !== undefined) guards.push(rowGuard(workspace, rowKey.observation(target.entityId, target.observationId)));
    const writes = fresh.flatMap((tag): TransactionAction[] => {
      const keys = tagLinkKeys(target, tag.id);
      const link: TagLinkRow = {
        kind: target.observationId === undefined ? "entity-tag" : "observation-tag",
        tagId: tag.id,
        tagName: tag.name,
        entityId: target.entityId,
        entityName,
        ...(target.observationId !== undefined ? { observationId: target.observationId } : {}),
        createdAt: now,
      };
      // Only kind and name: a definition that exists keeps its category and description.
      const definition: TagRow = { kind: "tag", name: tag.name };
      return [
        ["create", { partitionKey: workspace, rowKey: keys.link, ...link }],
        ["create", { partitionKey: workspace, rowKey: keys.index, ...link, kind: "tag-index" }],
        ["upsert", { partitionKey: workspace, rowKey: rowKey.tag(tag.id), ...definition }, "Merge"],
      ];
    });
    const changes = fresh.map((tag): Change => ({
      kind: "tag.created",
      entityId: target.entityId,
      entityName,
      ...(target.observationId !== undefined ? { observationId: target.observationId } : {}),
      tagName: tag.name,
    }));
    // The guards are rows of their own here (an observation's too), not entity guards the packer adds: one transaction, as
    // before (tagsPerCall keeps it within one: docs/architecture.md#storage-round-trips-per-call).
    await commit(gateway, workspace, stamp, [{ actions: [...guards, ...writes], changes }], { order: "one" });
    return { status: "done", tags: fresh.map((tag) => tag.name) };
  });
}

function removeTags(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  target: TagTarget,
  tags: readonly TagRef[],
): Promise<TagChange> {
  const wanted = new Set(tags.map((tag) => tag.id));
  const stamp = stampOf(actor, gateway.clock);
  // 404: a concurrent call removed one of them, or deleted the entity or observation. Read again.
  return retrying({ retryOn: ["not-found"], exhausted: "conflict" }, async (): Promise<TagChange> => {
    const rows = await readTarget(gateway, workspace, target);
    const missing = missingPart(target, rows);
    if (missing) return missing;
    const links = linksOf(target, rows).filter((row) => wanted.has(text(row.tagId)));
    const removed = new Set(links.map((row) => text(row.tagId)));
    const unit = {
      actions: links.flatMap((row) => pairDeletion(workspace, row)),
      changes: links.flatMap((row) => deletionOf(row, new Map()) ?? []),
    };
    await commit(gateway, workspace, stamp, [unit], { order: "one" });
    return { status: "done", tags: tags.filter((tag) => removed.has(tag.id)).map((tag) => tag.name) };
  });
}

function defineTag(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  tag: TagRef & { category?: string; description?: string },
): Promise<{ tag: TagDefinition; created: boolean }> {
  const key = rowKey.tag(tag.id);
  const stamp = stampOf(actor, gateway.clock);
  // Created, changed or deleted concurrently: read again.
  return retrying({ retryOn: ["entity-exists", "precondition-failed", "not-found"] }, async () => {
    const stored = await gateway.pointRead(workspace, key);
    const now = new Date(gateway.clock()).toISOString();
    if (!stored) {
      const definition = { name: tag.name, category: tag.category ?? "", description: tag.description ?? "" };
      const row: TagRow = { kind: "tag", ...definition, updatedAt: now };
      await commit(gateway, workspace, stamp, [
        {
          actions: [["create", { partitionKey: workspace, rowKey: key, ...row }]],
          changes: [
            { kind: "tag.created", tagName: tag.name, after: { category: definition.category, description: definition.description } },
          ],
        },
      ]);
      return { tag: definition, created: true };
    }
    const changes: TagRow = {
      kind: "tag",
      name: tag.name,
      ...(tag.category !== undefined ? { category: tag.category } : {}),
      ...(tag.description !== undefined ? { description: tag.description } : {}),
      updatedAt: now,
    };
    // On the ETag read, so the values returned for what was not given are the stored ones.
    const before = toTagDefinition(stored);
    const after = { name: tag.name, category: tag.category ?? before.category, description: tag.description ?? before.description };
    await commit(gateway, workspace, stamp, [
      {
        actions: [["update", { partitionKey: workspace, rowKey: key, ...changes }, "Merge", { etag: stored.etag }]],
        changes: [
          {
            kind: "tag.updated",
            tagName: tag.name,
            before: { category: before.category, description: before.description },
            after: { category: after.category, description: after.description },
          },
        ],
      },
    ]);
    return { tag: after, created: false };
  });
}

async function deleteTags(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  tags: readonly TagRef[],
): Promise<{ deleted: string[]; entities: number; observations: number }> {
  const outcome = { deleted: new Set<string>(), entities: 0, observations: 0 };
  const stamp = stampOf(actor, gateway.clock);
  await forEachLimited(tags, CONCURRENCY, (tag) => deleteTag(gateway, workspace, stamp, tag, outcome));
  return {
    deleted: tags.filter((tag) => outcome.deleted.has(tag.id)).map((tag) => tag.name),
    entities: outcome.entities,
    observations: outcome.observations,
  };
}

/**
 * Unlinks one tag everywhere, then deletes its definition on the ETag read (rule 3): tagging merges the
 * definition in the same transaction as the link, so a link added after the definition was read makes
 * that delete fail, and the index is read again: no link outlives its definition.
 */
function deleteTag(
  gateway: TableGateway,
  workspace: string,
  stamp: Stamp,
  tag: TagRef,
  outcome: { deleted: Set<string>; entities: number; observations: number },
): Promise<void> {
  // 412: the tag was used (or defined) since the read; 404: a link went away meanwhile. Read again.
  return retrying({ retryOn: ["precondition-failed", "not-found"], exhausted: "conflict" }, async () => {
    const [definition, index] = await Promise.all([
      gateway.pointRead(workspace, rowKey.tag(tag.id)),
      gateway.queryRange(workspace, keyRange.tagIndex(tag.id), INDEX_COLUMNS),
    ]);
    if (!definition && index.length === 0) return;
    const units = index.map((row): Unit & { row: StoredRow } => ({
      row,
      actions: pairDeletion(workspace, row),
      changes: [deletionOf(row, new Map())!],
    }));
    const stored = definition ? toTagDefinition(definition) : undefined;
    const finals: Unit[] = stored
      ? [
          {
            actions: [deleteAction(workspace, rowKey.tag(tag.id))],
            conditions: new Map([[rowKey.tag(tag.id), definition!.etag]]),
            changes: [{ kind: "tag.deleted", tagName: tag.name, before: { category: stored.category, description: stored.description } }],
          },
        ]
      : [];
    const counted = new Set<Unit>(units);
    await commit<Unit>(gateway, workspace, stamp, units, {
      finals,
      committed: (done) => {
        for (const unit of done) {
          if (!counted.delete(unit)) continue; // the definition's own unit
          if (text((unit as (typeof units)[number]).row.observationId)) outcome.observations += 1;
          else outcome.entities += 1;
        }
      },
    });
    outcome.deleted.add(tag.id);
  });
}

/**
 * One request: the entity row, and the target's tag links (for an observation, its row too), bounded
 * by the entity's range so the service scans only that.
 */
function readTarget(gateway: TableGateway, workspace: string, target: TagTarget): Promise<StoredRow[]> {
  const whole = keyRange.wholeEntity(target.entityId);
  const tags = keyRange.tagsOf(target);
  return gateway.query(
    odata`PartitionKey eq ${workspace} and RowKey ge ${whole.from} and RowKey lt ${whole.to} and (RowKey eq ${rowKey.entity(target.entityId)} or (RowKey ge ${tags.from} and RowKey lt ${tags.to}))`,
  );
}

/** Why a target cannot be tagged, if its entity or observation row is not among the rows read. */
function missingPart(target: TagTarget, rows: readonly StoredRow[]): TagChange | undefined {
  if (!rows.some((row) => kindOf(row) === "entity")) return { status: "entity-missing" };
  if (target.observationId !== undefined && !rows.some((row) => kindOf(row) === "observation")) return { status: "observation-missing" };
  return undefined;
}

function linksOf(target: TagTarget, rows: readonly StoredRow[]): StoredRow[] {
  const kind = target.observationId === undefined ? "entity-tag" : "observation-tag";
  return rows.filter((row) => kindOf(row) === kind);
}

/** Deletes a link row and its index row (given either). */
function pairDeletion(workspace: string, row: StoredRow): TransactionAction[] {
  const pair = tagPairOf(row);
  return pair ? [deleteAction(workspace, pair.link), deleteAction(workspace, pair.index)] : [];
}
