import type { TableClient, TransactionAction } from "@azure/data-tables";
import { NotFoundError } from "../domain/errors.js";
import { LIMITS } from "../domain/limits.js";
import type { Actor, Direction, EntityNode, ReadMode, Relation } from "../domain/model.js";
import { observationId } from "../domain/ids.js";
import type {
  EntitySummary,
  EntityWrite,
  GraphStore,
  NewEntity,
  ObservationChange,
  Progress,
  RelationRef,
  RelationWrite,
  StoredPage,
} from "../domain/store.js";
import { classifyStorageError, toMemoryError } from "./errors.js";
import { keyRange, ownerOf, relationRowKeys, rowKey, type KeyRange } from "./keys.js";
import * as requests from "./tableRequests.js";
import { CONCURRENCY, deleteAction, MAX_ATTEMPTS, PAGE_SIZE, retryExhausted } from "./tableRequests.js";
import { byCreation, compareText, orderKey } from "../domain/order.js";
import { assembleEntity, kindOf, tagPairOf, type EntityRow, type StoredRow } from "./rows.js";
import { creation, entityRow, newObservationRows, relationRows, stampOf, storedKeys, update } from "./rowWrites.js";
import { chunkActions, forEachLimited, pack, type Unit } from "./transactions.js";
import type { StorageConnection } from "./client.js";
import { TableTagStore } from "./tableTagStore.js";
import { entityRelationsFilter, entityScanFilter, graphFilter, NAMES_COLUMNS, SEARCH_COLUMNS } from "./queries.js";

/** What finding a tag link's pair takes. */
const TAG_LINK_COLUMNS = ["RowKey", "kind", "tagId", "entityId", "observationId"];

interface RelationUnit extends Unit {
  relation: RelationWrite;
}

/**
 * Table Storage adapter. Invariant that makes concurrent writers safe: every write that hangs a row
 * off an entity (observation, edge) is in one transaction with a write to that entity's row, so it
 * fails if the entity is gone, and a delete that checks the entity row's ETag sees it happened.
 */
export class TableGraphStore implements GraphStore {
  private readonly table: TableClient;
  readonly tags: TableTagStore;

  constructor(private readonly storage: StorageConnection) {
    this.table = storage.table;
    this.tags = new TableTagStore(storage);
  }

  async getEntitySummary(workspace: string, entityId: string): Promise<EntitySummary | undefined> {
    await this.storage.ensureTable();
    const row = await this.pointRead(workspace, rowKey.entity(entityId));
    if (!row || kindOf(row) !== "entity") return undefined;
    return { id: entityId, name: String(row.name ?? ""), entityType: String(row.entityType ?? "") };
  }

  async upsertEntity(workspace: string, actor: Actor, write: EntityWrite): Promise<{ created: boolean; addedObservations: string[] }> {
    await this.storage.ensureTable();
    const stamp = stampOf(actor);
    // The merge (also the fallback when a concurrent writer created the row first) never carries createdAt or createdBy.
    const changes: Partial<EntityRow> = {
      ...update(stamp),
      ...(write.entityType !== undefined ? { entityType: write.entityType } : {}),
      ...(write.metadata !== undefined ? { metadata: JSON.stringify(write.metadata) } : {}),
    };
    for (let attempt = 1; ; attempt++) {
      // Read on every attempt: what a concurrent delete removed since the last read must be written again.
      const rows = await this.queryRange(workspace, keyRange.entityWithObservations(write.id));
      const created = !rows.some((row) => kindOf(row) === "entity");
      // Observation rows without their entity row are not trusted as stored: a delete may be removing them
      // (or an interrupted one left them), so every requested observation is written.
      const stored = created ? new Set<string>() : storedKeys(rows);
      const { added, rows: observationRows } = newObservationRows(workspace, write.id, write.observations, stored, stamp);
      // Observations are inserted or merged (same id = same content, so a racing duplicate is harmless).
      const observationActions: TransactionAction[] = observationRows.map((row) => ["upsert", row, "Merge"]);
      const entityAction: TransactionAction = created
        ? ["create", entityRow(workspace, { ...write, entityType: write.entityType ?? "" }, stamp, 1)]
        : ["update", { partitionKey: workspace, rowKey: rowKey.entity(write.id), ...changes }, "Merge"];
      try {
        await this.submit(workspace, [entityAction], observationActions, write.id);
        return { created, addedObservations: added };
      } catch (error) {
        const failure = classifyStorageError(error);
        // A concurrent writer created it first (so merge), or deleted it (so create again).
        const retry = (created && failure === "entity-exists") || (!created && failure === "not-found");
        if (!retry || attempt >= MAX_ATTEMPTS) throw toMemoryError(error);
      }
    }
  }

