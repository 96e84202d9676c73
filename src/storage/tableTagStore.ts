import { odata, type TableClient, type TransactionAction } from "@azure/data-tables";
import type { EntityNode, TagDefinition, TagUsage } from "../domain/model.js";
import { compareText } from "../domain/order.js";
import type { TagChange, TagRef, TagStore, TagTarget } from "../domain/store.js";
import type { StorageConnection } from "./client.js";
import { classifyStorageError, toMemoryError } from "./errors.js";
import { keyRange, rowKey, tagLinkKeys } from "./keys.js";
import { assembleEntity, kindOf, tagPairOf, toTagDefinition, type StoredRow, type TagLinkRow, type TagRow } from "./rows.js";
import { CONCURRENCY, deleteAction, MAX_ATTEMPTS, pointRead, query, queryRange, retryExhausted, transact } from "./tableRequests.js";
import { forEachLimited, pack, rowGuard, type Unit } from "./transactions.js";

const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** Index columns a tag's rows need to find their pairs, and to be counted. */
const INDEX_COLUMNS = ["RowKey", "kind", "tagId", "tagName", "entityId", "entityName", "observationId"];

/**
 * Tags in Table Storage (key layout in keys.ts). A tag on an entity or an observation is two rows: a
 * link in the entity's range (so reading an entity still takes one range query) and an index row in
 * the tag's range (so finding by tag is a range query, not a partition scan). The pair is always
 * written and deleted in one entity-group transaction, and writing it merges the entity row (and the
 * observation row) in the same transaction: it fails if either is gone, and an ETag-checked delete
 * of the entity, or of observations, notices it (the adapter's invariant, see tableGraphStore.ts).
 */
export class TableTagStore implements TagStore {
  private readonly table: TableClient;

  constructor(private readonly storage: StorageConnection) {
    this.table = storage.table;
  }

  async addTags(workspace: string, target: TagTarget, tags: readonly TagRef[]): Promise<TagChange> {
    await this.storage.ensureTable();
    for (let attempt = 1; ; attempt++) {
      const rows = await this.readTarget(workspace, target);
      const missing = missingPart(target, rows);
      if (missing) return missing;
      const carried = new Set(linksOf(target, rows).map((row) => text(row.tagId)));
      const fresh = tags.filter((tag) => !carried.has(tag.id));
      if (fresh.length === 0) return { status: "done", tags: [] };
      const entityName = text(rows.find((row) => kindOf(row) === "entity")?.name);
      const now = new Date().toISOString();
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
      try {
        await transact(this.table, [...guards, ...writes]);
        return { status: "done", tags: fresh.map((tag) => tag.name) };
      } catch (error) {
        const failure = classifyStorageError(error);
        // 409: a concurrent call added one of these tags; 404: the entity or observation was deleted meanwhile. Read again.
        if ((failure !== "entity-exists" && failure !== "not-found") || attempt >= MAX_ATTEMPTS) throw toMemoryError(error);
      }
    }
  }

  async removeTags(workspace: string, target: TagTarget, tags: readonly TagRef[]): Promise<TagChange> {
    await this.storage.ensureTable();
    const wanted = new Set(tags.map((tag) => tag.id));
    for (let attempt = 1; ; attempt++) {
      const rows = await this.readTarget(workspace, target);
      const missing = missingPart(target, rows);
      if (missing) return missing;
      const links = linksOf(target, rows).filter((row) => wanted.has(text(row.tagId)));
      const removed = new Set(links.map((row) => text(row.tagId)));
      try {
        await transact(
          this.table,
          links.flatMap((row) => pairDeletion(workspace, row)),
        );
        return { status: "done", tags: tags.filter((tag) => removed.has(tag.id)).map((tag) => tag.name) };
      } catch (error) {
        // 404: a concurrent call removed one of them, or deleted the entity or observation. Read again.
        if (classifyStorageError(error) !== "not-found" || attempt >= MAX_ATTEMPTS) throw retryExhausted(error);
      }
    }
  }

  async entitiesByTag(workspace: string, tagId: string, limit: number): Promise<{ nodes: EntityNode[]; total: number }> {
    await this.storage.ensureTable();
    const index = await queryRange(this.table, workspace, keyRange.tagIndex(tagId), INDEX_COLUMNS);
    const names = new Map(index.map((row) => [text(row.entityId), text(row.entityName)]));
    const ids = [...names.keys()].sort((a, b) => compareText(names.get(a)!, names.get(b)!) || compareText(a, b));
    const nodes = await Promise.all(
      ids.slice(0, limit).map(async (id) => assembleEntity(await queryRange(this.table, workspace, keyRange.wholeEntity(id)))),
    );
    // An entity deleted between the two reads is left out.
    return { nodes: nodes.filter((node): node is EntityNode => node !== undefined), total: ids.length };
  }

  async listTags(workspace: string): Promise<TagDefinition[]> {
    await this.storage.ensureTable();
    return (await queryRange(this.table, workspace, keyRange.tagDefinitions)).map(toTagDefinition);
  }

