import type { Change, EntityUpdate } from "../../domain/feed/history.js";
import { forEachLimited } from "../../domain/model/concurrency.js";
import type { Actor, Validity } from "../../domain/model/model.js";
import type { EntitySummary, EntityWrite, NewEntity, Progress } from "../../domain/ports/store.js";
import { heldValidity, isExpired } from "../../domain/rules/validity.js";
import { entityStateOf, observationCreated } from "../rows/changes.js";
import { keyRange, rowKey } from "../rows/keys.js";
import { type EntityRow, kindOf, validityOfRow } from "../rows/rows.js";
import { entityRow, newObservationRows, type Row, stampOf, update } from "../rows/rowWrites.js";
import { checkVersion, newVersion } from "../rows/versions.js";
import type { TableGateway } from "../table/gateway.js";
import { retrying } from "../table/retrying.js";
import { classifyStorageError, type StorageFailure, toMemoryError } from "../table/storageErrors.js";
import { factKeysFor, planObservations } from "./supersession.js";
import { commit, CONCURRENCY, fitsAlone, type Unit } from "./transactions.js";

/** Entity rows and the observations written with them. Concurrency rules: transactions.ts. */

export async function getEntitySummary(gateway: TableGateway, workspace: string, entityId: string): Promise<EntitySummary | undefined> {
  const row = await gateway.pointRead(workspace, rowKey.entity(entityId));
  if (!row || kindOf(row) !== "entity") return undefined;
  return { id: entityId, name: String(row.name ?? ""), entityType: String(row.entityType ?? "") };
}

export async function upsertEntity(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  write: EntityWrite,
): Promise<{ created: boolean; addedObservations: string[]; version: string }> {
  const stamp = stampOf(actor, gateway.clock);
  const version = newVersion();
  // The merge (also the fallback when a concurrent writer created the row first) never carries createdAt or createdBy.
  const changes: Partial<EntityRow> = {
    ...update(stamp),
    version,
    ...(write.entityType !== undefined ? { entityType: write.entityType } : {}),
    ...(write.metadata !== undefined ? { metadata: JSON.stringify(write.metadata) } : {}),
  };
  let created = false;
  // A concurrent writer created it first (so merge), or deleted it (so create again): read again either way. With
  // expectedVersion, or a single-valued fact, the merge holds If-Match on the ETag read, so the check commits with the write:
  // 412 means the row changed since the read (maybe only its ETag, by a guard), so read and decide again. So does a
  // reopened observation's row (supersession.ts).
  const retryOn = (failure: StorageFailure) =>
    (created ? failure === "entity-exists" : failure === "not-found") || failure === "precondition-failed";
  // The declared fact keys, read beside the range (only when an observation looks like `key: value`).
  const singleValued = factKeysFor(gateway, workspace, write.observations);
  return retrying({ retryOn }, async () => {
    const [rows, keys] = await Promise.all([gateway.queryRange(workspace, keyRange.entityWithObservations(write.id)), singleValued]);
    const head = rows.find((row) => kindOf(row) === "entity");
    checkVersion(`Entity '${write.name}'`, write.expectedVersion, head);
    created = !head;
    // Rows without their entity row are not trusted as stored (rule 4): every requested observation is written.
    const plan = planObservations(workspace, write, created ? [] : rows, write.observations, write.observationTimes, keys, stamp, "upsert");
    let entityUnit: Unit;
    if (!head) {
      const row = { ...entityRow(workspace, { ...write, entityType: write.entityType ?? "" }, stamp, 1), version };
      entityUnit = { actions: [["create", row]], changes: [entityCreated(row)] };
    } else {
      // The row read is the before-image. The after-image holds only the fields this merge writes: the others stay as
      // stored, and without If-Match a concurrent write may have changed them since the read, so an image of them from the
      // read would roll every fold of the feed back to it (EntityUpdate in src/domain/feed/history.ts).
      const before = entityStateOf(head);
      const after: EntityUpdate = {
        name: before.name,
        ...(write.entityType !== undefined ? { entityType: write.entityType } : {}),
        ...(write.metadata !== undefined ? { metadata: write.metadata } : {}),
        version,
      };
      // An entity that expired and is not swept yet is brought back: its expiry is cleared, on the ETag read, so a sweep
      // racing this write fails its own ETag-checked delete (or, having won, makes this merge fail and create it anew).
      const revived = isExpired(validityOfRow(head), gateway.clock());
      const merge = { partitionKey: workspace, rowKey: rowKey.entity(write.id), ...changes, ...(revived ? { expiresAt: "" } : {}) };
      const onEtag = write.expectedVersion !== undefined || plan.serial.actions.length > 0 || revived;
      entityUnit = {
        actions: [onEtag ? ["update", merge, "Merge", { etag: head.etag }] : ["update", merge, "Merge"]],
        changes: [
          {
            kind: "entity.updated",
            entityId: write.id,
            entityName: write.name,
            before,
            after,
            ...(revived ? { validity: { expiresAt: "" }, validityBefore: validityOfRow(head)! } : {}),
          },
        ],
      };
    }
    // A single-valued fact and what it supersedes commit with the entity row (on its ETag, when it exists).
    entityUnit.actions.push(...plan.serial.actions);
    entityUnit.changes = [...(entityUnit.changes ?? []), ...plan.serial.changes];
    // Observations are inserted or merged (same id = same content, so a racing duplicate is harmless).
    await commit(gateway, workspace, stamp, [entityUnit, ...plan.units], { order: "in-order" });
    return { created, addedObservations: plan.added, version };
  });
}