  async upsertRelation(workspace: string, actor: Actor, write: RelationWrite): Promise<{ created: boolean }> {
    await this.storage.ensureTable();
    const stamp = stampOf(actor);
    const guards = [write.fromEntityId, write.toEntityId];
    // Try to create first, so createdAt and createdBy are written exactly once; fall back to a merge if it exists.
    const createRows = relationRows(workspace, write, {
      metadata: JSON.stringify(write.metadata ?? {}),
      ...creation(stamp),
      order: orderKey(stamp.now, 1),
    });
    try {
      await this.transactUnit(workspace, { actions: createRows.map((row): TransactionAction => ["create", row]), guards });
      return { created: true };
    } catch (error) {
      const failure = classifyStorageError(error);
      if (failure === "not-found") throw new NotFoundError("A relation endpoint does not exist.");
      if (failure !== "entity-exists") throw toMemoryError(error);
    }
    const mergeRows = relationRows(workspace, write, {
      ...update(stamp),
      ...(write.metadata !== undefined ? { metadata: JSON.stringify(write.metadata) } : {}),
    });
    try {
      await this.transactUnit(workspace, { actions: mergeRows.map((row): TransactionAction => ["upsert", row, "Merge"]), guards });
      return { created: false };
    } catch (error) {
      if (classifyStorageError(error) === "not-found") throw new NotFoundError("A relation endpoint does not exist.");
      throw toMemoryError(error);
    }
  }

  async getEntityRelations(workspace: string, entityId: string, direction: Direction): Promise<Relation[] | undefined> {
    await this.storage.ensureTable();
    const rows = await this.query(entityRelationsFilter(workspace, entityId, direction));
    return assembleEntity(rows)?.relations;
  }

  async readGraph(workspace: string, options: { limit?: number; after?: string; mode?: ReadMode }): Promise<StoredPage> {
    await this.storage.ensureTable();
    const range = options.after === undefined ? keyRange.graph : keyRange.after(options.after);
    // Only outgoing edges: each relation then comes with its source entity, so paging returns it exactly once.
    const nodes =
      options.mode === "names"
        ? this.scan(graphFilter(workspace, range, "names"), NAMES_COLUMNS)
        : this.scan(graphFilter(workspace, range, "full"));
    const page: StoredPage = { entities: [], relations: [] };
    for await (const node of nodes) {
      if (options.limit !== undefined && page.entities.length >= options.limit) {
        page.after = page.entities[page.entities.length - 1]?.id;
        break;
      }
      page.entities.push(node.entity);
      page.relations.push(...node.relations);
    }
    page.entities.sort(byCreation);
    page.relations.sort(byCreation);
    return page;
  }

  async getEntities(workspace: string, entityIds: readonly string[]): Promise<(EntityNode | undefined)[]> {
    await this.storage.ensureTable();
    return Promise.all(entityIds.map(async (id) => assembleEntity(await this.queryRange(workspace, keyRange.wholeEntity(id)))));
  }

  async *scanEntities(workspace: string): AsyncIterable<EntityNode> {
    await this.storage.ensureTable();
    yield* this.scan(entityScanFilter(workspace), SEARCH_COLUMNS);
  }

