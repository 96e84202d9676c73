import type { TransactionAction } from "@azure/data-tables";

import { forEachLimited } from "../../domain/model/concurrency.js";
import { NotFoundError } from "../../domain/model/errors.js";
import type { Actor, Validity } from "../../domain/model/model.js";
import { compareText, orderKey } from "../../domain/model/order.js";
import type { Progress, RelationRef, RelationWrite } from "../../domain/ports/store.js";
import { heldValidity } from "../../domain/rules/validity.js";
import { relationStateOf, relationStateOfWrite } from "../rows/changes.js";
import { relationRowKeys, rowKey } from "../rows/keys.js";
import { kindOf, validityOfRow } from "../rows/rows.js";
import { creation, relationRows, type Stamp, stampOf, update } from "../rows/rowWrites.js";
import { checkVersion, newVersion } from "../rows/versions.js";
import type { TableGateway } from "../table/gateway.js";
import { retrying } from "../table/retrying.js";
import { classifyStorageError } from "../table/storageErrors.js";
import { commit, CONCURRENCY, deleteAction, pack, type Unit } from "./transactions.js";

/**
 * Relations: the canonical row and both edge rows, always written and deleted in one transaction that
 * guards both endpoints (rule 1 in transactions.ts).
 */

interface RelationUnit extends Unit {
  relation: RelationWrite;
}

const ENDPOINT_MISSING = "A relation endpoint does not exist.";

export async function upsertRelation(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  write: RelationWrite,
): Promise<{ created: boolean; version: string }> {
  const stamp = stampOf(actor, gateway.clock);
  const version = newVersion();
  if (write.expectedVersion !== undefined) return updateRelationAtVersion(gateway, workspace, stamp, write, write.expectedVersion, version);
  const guards = [write.fromEntityId, write.toEntityId];
  // Create, then merge (rule 2). The merge is an update (If-Match "*"), so a relation deleted between the two is not
  // written back without its createdAt and createdBy: the update finds it gone (404) and the next attempt creates it.
  // Only a merge's 404 is retried; a create's 404 is its guard: an endpoint is gone.
  const createRows = relationRows(workspace, write, {
    metadata: JSON.stringify(write.metadata ?? {}),
    ...creation(stamp),
    order: orderKey(stamp.now, 1),
    version,
    ...heldValidity(write.validity),
  });
  const created = relationStateOfWrite(write, write.metadata ?? {}, version);
  const patch = validityPatch(write.validity);
  const mergeRows = relationRows(workspace, write, {
    ...update(stamp),
    version,
    ...(write.metadata !== undefined ? { metadata: JSON.stringify(write.metadata) } : {}),
    ...patch,
  });
  const creationValidity = heldValidity(write.validity);
  // No read before this merge (the budget's 2 requests), so no before-image: the relation's previous event has it.
  // Without new metadata the stored metadata stays, and the after-image leaves it out.
  const { metadata: _kept, ...unchanged } = created;
  const after = write.metadata !== undefined ? created : unchanged;
  return retrying({ retryOn: ["entity-exists", "not-found"] }, async (previous) => {
    const create = previous !== "entity-exists";
    try {
      await commit(gateway, workspace, stamp, [
        create
          ? {
              actions: createRows.map((row): TransactionAction => ["create", row]),
              guards,
              changes: [
                {
                  kind: "relation.created",
                  relationId: write.id,
                  after: created,
                  ...(creationValidity ? { validity: creationValidity } : {}),
                },
              ],
            }
          : {
              actions: mergeRows.map((row): TransactionAction => ["update", row, "Merge"]),
              guards,
              changes: [{ kind: "relation.updated", relationId: write.id, after, ...(patch ? { validity: patch } : {}) }],
            },
      ]);
      return { created: create, version };
    } catch (error) {
      if (create && classifyStorageError(error) === "not-found") throw new NotFoundError(ENDPOINT_MISSING);
      throw error;
    }
  });
}

export async function createRelations(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  relations: readonly RelationWrite[],
  options: { allOrNothing: boolean; progress?: Progress },
): Promise<{ created: string[]; missingEntityIds: string[] }> {
  const stamp = stampOf(actor, gateway.clock);
  const distinct = [...new Map(relations.map((relation) => [relation.id, relation])).values()];
  const versions = new Map(distinct.map((relation) => [relation.id, newVersion()]));
  const units: RelationUnit[] = distinct
    .map((relation, i) => ({
      relation,
      actions: relationRows(workspace, relation, {
        metadata: JSON.stringify(relation.metadata ?? {}),
        ...creation(stamp),
        order: orderKey(stamp.now, i + 1),
        version: versions.get(relation.id)!,
        ...heldValidity(relation.validity),
      }).map((row): TransactionAction => ["create", row]),
      guards: [relation.fromEntityId, relation.toEntityId],
      changes: [
        {
          kind: "relation.created" as const,
          relationId: relation.id,
          after: relationStateOfWrite(relation, relation.metadata ?? {}, versions.get(relation.id)!),
          ...(heldValidity(relation.validity) ? { validity: heldValidity(relation.validity)! } : {}),
        },
      ],
    }))
    // Relations that share a source go together, so they share its guard.
    .sort((a, b) => compareText(a.relation.fromEntityId, b.relation.fromEntityId));
  const batches = pack(workspace, units);
  if (options.allOrNothing && batches.length > 1) {
    // Several transactions cannot be undone together, so make sure of the endpoints before writing any.
    const absent = await absentEntities(gateway, workspace, endpointsOf(distinct));
    if (absent.length > 0) return { created: [], missingEntityIds: absent };
  }
  const outcome = { created: [] as string[], missing: new Set<string>() };
  await forEachLimited(batches, CONCURRENCY, (batch) => commitRelations(gateway, workspace, stamp, batch.units, outcome, options));
  return { created: outcome.created, missingEntityIds: [...outcome.missing] };
}

