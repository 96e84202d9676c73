import type { TransactionAction } from "@azure/data-tables";

import type { Change } from "../../domain/feed/history.js";
import { NotFoundError, ValidationError } from "../../domain/model/errors.js";
import { versionConflict } from "../../domain/model/expectedVersion.js";
import { observationId } from "../../domain/model/ids.js";
import { orderKey } from "../../domain/model/order.js";
import type { BatchStep, StepResult } from "../../domain/rules/batchModel.js";
import { deletionOf, entityStateOf, observationCreated, relationStateOf } from "../rows/changes.js";
import { keyRange, relationRowKeys, rowKey } from "../rows/keys.js";
import { kindOf, type StoredRow, tagPairOf, text } from "../rows/rows.js";
import { creation, entityRow, relationRows, type Row, type Stamp, update } from "../rows/rowWrites.js";
import { newVersion, versionOf } from "../rows/versions.js";

/**
 * The plan of an atomic batch (docs/curate.md#execute_batch): each operation applied, in order, to the rows read and to what
 * the operations before it planned, into the actions of one entity-group transaction and the change event's changes.
 * batch.ts reads, plans with this and commits.
 */
type Planned =
  | { action: "create"; row: Row }
  | { action: "merge"; row: Row; etag?: string }
  | { action: "guard"; etag: string }
  | { action: "delete"; etag?: string };

type Fields = Record<string, unknown>;

export class AtomicPlan {
  private readonly planned = new Map<string, Planned>();
  readonly changes: Change[] = [];
  private position = 0;

  constructor(
    private readonly workspace: string,
    private readonly stamp: Stamp,
    private readonly read: ReadonlyMap<string, StoredRow>,
  ) {}

  /** The row as the batch so far leaves it, or undefined when absent. */
  present(key: string): Fields | undefined {
    const planned = this.planned.get(key);
    const stored = this.read.get(key);
    if (!planned || planned.action === "guard") return stored;
    if (planned.action === "delete") return undefined;
    return planned.action === "merge" ? { ...stored, ...planned.row } : planned.row;
  }

  entity(id: string): Fields | undefined {
    const row = this.present(rowKey.entity(id));
    return row && row.kind === "entity" ? row : undefined;
  }

  private create(row: Row, what: string): void {
    if (this.planned.get(row.rowKey)?.action === "delete") {
      throw new ValidationError(
        `${what} deletes a row an earlier operation of this atomic batch deleted, then writes it again: split the batch.`,
      );
    }
    this.planned.set(row.rowKey, { action: "create", row });
  }

  /** Merges fields into a row that is present (planned or stored); an entity row's merge holds its read ETag. */
  private merge(key: string, fields: Fields): void {
    const planned = this.planned.get(key);
    if (planned?.action === "create" || planned?.action === "merge") {
      Object.assign(planned.row, fields);
      return;
    }
    const etag = planned?.action === "guard" ? planned.etag : this.entityEtag(key);
    this.planned.set(key, { action: "merge", row: { partitionKey: this.workspace, rowKey: key, ...fields }, ...(etag ? { etag } : {}) });
  }

  private entityEtag(key: string): string | undefined {
    const stored = this.read.get(key);
    return stored && kindOf(stored) === "entity" ? stored.etag : undefined;
  }

  /** A guard (rule 1) on an entity the batch hangs rows on, unless the batch already writes its row. */
  private guard(id: string): void {
    const key = rowKey.entity(id);
    if (this.planned.has(key)) return;
    this.planned.set(key, { action: "guard", etag: this.read.get(key)!.etag });
  }

  private remove(key: string): void {
    const planned = this.planned.get(key);
    if (planned?.action === "create" && !this.read.has(key)) {
      this.planned.delete(key); // written by this batch only: it never reaches storage
      return;
    }
    const etag = this.entityEtag(key);
    this.planned.set(key, { action: "delete", ...(etag ? { etag } : {}) });
  }

  private missing(label: string): NotFoundError {
    return new NotFoundError(`Entity '${label}' not found. Create it first (an earlier upsert_entity in the batch counts).`);
  }