  async createEntities(
    workspace: string,
    actor: Actor,
    entities: readonly NewEntity[],
    progress?: Progress,
  ): Promise<{ created: string[] }> {
    await this.storage.ensureTable();
    const stamp = stampOf(actor);
    const created: string[] = [];
    // Observation rows of a new entity are created too (cheaper than upserts); only rows an interrupted delete left behind could be in the way.
    const actionsOf = (entity: NewEntity, i: number, observations: "create" | "upsert"): TransactionAction[] => [
      ["create", entityRow(workspace, entity, stamp, i + 1)],
      ...newObservationRows(workspace, entity.id, entity.observations, new Set(), stamp).rows.map((row): TransactionAction =>
        observations === "create" ? ["create", row] : ["upsert", row, "Merge"],
      ),
    ];
    const units = entities.map((entity, i) => ({ entity, index: i, actions: actionsOf(entity, i, "create") }));
    // Alone: the entity row and its first observations in one transaction; a 409 there means it exists, so it is skipped
    // whole. Unless the entity row is absent: then the 409 came from a left-over observation row, which an upsert overwrites.
    const createAlone = async (unit: (typeof units)[number]) => {
      for (const observations of ["create", "upsert"] as const) {
        const [head, ...rest] = actionsOf(unit.entity, unit.index, observations);
        try {
          await this.submit(workspace, [head!], rest, unit.entity.id);
          created.push(unit.entity.id);
          break;
        } catch (error) {
          if (classifyStorageError(error) !== "entity-exists") throw toMemoryError(error);
          if (observations === "upsert" || (await this.pointRead(workspace, rowKey.entity(unit.entity.id)))) break;
        }
      }
      progress?.(1);
    };
    const fitting = units.filter((unit) => unit.actions.length <= LIMITS.batchOperations);
    await forEachLimited(pack(workspace, fitting), CONCURRENCY, async (batch) => {
      try {
        await this.transact(batch.actions);
        created.push(...batch.units.map((unit) => unit.entity.id));
        progress?.(batch.units.length);
      } catch (error) {
        if (classifyStorageError(error) !== "entity-exists") throw toMemoryError(error);
        // Some entity here exists already, and the answer does not say which: try each alone.
        await forEachLimited(batch.units, CONCURRENCY, createAlone);
      }
    });
    await forEachLimited(
      units.filter((unit) => unit.actions.length > LIMITS.batchOperations),
      CONCURRENCY,
      createAlone,
    );
    return { created };
  }

  async addObservations(
    workspace: string,
    actor: Actor,
    changes: readonly ObservationChange[],
  ): Promise<{ missing: string[]; added: Map<string, string[]> }> {
    await this.storage.ensureTable();
    const wanted = mergeChanges(changes);
    const ids = [...wanted.keys()];
    const committed = new Set<string>(); // observation row keys written by this call
    const result = () => ({
      missing: [] as string[],
      added: new Map(
        ids.map((id) => [
          id,
          (wanted.get(id) ?? []).filter((content) => committed.has(rowKey.observation(id, observationId(id, content)))),
        ]),
      ),
    });
    for (let attempt = 1; ; attempt++) {
      const ranges = await Promise.all(ids.map((id) => this.queryRange(workspace, keyRange.entityWithObservations(id))));
      const missing = ids.filter((_, i) => !ranges[i]!.some((row) => kindOf(row) === "entity"));
      if (missing.length > 0) return { ...result(), missing };
      const stamp = stampOf(actor);
      const units = ids.flatMap((id, i) => {
        const { rows } = newObservationRows(workspace, id, wanted.get(id) ?? [], storedKeys(ranges[i]!), stamp);
        // `create`, not upsert: if a concurrent call adds the same content, one of us learns it (409) and reports it not added.
        // One slot of each transaction is the entity's guard.
        return chunkActions(
          rows.map((row): TransactionAction => ["create", row]),
          LIMITS.batchOperations - 1,
        ).map((actions) => ({ actions, guards: [id] }));
      });
      try {
        await forEachLimited(pack(workspace, units), CONCURRENCY, async (batch) => {
          await this.transact(batch.actions);
          for (const action of batch.actions) if (action[0] === "create") committed.add(String(action[1].rowKey));
        });
        return result();
      } catch (error) {
        const failure = classifyStorageError(error);
        // 409: a concurrent call added the same content; 404: an entity was deleted meanwhile. Read again and do what is left.
        if ((failure !== "entity-exists" && failure !== "not-found") || attempt >= MAX_ATTEMPTS) throw toMemoryError(error);
      }
    }
  }

