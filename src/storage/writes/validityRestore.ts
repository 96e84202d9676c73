import type { TransactionAction } from "@azure/data-tables";

import type { Change } from "../../domain/feed/history.js";
import { observationId } from "../../domain/model/ids.js";
import type { Actor, Validity } from "../../domain/model/model.js";
import type { ValidityRestore } from "../../domain/ports/store.js";
import { relationRowKeys, rowKey } from "../rows/keys.js";
import { VALIDITY_COLUMNS } from "../rows/rows.js";
import { stampOf } from "../rows/rowWrites.js";
import type { TableGateway } from "../table/gateway.js";
import { commit, type Unit } from "./transactions.js";

/**
 * Validity patches on rows that exist (restore_entity's undo, docs/history.md#restoring-a-deleted-entity): an entity's
 * own expiry, its observations' valid time and expiry, and its relations' (all three rows each). Each patch merges onto
 * the row as it is ("" and `pinned: false` clear a field: model.ts Validity) and is recorded as the `*.updated` change the
 * fold applies (docs/history.md#two-times). Observations and relations hang off entities, so their units carry the guards
 * (transactions.ts rule 1); a row gone meanwhile fails its transaction (404), and the caller reads again.
 */
export async function restoreValidity(gateway: TableGateway, workspace: string, actor: Actor, restore: ValidityRestore): Promise<void> {
  const stamp = stampOf(actor, gateway.clock);
  const touched = { updatedAt: stamp.now, updatedBy: actor.principal };
  const { entity } = restore;
  const units: Unit[] = [];
  if (restore.entityValidity) {
    units.push({
      actions: [merge(workspace, rowKey.entity(entity.id), { ...columns(restore.entityValidity), ...touched })],
      changes: [
        {
          kind: "entity.updated",
          entityId: entity.id,
          entityName: entity.name,
          // Validity only: the merge writes no other field, so the change names none (the fold keeps what it holds).
          validity: restore.entityValidity,
        },
      ],
    });
  }
  for (const { content, validity } of restore.observations) {
    const id = observationId(entity.id, content);
    units.push({
      actions: [merge(workspace, rowKey.observation(entity.id, id), columns(validity))],
      guards: [entity.id],
      changes: [{ kind: "observation.updated", entityId: entity.id, entityName: entity.name, observationId: id, content, validity }],
    });
  }
  for (const { relation, validity } of restore.relations) {
    const fields = { ...columns(validity), ...touched };
    units.push({
      actions: relationRowKeys(relation).map((key) => merge(workspace, key, fields)),
      guards: [relation.fromEntityId, relation.toEntityId],
      changes: [
        {
          kind: "relation.updated",
          relationId: relation.id,
          after: {
            fromEntityId: relation.fromEntityId,
            fromName: relation.fromName,
            toEntityId: relation.toEntityId,
            toName: relation.toName,
            relationType: relation.relationType,
          },
          validity,
        } satisfies Change,
      ],
    });
  }
  // The entity's own row first: later transactions guard it (rule 1), so none may run before it.
  await commit(gateway, workspace, stamp, units, { order: "in-order" });
}

const merge = (workspace: string, key: string, fields: Record<string, unknown>): TransactionAction => [
  "update",
  { partitionKey: workspace, rowKey: key, ...fields },
  "Merge",
];

/** A validity patch as row columns: each field given, "" and `pinned: false` included (they clear it). */
function columns(patch: Validity): Record<string, string | boolean> {
  const row: Record<string, string | boolean> = {};
  for (const column of VALIDITY_COLUMNS) {
    const value = patch[column];
    if (value !== undefined) row[column] = value;
  }
  return row;
}