  upsertEntity(step: Extract<BatchStep, { op: "upsert_entity" }>): StepResult {
    const { write } = step;
    const head = this.entity(write.id);
    if (write.expectedVersion !== undefined) {
      const current = head ? versionOf(head) : null;
      if (current !== write.expectedVersion) throw versionConflict(`Entity '${write.name}'`, write.expectedVersion, current);
    }
    const version = newVersion();
    if (!head) {
      const row = { ...entityRow(this.workspace, { ...write, entityType: write.entityType ?? "" }, this.stamp, ++this.position), version };
      this.create(row, `upsert_entity '${write.name}'`);
      this.changes.push({ kind: "entity.created", entityId: write.id, entityName: write.name, after: entityStateOf(row) });
    } else {
      const fields: Fields = {
        ...update(this.stamp),
        version,
        ...(write.entityType !== undefined ? { entityType: write.entityType } : {}),
        ...(write.metadata !== undefined ? { metadata: JSON.stringify(write.metadata) } : {}),
      };
      const before = entityStateOf(head);
      this.merge(rowKey.entity(write.id), fields);
      this.changes.push({
        kind: "entity.updated",
        entityId: write.id,
        entityName: write.name,
        before,
        after: entityStateOf(this.entity(write.id)!),
      });
    }
    const addedObservations = this.addObservations(write.id, write.name, write.observations);
    return { id: write.id, name: write.name, created: !head, version, addedObservations };
  }

  private addObservations(entityId: string, entityName: string, contents: readonly string[]): string[] {
    const added: string[] = [];
    for (const content of contents) {
      const key = rowKey.observation(entityId, observationId(entityId, content));
      if (this.present(key)) continue;
      const row: Row = {
        partitionKey: this.workspace,
        rowKey: key,
        kind: "observation",
        entityId,
        content,
        order: orderKey(this.stamp.now, ++this.position),
        createdAt: this.stamp.now,
        createdBy: this.stamp.actor.principal,
      };
      this.create(row, `adding observations to '${entityName}'`);
      this.changes.push(observationCreated(entityId, entityName, row));
      added.push(content);
    }
    if (added.length > 0) this.guard(entityId);
    return added;
  }

  addObservationItems(step: Extract<BatchStep, { op: "add_observations" }>): StepResult {
    const results = step.items.map((item) => {
      const head = this.entity(item.entityId);
      if (!head) throw this.missing(item.entityName);
      return { entityName: item.entityName, addedObservations: this.addObservations(item.entityId, text(head.name), item.contents) };
    });
    return { results };
  }

  upsertRelation(step: Extract<BatchStep, { op: "upsert_relation" }>): StepResult {
    const { relation } = step;
    const from = this.entity(relation.fromEntityId);
    if (!from) throw this.missing(step.labels.from);
    const to = this.entity(relation.toEntityId);
    if (!to) throw this.missing(step.labels.to);
    const write = { ...relation, fromName: text(from.name), toName: text(to.name) };
    const keys = relationRowKeys(write);
    const existing = this.present(keys[1]);
    if (step.expectedVersion !== undefined) {
      const current = existing ? versionOf(existing) : null;
      if (current !== step.expectedVersion) {
        throw versionConflict(`Relation '${write.fromName}' ${write.relationType} '${write.toName}'`, step.expectedVersion, current);
      }
    }
    const version = newVersion();
    if (!existing) {
      const fields = {
        metadata: JSON.stringify(relation.metadata ?? {}),
        ...creation(this.stamp),
        order: orderKey(this.stamp.now, ++this.position),
        version,
      };
      for (const row of relationRows(this.workspace, write, fields))
        this.create(row, `upsert_relation '${write.fromName}' -> '${write.toName}'`);
      this.changes.push({ kind: "relation.created", relationId: write.id, after: { ...relationStateOf(this.present(keys[0])!) } });
    } else {
      const before = relationStateOf(existing);
      const fields = {
        ...update(this.stamp),
        version,
        ...(relation.metadata !== undefined ? { metadata: JSON.stringify(relation.metadata) } : {}),
      };
      for (const key of keys) this.merge(key, fields);
      this.changes.push({ kind: "relation.updated", relationId: write.id, before, after: relationStateOf({ ...existing, ...fields }) });
    }
    this.guard(relation.fromEntityId);
    this.guard(relation.toEntityId);
    return { relationId: write.id, fromEntityId: write.fromEntityId, toEntityId: write.toEntityId, created: !existing, version };
  }