  async createRelations(
    workspace: string,
    actor: Actor,
    relations: readonly RelationWrite[],
    options: { allOrNothing: boolean; progress?: Progress },
  ): Promise<{ created: string[]; missingEntityIds: string[] }> {
    await this.storage.ensureTable();
    const stamp = stampOf(actor);
    const distinct = [...new Map(relations.map((relation) => [relation.id, relation])).values()];
    const units: RelationUnit[] = distinct
      .map((relation, i) => ({
        relation,
        actions: relationRows(workspace, relation, {
          metadata: JSON.stringify(relation.metadata ?? {}),
          ...creation(stamp),
          order: orderKey(stamp.now, i + 1),
        }).map((row): TransactionAction => ["create", row]),
        guards: [relation.fromEntityId, relation.toEntityId],
      }))
      // Relations that share a source go together, so they share its guard.
      .sort((a, b) => compareText(a.relation.fromEntityId, b.relation.fromEntityId));
    const batches = pack(workspace, units);
    if (options.allOrNothing && batches.length > 1) {
      // Several transactions cannot be undone together, so make sure of the endpoints before writing any.
      const absent = await this.absentEntities(workspace, endpointsOf(distinct));
      if (absent.length > 0) return { created: [], missingEntityIds: absent };
    }
    const outcome = { created: [] as string[], missing: new Set<string>() };
    await forEachLimited(batches, CONCURRENCY, (batch) => this.commitRelations(workspace, batch.units, outcome, options));
    return { created: outcome.created, missingEntityIds: [...outcome.missing] };
  }

  async deleteEntities(workspace: string, entityIds: readonly string[]): Promise<void> {
    await this.storage.ensureTable();
    const ids = [...new Set(entityIds)];
    for (let attempt = 1; ; attempt++) {
      const rows = (await Promise.all(ids.map((id) => this.queryRange(workspace, keyRange.wholeEntity(id))))).flat();
      if (rows.length === 0) return;
      try {
        // Dependents first (each relation with both edges, each tag link with its index row), so a delete that
        // stops part-way leaves an entity with less attached, never a relation to an entity that is gone.
        await forEachLimited(pack(workspace, deletionUnits(workspace, rows)), CONCURRENCY, (batch) => this.transact(batch.actions));
        // Each entity row last, with If-Match on the ETag read: a write that hung a row off the entity since
        // the read changed that ETag (its guard merged the row), so this fails and we read again; once the row
        // is gone, every later write fails its guard. @azure/data-tables cannot send If-Match on a delete inside
        // a transaction, so this is one request per entity row.
        const heads = rows.filter((row) => kindOf(row) === "entity");
        await forEachLimited(heads, heads.length, (row) =>
          this.table.deleteEntity(workspace, String(row.rowKey), { etag: row.etag }).then(() => {}),
        );
        return;
      } catch (error) {
        const failure = classifyStorageError(error);
        // 412: the entity changed since the read; 404: a row went away (a concurrent delete). Read again.
        if ((failure !== "precondition-failed" && failure !== "not-found") || attempt >= MAX_ATTEMPTS) throw retryExhausted(error);
      }
    }
  }