  async defineTag(
    workspace: string,
    tag: TagRef & { category?: string; description?: string },
  ): Promise<{ tag: TagDefinition; created: boolean }> {
    await this.storage.ensureTable();
    const key = rowKey.tag(tag.id);
    for (let attempt = 1; ; attempt++) {
      const stored = await pointRead(this.table, workspace, key);
      const now = new Date().toISOString();
      try {
        if (!stored) {
          const definition = { name: tag.name, category: tag.category ?? "", description: tag.description ?? "" };
          const row: TagRow = { kind: "tag", ...definition, updatedAt: now };
          await this.table.createEntity({ partitionKey: workspace, rowKey: key, ...row });
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
        await this.table.updateEntity({ partitionKey: workspace, rowKey: key, ...changes }, "Merge", { etag: stored.etag });
        const before = toTagDefinition(stored);
        return {
          tag: { name: tag.name, category: tag.category ?? before.category, description: tag.description ?? before.description },
          created: false,
        };
      } catch (error) {
        const failure = classifyStorageError(error);
        // Created, changed or deleted concurrently: read again.
        if ((failure !== "entity-exists" && failure !== "precondition-failed" && failure !== "not-found") || attempt >= MAX_ATTEMPTS)
          throw toMemoryError(error);
      }
    }
  }

  async tagUsage(workspace: string): Promise<TagUsage[]> {
    await this.storage.ensureTable();
    const [definitions, index] = await Promise.all([
      queryRange(this.table, workspace, keyRange.tagDefinitions),
      queryRange(this.table, workspace, keyRange.tagIndex(), ["tagName", "observationId"]),
    ]);
    // Counted by name: a tag's id is derived from its name, so the two are one-to-one.
    const usage = new Map<string, TagUsage>(
      definitions.map((row) => [text(row.name), { ...toTagDefinition(row), entities: 0, observations: 0 }]),
    );
    for (const row of index) {
      const name = text(row.tagName);
      const counts = usage.get(name) ?? { name, category: "", description: "", entities: 0, observations: 0 };
      if (text(row.observationId)) counts.observations += 1;
      else counts.entities += 1;
      usage.set(name, counts);
    }
    return [...usage.values()];
  }

  async deleteTags(workspace: string, tags: readonly TagRef[]): Promise<{ deleted: string[]; entities: number; observations: number }> {
    await this.storage.ensureTable();
    const outcome = { deleted: new Set<string>(), entities: 0, observations: 0 };
    await forEachLimited(tags, CONCURRENCY, (tag) => this.deleteTag(workspace, tag, outcome));
    return {
      deleted: tags.filter((tag) => outcome.deleted.has(tag.id)).map((tag) => tag.name),
      entities: outcome.entities,
      observations: outcome.observations,
    };
  }

  // ---- primitives -------------------------------------------------------------------------

  /**
   * Unlinks one tag everywhere, then deletes its definition on the ETag read first. Tagging merges the
   * definition in the same transaction as the link, so a link added after the definition was read makes
   * that delete fail, and the index is read again: no link outlives its definition.
   */
  private async deleteTag(
    workspace: string,
    tag: TagRef,
    outcome: { deleted: Set<string>; entities: number; observations: number },
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const definition = await pointRead(this.table, workspace, rowKey.tag(tag.id));
      const index = await queryRange(this.table, workspace, keyRange.tagIndex(tag.id), INDEX_COLUMNS);
      if (!definition && index.length === 0) return;
      try {
        const units = index.map((row): Unit & { row: StoredRow } => ({ row, actions: pairDeletion(workspace, row) }));
        await forEachLimited(pack(workspace, units), CONCURRENCY, async (batch) => {
          await transact(this.table, batch.actions);
          for (const { row } of batch.units) {
            if (text(row.observationId)) outcome.observations += 1;
            else outcome.entities += 1;
          }
        });
        if (definition) await this.table.deleteEntity(workspace, rowKey.tag(tag.id), { etag: definition.etag });
        outcome.deleted.add(tag.id);
        return;
      } catch (error) {
        const failure = classifyStorageError(error);
        // 412: the tag was used (or defined) since the read; 404: a link went away meanwhile. Read again.
        if ((failure !== "precondition-failed" && failure !== "not-found") || attempt >= MAX_ATTEMPTS) throw retryExhausted(error);
      }
    }
  }

  /**
   * One request: the entity row, and the target's tag links (for an observation, its row too), bounded
   * by the entity's range so the service scans only that.
   */
  private readTarget(workspace: string, target: TagTarget): Promise<StoredRow[]> {
    const whole = keyRange.wholeEntity(target.entityId);
    const tags = keyRange.tagsOf(target);
    return query(
      this.table,
      odata`PartitionKey eq ${workspace} and RowKey ge ${whole.from} and RowKey lt ${whole.to} and (RowKey eq ${rowKey.entity(target.entityId)} or (RowKey ge ${tags.from} and RowKey lt ${tags.to}))`,
    );
  }
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