  /** Deletes a relation (all three rows), found as its edge row `via`; false if the batch already deleted it. */
  private removeRelation(via: string): boolean {
    const row = this.present(via);
    if (!row) return false;
    const keys = relationRowKeys({ id: text(row.relationId), fromEntityId: text(row.fromId), toEntityId: text(row.toId) });
    for (const key of keys) this.remove(key);
    this.changes.push({ kind: "relation.deleted", relationId: text(row.relationId), before: relationStateOf(row) });
    return true;
  }

  /** The keys (stored or planned) of one entity's whole range that are present now. */
  private rangeKeys(entityId: string): string[] {
    const range = keyRange.wholeEntity(entityId);
    const keys = new Set([...this.read.keys(), ...this.planned.keys()].filter((key) => key >= range.from && key < range.to));
    return [...keys].filter((key) => this.present(key) !== undefined).sort();
  }

  deleteEntities(step: Extract<BatchStep, { op: "delete_entities" }>): StepResult {
    let deleted = 0;
    for (const id of step.entityIds) {
      const head = this.entity(id);
      if (!head) continue;
      const names = new Map([[id, text(head.name)]]);
      for (const key of this.rangeKeys(id)) {
        const row = this.present(key);
        if (!row || key === rowKey.entity(id)) continue;
        const kind = row.kind;
        if (kind === "edge-in" || kind === "edge-out") {
          this.removeRelation(key);
          continue;
        }
        this.removeRow(key, row, names);
      }
      this.remove(rowKey.entity(id));
      this.changes.push({ kind: "entity.deleted", entityId: id, entityName: text(head.name), before: entityStateOf(head) });
      deleted += 1;
    }
    return { deleted };
  }

  deleteRelations(step: Extract<BatchStep, { op: "delete_relations" }>): StepResult {
    let deleted = 0;
    for (const relation of step.relations) {
      if (this.removeRelation(rowKey.edgeOut(relation.fromEntityId, relation.id))) deleted += 1;
    }
    return { deleted };
  }

  deleteObservations(step: Extract<BatchStep, { op: "delete_observations" }>): StepResult {
    let deleted = 0;
    for (const item of step.items) {
      const head = this.entity(item.entityId);
      if (!head) continue;
      const names = new Map([[item.entityId, text(head.name)]]);
      for (const content of item.contents) {
        const key = rowKey.observation(item.entityId, observationId(item.entityId, content));
        const row = this.present(key);
        if (!row) continue;
        // Its tag links sit under its key (keys.ts), each with an index row elsewhere.
        for (const tagKey of this.rangeKeys(item.entityId).filter((k) => k.startsWith(`${key}~`)))
          this.removeRow(tagKey, this.present(tagKey)!, names);
        this.removeRow(key, row, names);
        deleted += 1;
      }
    }
    return { deleted };
  }

  /** Deletes a row of an entity's range (not an edge) with its change; a tag link goes with its index row. */
  private removeRow(key: string, row: Fields, names: ReadonlyMap<string, string>): void {
    const pair = tagPairOf(row as StoredRow);
    for (const doomed of pair ? [pair.link, pair.index] : [key]) this.remove(doomed);
    const change = deletionOf({ ...row, rowKey: key } as StoredRow, names);
    if (change) this.changes.push(change);
  }

  apply(step: BatchStep): StepResult {
    switch (step.op) {
      case "upsert_entity":
        return this.upsertEntity(step);
      case "add_observations":
        return this.addObservationItems(step);
      case "upsert_relation":
        return this.upsertRelation(step);
      case "delete_entities":
        return this.deleteEntities(step);
      case "delete_relations":
        return this.deleteRelations(step);
      case "delete_observations":
        return this.deleteObservations(step);
    }
  }

  /** The transaction's row operations, and the deletes that hold If-Match (row key -> ETag). */
  actions(): { actions: TransactionAction[]; conditions: Map<string, string> } {
    const actions: TransactionAction[] = [];
    const conditions = new Map<string, string>();
    for (const [key, planned] of this.planned) {
      const entity = { partitionKey: this.workspace, rowKey: key };
      switch (planned.action) {
        case "create":
          actions.push(["create", planned.row]);
          break;
        case "merge":
          actions.push(planned.etag ? ["update", planned.row, "Merge", { etag: planned.etag }] : ["update", planned.row, "Merge"]);
          break;
        case "guard":
          actions.push(["update", entity, "Merge", { etag: planned.etag }]);
          break;
        case "delete":
          actions.push(["delete", entity]);
          if (planned.etag) conditions.set(key, planned.etag);
          break;
      }
    }
    return { actions, conditions };
  }
}