  async deleteObservations(workspace: string, changes: readonly ObservationChange[]): Promise<void> {
    await this.storage.ensureTable();
    const wanted = mergeChanges(changes);
    const ids = [...wanted.keys()];
    for (let attempt = 1; ; attempt++) {
      // Each entity's range holds its observations and their tag links.
      const ranges = await Promise.all(ids.map((id) => this.queryRange(workspace, keyRange.entityWithObservations(id))));
      try {
        const entities = ids.map((id, i) => ({ id, rows: ranges[i]! }));
        await forEachLimited(entities, CONCURRENCY, ({ id, rows }) =>
          this.deleteObservationRows(workspace, id, rows, wanted.get(id) ?? []),
        );
        return;
      } catch (error) {
        // 404: a row went away (a concurrent delete). Read again.
        if (classifyStorageError(error) !== "not-found" || attempt >= MAX_ATTEMPTS) throw retryExhausted(error);
      }
    }
  }

  async deleteRelations(workspace: string, relations: readonly RelationRef[]): Promise<void> {
    await this.storage.ensureTable();
    const distinct = [...new Map(relations.map((relation) => [relation.id, relation])).values()];
    for (let attempt = 1; ; attempt++) {
      const stored = await Promise.all(distinct.map((relation) => this.pointRead(workspace, rowKey.relation(relation.id))));
      const units = distinct
        .filter((_, i) => stored[i] !== undefined)
        .map((relation): Unit => ({
          actions: relationRowKeys(relation).map((key): TransactionAction => ["delete", { partitionKey: workspace, rowKey: key }]),
        }));
      try {
        await forEachLimited(pack(workspace, units), CONCURRENCY, (batch) => this.transact(batch.actions));
        return;
      } catch (error) {
        if (classifyStorageError(error) !== "not-found" || attempt >= MAX_ATTEMPTS) throw retryExhausted(error);
      }
    }
  }

  // ---- primitives -------------------------------------------------------------------------

  /**
   * Deletes the observations with these contents from one entity's range rows, with their tag links and
   * the links' index rows. Tagging an observation merges its row in the same transaction, so once the
   * row is gone no tag can be hung on it; a tag hung on it after the read, before the delete, is found
   * by reading the range again, and deleted with its index row.
   */
  private async deleteObservationRows(
    workspace: string,
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
    await forEachLimited(pack(workspace, deletionUnits(workspace, first)), CONCURRENCY, (batch) => this.transact(batch.actions));
    const late = victims(await this.queryRange(workspace, keyRange.entityWithObservations(entityId), TAG_LINK_COLUMNS));
    // A doomed observation present again was added back meanwhile: its tags are its own.
    const back = new Set(late.filter((row) => kindOf(row) === "observation").map(ownKey));
    const orphans = late.filter((row) => !back.has(ownKey(row)));
    await forEachLimited(pack(workspace, deletionUnits(workspace, orphans)), CONCURRENCY, (batch) => this.transact(batch.actions));
  }

  /**
   * Commits relation units that fit one transaction. When it fails, finds out why: relations that exist
   * already are skipped (409), relations with a missing endpoint are left out and the endpoint recorded
   * (404); the rest is tried again.
   */
  private async commitRelations(
    workspace: string,
    units: RelationUnit[],
    outcome: { created: string[]; missing: Set<string> },
    options: { allOrNothing: boolean; progress?: Progress },
    attempt = 1,
  ): Promise<void> {
    if (units.length === 0) return;
    try {
      for (const batch of pack(workspace, units)) await this.transact(batch.actions);
      outcome.created.push(...units.map((unit) => unit.relation.id));
      options.progress?.(units.length);
      return;
    } catch (error) {
      const failure = classifyStorageError(error);
      if ((failure !== "entity-exists" && failure !== "not-found") || attempt >= MAX_ATTEMPTS) throw toMemoryError(error);
      const [stored, absent] = await Promise.all([
        Promise.all(units.map((unit) => this.pointRead(workspace, rowKey.relation(unit.relation.id)))),
        failure === "not-found" ? this.absentEntities(workspace, endpointsOf(units.map((unit) => unit.relation))) : Promise.resolve([]),
      ]);
      for (const id of absent) outcome.missing.add(id);
      const remaining = units.filter(
        (unit, i) => stored[i] === undefined && !absent.includes(unit.relation.fromEntityId) && !absent.includes(unit.relation.toEntityId),
      );
      options.progress?.(units.length - remaining.length);
      // All or nothing: a missing endpoint ends the call here. (Only a concurrent delete gets here after other transactions were written.)
      if (options.allOrNothing && absent.length > 0) return;
      await this.commitRelations(workspace, remaining, outcome, options, attempt + 1);
    }
  }