/**
 * Commits relation units that fit one transaction. When it fails, finds out why before trying again:
 * relations that exist already are skipped (409), relations with a missing endpoint are left out and
 * the endpoint recorded (404).
 */
function commitRelations(
  gateway: TableGateway,
  workspace: string,
  stamp: Stamp,
  units: RelationUnit[],
  outcome: { created: string[]; missing: Set<string> },
  options: { allOrNothing: boolean; progress?: Progress },
): Promise<void> {
  let pending = units;
  return retrying({ retryOn: ["entity-exists", "not-found"] }, async (previous) => {
    if (previous !== undefined) {
      const [stored, absent] = await Promise.all([
        Promise.all(pending.map((unit) => gateway.pointRead(workspace, rowKey.relation(unit.relation.id)))),
        previous === "not-found" ? absentEntities(gateway, workspace, endpointsOf(pending.map((unit) => unit.relation))) : ([] as string[]),
      ]);
      for (const id of absent) outcome.missing.add(id);
      const remaining = pending.filter(
        (unit, i) => stored[i] === undefined && !absent.includes(unit.relation.fromEntityId) && !absent.includes(unit.relation.toEntityId),
      );
      options.progress?.(pending.length - remaining.length);
      pending = remaining;
      // All or nothing: a missing endpoint ends the call here. (Only a concurrent delete gets here after other transactions were written.)
      if (options.allOrNothing && absent.length > 0) return;
    }
    if (pending.length === 0) return;
    await commit(gateway, workspace, stamp, pending, { order: "in-order" });
    outcome.created.push(...pending.map((unit) => unit.relation.id));
    options.progress?.(pending.length);
  });
}

export async function deleteRelations(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  relations: readonly RelationRef[],
): Promise<void> {
  const distinct = [...new Map(relations.map((relation) => [relation.id, relation])).values()];
  const stamp = stampOf(actor, gateway.clock);
  // 404: a row went away (a concurrent delete). Read again.
  await retrying({ retryOn: ["not-found"], exhausted: "conflict" }, async () => {
    const stored = await Promise.all(distinct.map((relation) => gateway.pointRead(workspace, rowKey.relation(relation.id))));
    const units = distinct.flatMap((relation, i): Unit[] => {
      const row = stored[i];
      if (!row) return [];
      return [
        {
          actions: relationRowKeys(relation).map((key) => deleteAction(workspace, key)),
          changes: [{ kind: "relation.deleted", relationId: relation.id, before: relationStateOf(row) }],
        },
      ];
    });
    await commit(gateway, workspace, stamp, units);
  });
}

/**
 * upsert_relation with expectedVersion: an update of the stored relation, only while its version is the one expected.
 * The canonical row is read (one point read) and merged with If-Match on its ETag, in one transaction with the edge
 * rows and the endpoint guards; 412 means it changed since the read: read and check again.
 */
function updateRelationAtVersion(
  gateway: TableGateway,
  workspace: string,
  stamp: Stamp,
  write: RelationWrite,
  expected: string,
  version: string,
): Promise<{ created: boolean; version: string }> {
  const subject = `Relation '${write.fromName}' ${write.relationType} '${write.toName}'`;
  return retrying({ retryOn: ["precondition-failed"] }, async () => {
    const stored = await gateway.pointRead(workspace, rowKey.relation(write.id));
    checkVersion(subject, expected, stored);
    const patch = validityPatch(write.validity);
    const fields = {
      ...update(stamp),
      version,
      ...(write.metadata !== undefined ? { metadata: JSON.stringify(write.metadata) } : {}),
      ...patch,
    };
    const [canonical, ...edges] = relationRows(workspace, write, fields);
    const held = validityOfRow(stored!);
    const before = relationStateOf(stored!);
    const after = { ...before, version, ...(write.metadata !== undefined ? { metadata: write.metadata } : {}) };
    await commit(gateway, workspace, stamp, [
      {
        actions: [
          ["update", canonical!, "Merge", { etag: stored!.etag }],
          ...edges.map((row): TransactionAction => ["update", row, "Merge"]),
        ],
        guards: [write.fromEntityId, write.toEntityId],
        changes: [
          {
            kind: "relation.updated",
            relationId: write.id,
            before,
            after,
            ...(patch ? { validity: patch } : {}),
            ...(patch && held ? { validityBefore: held } : {}),
          },
        ],
      },
    ]);
    return { created: false, version };
  });
}

/** Of these entity ids, those with no entity row (parallel point reads). */
async function absentEntities(gateway: TableGateway, workspace: string, entityIds: readonly string[]): Promise<string[]> {
  const rows = await Promise.all(entityIds.map((id) => gateway.pointRead(workspace, rowKey.entity(id))));
  return entityIds.filter((_, i) => rows[i] === undefined || kindOf(rows[i]!) !== "entity");
}

/**
 * What a write's validity merges onto a relation that exists: the fields given; a validFrom without a validTo starts a new
 * period, so it clears the stored validTo (reopens an ended relation). Undefined when none is given.
 */
function validityPatch(validity: Validity | undefined): Validity | undefined {
  const held = heldValidity(validity);
  if (!held) return undefined;
  return held.validFrom && !held.validTo ? { ...held, validTo: "" } : held;
}

function endpointsOf(relations: readonly RelationWrite[]): string[] {
  return [...new Set(relations.flatMap((relation) => [relation.fromEntityId, relation.toEntityId]))];
}
