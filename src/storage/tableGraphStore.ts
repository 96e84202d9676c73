import { odata, type TableClient, type TransactionAction } from "@azure/data-tables";
import { NotFoundError } from "../domain/errors.js";
import { LIMITS } from "../domain/limits.js";
import type { Direction, Entity, GraphPage, Relation } from "../domain/model.js";
import { observationId } from "../domain/ids.js";
import type { EntitySummary, EntityWrite, GraphStore, RelationWrite } from "../domain/store.js";
import { classifyStorageError, toMemoryError } from "./errors.js";
import { keyRange, rowKey, type KeyRange } from "./keys.js";
import {
  compareText,
  kindOf,
  orderedObservations,
  toEntity,
  toRelation,
  type EntityRow,
  type ObservationRow,
  type RelationRow,
  type StoredRow,
} from "./rows.js";
import type { StorageConnection } from "./client.js";

/** Table Storage returns at most 1,000 rows per page. */
const PAGE_SIZE = 1000;
/** Races are settled by retrying with what the store now says; this bounds a pathological loop. */
const MAX_ATTEMPTS = 8;

type Row = Record<string, unknown> & { partitionKey: string; rowKey: string };

/**
 * Table Storage adapter. Invariant that makes concurrent writers safe: every write that hangs a row
 * off an entity (observation, edge) is in one transaction with a write to that entity's row, so it
 * fails if the entity is gone, and a delete that checks the entity row's ETag sees it happened.
 */
export class TableGraphStore implements GraphStore {
  private readonly table: TableClient;

  constructor(private readonly storage: StorageConnection) {
    this.table = storage.table;
  }

  async getEntitySummary(workspace: string, entityId: string): Promise<EntitySummary | undefined> {
    await this.storage.ensureTable();
    try {
      const row = await this.table.getEntity<Record<string, unknown>>(workspace, rowKey.entity(entityId));
      if (kindOf(row) !== "entity") return undefined;
      return { id: entityId, name: String(row.name ?? ""), entityType: String(row.entityType ?? "") };
    } catch (error) {
      if (classifyStorageError(error) === "not-found") return undefined;
      throw toMemoryError(error);
    }
  }

  async upsertEntity(workspace: string, write: EntityWrite): Promise<{ created: boolean; addedObservations: string[] }> {
    await this.storage.ensureTable();
    const rows = await this.queryRange(workspace, keyRange.entityWithObservations(write.id));
    let exists = rows.some((row) => kindOf(row) === "entity");
    const stored = new Set(rows.filter((row) => kindOf(row) === "observation").map((row) => row.rowKey));

    const now = new Date().toISOString();
    const added: string[] = [];
    const observationRows: Row[] = [];
    for (const content of write.observations) {
      const key = rowKey.observation(write.id, observationId(write.id, content));
      if (stored.has(key)) continue;
      stored.add(key); // also drops duplicates within this call
      added.push(content);
      const row: ObservationRow = { kind: "observation", entityId: write.id, content, order: orderKey(now, added.length), createdAt: now };
      observationRows.push({ partitionKey: workspace, rowKey: key, ...row });
    }

    const changes: Partial<EntityRow> = {
      updatedAt: now,
      ...(write.entityType !== undefined ? { entityType: write.entityType } : {}),
      ...(write.metadata !== undefined ? { metadata: JSON.stringify(write.metadata) } : {}),
    };
    // Observations are inserted or merged (same id = same content, so a racing duplicate is harmless).
    const observationActions: TransactionAction[] = observationRows.map((row) => ["upsert", row, "Merge"]);

    for (let attempt = 1; ; attempt++) {
      const created = !exists;
      const entityAction: TransactionAction = created
        ? ["create", { partitionKey: workspace, rowKey: rowKey.entity(write.id), ...newEntityRow(write, now) }]
        : ["update", { partitionKey: workspace, rowKey: rowKey.entity(write.id), ...changes }, "Merge"];
      try {
        await this.submit(workspace, [entityAction], observationActions, write.id);
        return { created, addedObservations: added };
      } catch (error) {
        const failure = classifyStorageError(error);
        // A concurrent writer created it first (so merge), or deleted it (so create again).
        const retry = (created && failure === "entity-exists") || (!created && failure === "not-found");
        if (!retry || attempt >= MAX_ATTEMPTS) throw toMemoryError(error);
        exists = !exists;
      }
    }
  }

  async upsertRelation(workspace: string, write: RelationWrite): Promise<{ created: boolean }> {
    await this.storage.ensureTable();
    const now = new Date().toISOString();
    const base = {
      relationId: write.id,
      relationType: write.relationType,
      fromId: write.fromEntityId,
      fromName: write.fromName,
      toId: write.toEntityId,
      toName: write.toName,
      updatedAt: now,
    };
    const rowsOf = (fields: Partial<RelationRow>): Row[] => [
      { partitionKey: workspace, rowKey: rowKey.relation(write.id), ...fields, kind: "relation" },
      { partitionKey: workspace, rowKey: rowKey.edgeOut(write.fromEntityId, write.id), ...fields, kind: "edge-out" },
      { partitionKey: workspace, rowKey: rowKey.edgeIn(write.toEntityId, write.id), ...fields, kind: "edge-in" },
    ];
    // Guards: a merge on each endpoint row fails the whole transaction if that entity is gone.
    const guards = [...new Set([write.fromEntityId, write.toEntityId])].map(
      (id): TransactionAction => ["update", { partitionKey: workspace, rowKey: rowKey.entity(id) }, "Merge"],
    );

    // Try to create first, so createdAt is written exactly once; fall back to a merge if it exists.
    const createRows = rowsOf({ ...base, metadata: JSON.stringify(write.metadata ?? {}), createdAt: now });
    try {
      await this.transact([...createRows.map((row): TransactionAction => ["create", row]), ...guards]);
      return { created: true };
    } catch (error) {
      const failure = classifyStorageError(error);
      if (failure === "not-found") throw new NotFoundError("A relation endpoint does not exist.");
      if (failure !== "entity-exists") throw toMemoryError(error);
    }
    const mergeRows = rowsOf({ ...base, ...(write.metadata !== undefined ? { metadata: JSON.stringify(write.metadata) } : {}) });
    try {
      await this.transact([...mergeRows.map((row): TransactionAction => ["upsert", row, "Merge"]), ...guards]);
      return { created: false };
    } catch (error) {
      if (classifyStorageError(error) === "not-found") throw new NotFoundError("A relation endpoint does not exist.");
      throw toMemoryError(error);
    }
  }