export async function createEntities(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  entities: readonly NewEntity[],
  progress?: Progress,
): Promise<{ created: string[] }> {
  const stamp = stampOf(actor, gateway.clock);
  const created: string[] = [];
  // Observation rows of a new entity are created too (cheaper than upserts). Only rows left by a delete interrupted
  // before rule 4 (transactions.ts) held, which removed the entity row first, could be in the way.
  const unitsOf = (entity: NewEntity, i: number, observations: "create" | "upsert"): Unit[] => {
    const row = entityRow(workspace, entity, stamp, i + 1);
    const created = entityCreated(row);
    return [
      { actions: [["create", row]], changes: [entity.expiresAt ? { ...created, validity: { expiresAt: entity.expiresAt } } : created] },
      ...newObservationRows(workspace, entity.id, entity.observations, new Set(), stamp, entity.observationTimes).rows.map((observation) =>
        observationUnit(entity.id, entity.name, observation, observations, heldValidity(entity.observationTimes)),
      ),
    ];
  };
  // The entity with its observations as one unit: created together, or (when it exists) not at all.
  const units = entities.map((entity, i) => {
    const parts = unitsOf(entity, i, "create");
    return { entity, index: i, actions: parts.flatMap((part) => part.actions), changes: parts.flatMap((part) => part.changes ?? []) };
  });
  // Alone: the entity row and its first observations in one transaction; a 409 there means it exists, so it is skipped
  // whole. Unless the entity row is absent: then the 409 came from a left-over observation row, which an upsert overwrites.
  const createAlone = async (unit: (typeof units)[number]) => {
    // Transactions of this entity already committed: once the first (the entity row) has, a 409 means only that an
    // observation row is in the way (a concurrent add of the same content, or one a delete left), never that the entity
    // existed before this call; the rest is then written as upserts, not given up.
    let committed = 0;
    const written = await retrying({ retryOn: ["entity-exists"] }, async (previous) => {
      if (previous !== undefined && committed === 0 && (await gateway.pointRead(workspace, rowKey.entity(unit.entity.id)))) return false;
      await commit(gateway, workspace, stamp, unitsOf(unit.entity, unit.index, previous === undefined ? "create" : "upsert"), {
        order: "in-order",
        resume: committed,
        committed: () => (committed += 1),
      });
      return true;
    });
    if (written) created.push(unit.entity.id);
    progress?.(1);
  };
  const fitting = new Set(units.filter((unit) => fitsAlone(workspace, unit)));
  await commit(gateway, workspace, stamp, [...fitting], {
    committed: (done) => {
      created.push(...done.map((unit) => unit.entity.id));
      progress?.(done.length);
    },
    failed: async (done, error) => {
      if (classifyStorageError(error) !== "entity-exists") throw toMemoryError(error);
      // Some entity here exists already, and the answer does not say which: try each alone.
      await forEachLimited(done, CONCURRENCY, createAlone);
    },
  });
  await forEachLimited(
    units.filter((unit) => !fitting.has(unit)),
    CONCURRENCY,
    createAlone,
  );
  return { created };
}

function entityCreated(row: Row): Change {
  return { kind: "entity.created", entityId: row.rowKey, entityName: String(row.name), after: entityStateOf(row) };
}

/** One observation row (guarded by its entity, rule 1) with its change. */
function observationUnit(entityId: string, entityName: string, row: Row, write: "create" | "upsert", validity?: Validity): Unit {
  const change = observationCreated(entityId, entityName, row);
  return {
    actions: [write === "create" ? ["create", row] : ["upsert", row, "Merge"]],
    guards: [entityId],
    changes: [validity ? { ...change, validity } : change],
  };
}
