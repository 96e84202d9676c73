import type { TransactionAction } from "@azure/data-tables";
import { LIMITS } from "../domain/limits.js";
import type { Actor } from "../domain/model.js";
import type { EntitySummary, EntityWrite, NewEntity, Progress } from "../domain/store.js";
import { classifyStorageError, toMemoryError, type StorageFailure } from "./errors.js";
import type { TableGateway } from "./gateway.js";
import { keyRange, rowKey } from "./keys.js";
import { retrying } from "./retrying.js";
import { kindOf, type EntityRow } from "./rows.js";
import { entityRow, newObservationRows, stampOf, storedKeys, update } from "./rowWrites.js";
import { CONCURRENCY, forEachLimited, pack, submitGuarded } from "./transactions.js";

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
): Promise<{ created: boolean; addedObservations: string[] }> {
  const stamp = stampOf(actor);
  // The merge (also the fallback when a concurrent writer created the row first) never carries createdAt or createdBy.
  const changes: Partial<EntityRow> = {
    ...update(stamp),
    ...(write.entityType !== undefined ? { entityType: write.entityType } : {}),
    ...(write.metadata !== undefined ? { metadata: JSON.stringify(write.metadata) } : {}),
  };
  let created = false;
  // A concurrent writer created it first (so merge), or deleted it (so create again): read again either way.
  const retryOn = (failure: StorageFailure) => (created ? failure === "entity-exists" : failure === "not-found");
  return retrying({ retryOn }, async () => {
    const rows = await gateway.queryRange(workspace, keyRange.entityWithObservations(write.id));
    created = !rows.some((row) => kindOf(row) === "entity");
    // Rows without their entity row are not trusted as stored (rule 4): every requested observation is written.
    const stored = created ? new Set<string>() : storedKeys(rows);
    const { added, rows: observationRows } = newObservationRows(workspace, write.id, write.observations, stored, stamp);
    // Observations are inserted or merged (same id = same content, so a racing duplicate is harmless).
    const observationActions: TransactionAction[] = observationRows.map((row) => ["upsert", row, "Merge"]);
    const entityAction: TransactionAction = created
      ? ["create", entityRow(workspace, { ...write, entityType: write.entityType ?? "" }, stamp, 1)]
      : ["update", { partitionKey: workspace, rowKey: rowKey.entity(write.id), ...changes }, "Merge"];
    await submitGuarded(gateway, workspace, [entityAction], observationActions, write.id);
    return { created, addedObservations: added };
  });
}

export async function createEntities(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  entities: readonly NewEntity[],
  progress?: Progress,
): Promise<{ created: string[] }> {
  const stamp = stampOf(actor);
  const created: string[] = [];
  // Observation rows of a new entity are created too (cheaper than upserts). Only rows left by a delete interrupted
  // before rule 4 (transactions.ts) held, which removed the entity row first, could be in the way.
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
    const written = await retrying({ retryOn: ["entity-exists"] }, async (previous) => {
      if (previous !== undefined && (await gateway.pointRead(workspace, rowKey.entity(unit.entity.id)))) return false;
      const [head, ...rest] = actionsOf(unit.entity, unit.index, previous === undefined ? "create" : "upsert");
      await submitGuarded(gateway, workspace, [head!], rest, unit.entity.id);
      return true;
    });
    if (written) created.push(unit.entity.id);
    progress?.(1);
  };
  const fitting = units.filter((unit) => unit.actions.length <= LIMITS.batchOperations);
  await forEachLimited(pack(workspace, fitting), CONCURRENCY, async (batch) => {
    try {
      await gateway.transact(batch.actions);
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