  async getEntityRelations(workspace: string, entityId: string, direction: Direction): Promise<Relation[] | undefined> {
    await this.storage.ensureTable();
    const edges = keyRange.edges(entityId, direction);
    const whole = keyRange.wholeEntity(entityId);
    // Bounded by the entity's range (so the service scans only that), then narrowed to the entity row and the edges.
    const filter = odata`PartitionKey eq ${workspace} and RowKey ge ${whole.from} and RowKey lt ${whole.to} and (RowKey eq ${entityId} or (RowKey ge ${edges.from} and RowKey lt ${edges.to}))`;
    const rows = await this.query(filter);
    if (!rows.some((row) => kindOf(row) === "entity")) return undefined;
    const relations = new Map<string, Relation>();
    for (const row of rows) {
      const kind = kindOf(row);
      if (kind === "edge-in" || kind === "edge-out") relations.set(String(row.relationId), toRelation(row));
    }
    return [...relations.values()].sort(byCreation);
  }

  async readGraph(workspace: string, _options: { limit?: number; cursor?: string }): Promise<GraphPage> {
    await this.storage.ensureTable();
    const rows = await this.query(odata`PartitionKey eq ${workspace}`);
    const entityRows: StoredRow[] = [];
    const observationsByEntity = new Map<string, StoredRow[]>();
    const relations: Relation[] = [];
    for (const row of rows) {
      switch (kindOf(row)) {
        case "entity":
          entityRows.push(row);
          break;
        case "observation": {
          const owner = String(row.entityId);
          const list = observationsByEntity.get(owner) ?? [];
          list.push(row);
          observationsByEntity.set(owner, list);
          break;
        }
        case "relation":
          relations.push(toRelation(row));
          break;
        default:
          break; // edge rows are copies of relation rows
      }
    }
    const entities: Entity[] = entityRows.map((row) => toEntity(row, orderedObservations(observationsByEntity.get(String(row.rowKey)) ?? [])));
    return { entities: entities.sort(byCreation), relations: relations.sort(byCreation) };
  }

  // ---- primitives -------------------------------------------------------------------------

  private queryRange(workspace: string, range: KeyRange): Promise<StoredRow[]> {
    return this.query(odata`PartitionKey eq ${workspace} and RowKey ge ${range.from} and RowKey lt ${range.to}`);
  }

  /** Runs a query to the end, one request per page of up to 1,000 rows. */
  private async query(filter: string): Promise<StoredRow[]> {
    const rows: StoredRow[] = [];
    try {
      const pages = this.table.listEntities<Record<string, unknown>>({ queryOptions: { filter } }).byPage({ maxPageSize: PAGE_SIZE });
      for await (const page of pages) rows.push(...page);
    } catch (error) {
      throw toMemoryError(error);
    }
    return rows;
  }

  /**
   * Writes `head` plus `rest` in as few transactions as the limits allow. `head` goes in the first;
   * every later transaction also merges the entity row of `guardEntityId`, keeping the invariant.
   */
  private async submit(workspace: string, head: TransactionAction[], rest: TransactionAction[], guardEntityId: string): Promise<void> {
    const guard: TransactionAction = ["update", { partitionKey: workspace, rowKey: rowKey.entity(guardEntityId) }, "Merge"];
    const batches = chunkActions(rest, LIMITS.batchOperations - 1);
    await this.transact([...head, ...(batches[0] ?? [])]);
    for (const batch of batches.slice(1)) await this.transact([guard, ...batch]);
  }

  private async transact(actions: TransactionAction[]): Promise<void> {
    if (actions.length === 0) return;
    await this.table.submitTransaction(actions);
  }
}

function newEntityRow(write: EntityWrite, now: string): EntityRow {
  return {
    kind: "entity",
    name: write.name,
    entityType: write.entityType ?? "",
    metadata: JSON.stringify(write.metadata ?? {}),
    createdAt: now,
    updatedAt: now,
  };
}

/** ISO time then position within the call: sorts by time of first addition, then call order. */
function orderKey(now: string, position: number): string {
  return `${now}#${String(position).padStart(6, "0")}`;
}

function byCreation(a: { createdAt: string; id: string }, b: { createdAt: string; id: string }): number {
  return compareText(a.createdAt, b.createdAt) || compareText(a.id, b.id);
}

/** Splits actions into transactions of at most `maxOperations` operations and the payload limit. */
export function chunkActions(actions: TransactionAction[], maxOperations: number): TransactionAction[][] {
  const batches: TransactionAction[][] = [];
  let current: TransactionAction[] = [];
  let bytes = 0;
  for (const action of actions) {
    const size = Buffer.byteLength(JSON.stringify(action[1]), "utf8");
    if (current.length > 0 && (current.length >= maxOperations || bytes + size > LIMITS.batchPayloadBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(action);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