  /** Of these entity ids, those with no entity row (parallel point reads). */
  private async absentEntities(workspace: string, entityIds: readonly string[]): Promise<string[]> {
    const rows = await Promise.all(entityIds.map((id) => this.pointRead(workspace, rowKey.entity(id))));
    return entityIds.filter((_, i) => rows[i] === undefined || kindOf(rows[i]!) !== "entity");
  }

  private pointRead(workspace: string, key: string): Promise<StoredRow | undefined> {
    return requests.pointRead(this.table, workspace, key);
  }

  /**
   * Streams a query in key order, grouping rows by the entity they belong to (one entity's rows are
   * contiguous), and yields each entity as soon as its range is complete, so a scan holds one entity at a time.
   */
  private async *scan(filter: string, select?: string[]): AsyncGenerator<EntityNode> {
    let group: StoredRow[] = [];
    let owner: string | undefined;
    const pages = this.table
      .listEntities<Record<string, unknown>>({ queryOptions: { filter, ...(select ? { select } : {}) } })
      .byPage({ maxPageSize: PAGE_SIZE });
    const iterator = pages[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<StoredRow[]>;
      try {
        next = await iterator.next();
      } catch (error) {
        throw toMemoryError(error);
      }
      if (next.done) break;
      for (const row of next.value) {
        const rowOwner = ownerOf(String(row.rowKey));
        if (rowOwner !== owner) {
          const node = assembleEntity(group);
          if (node) yield node;
          group = [];
          owner = rowOwner;
        }
        group.push(row);
      }
    }
    const node = assembleEntity(group);
    if (node) yield node;
  }

  private queryRange(workspace: string, range: KeyRange, select?: string[]): Promise<StoredRow[]> {
    return requests.queryRange(this.table, workspace, range, select);
  }

  private query(filter: string): Promise<StoredRow[]> {
    return requests.query(this.table, filter);
  }

  /**
   * Writes `head` plus `rest` in as few transactions as the limits allow. `head` goes in the first;
   * every later transaction also merges the entity row of `guardEntityId`, keeping the invariant.
   */
  private async submit(workspace: string, head: TransactionAction[], rest: TransactionAction[], guardEntityId: string): Promise<void> {
    const batches = chunkActions(rest, LIMITS.batchOperations - 1);
    await this.transact([...head, ...(batches[0] ?? [])]);
    for (const batch of batches.slice(1)) await this.transactUnit(workspace, { actions: batch, guards: [guardEntityId] });
  }

  /** One unit (with its guards) as one transaction. */
  private transactUnit(workspace: string, unit: Unit): Promise<void> {
    const [batch] = pack(workspace, [unit]);
    return this.transact(batch?.actions ?? []);
  }

  private transact(actions: TransactionAction[]): Promise<void> {
    return requests.transact(this.table, actions);
  }
}

/** One entry per entity, contents in first-seen order. */
function mergeChanges(changes: readonly ObservationChange[]): Map<string, string[]> {
  const merged = new Map<string, string[]>();
  for (const change of changes) merged.set(change.entityId, [...(merged.get(change.entityId) ?? []), ...change.contents]);
  return merged;
}

function endpointsOf(relations: readonly RelationWrite[]): string[] {
  return [...new Set(relations.flatMap((relation) => [relation.fromEntityId, relation.toEntityId]))];
}

/**
 * What deleting these rows of entity ranges (the entity rows aside) takes: each relation as one unit
 * (its canonical row and both edge rows, wherever they live), each tag link with its index row, then
 * every other row on its own (singles last, so they fill the gaps the pairs and triples leave).
 */
function deletionUnits(workspace: string, rows: readonly StoredRow[]): Unit[] {
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
