import { randomUUID } from "node:crypto";

import { observationId } from "../../domain/model/ids.js";
import type { Actor, Validity } from "../../domain/model/model.js";
import { orderKey } from "../../domain/model/order.js";
import type { RelationWrite } from "../../domain/ports/store.js";
import { heldValidity } from "../../domain/rules/validity.js";
import type { Clock } from "./clock.js";
import { relationRowKeys, rowKey } from "./keys.js";
import { type EntityRow, kindOf, type ObservationRow, type RelationRow, type StoredRow } from "./rows.js";
import { newVersion } from "./versions.js";

/** The rows writes store, built in one place so every write path stores the same shape. */

export type Row = Record<string, unknown> & { partitionKey: string; rowKey: string };

/**
 * When a write happens and who makes it: every row a write creates or changes is stamped with both;
 * `call` ties together the events of a call that takes several transactions.
 */
export interface Stamp {
  now: string;
  actor: Actor;
  call: string;
  /** The writer's clock, read again when each transaction's event key is chosen (events.ts). */
  clock: Clock;
}

export const stampOf = (actor: Actor, clock: Clock): Stamp => ({ now: new Date(clock()).toISOString(), actor, call: randomUUID(), clock });

/** The fields of a row being created: created and updated, at once, by the actor. */
export function creation({ now, actor }: Stamp) {
  return { createdAt: now, updatedAt: now, createdBy: actor.principal, updatedBy: actor.principal };
}

/** The fields a change merges into an existing row: createdAt and createdBy are left as they are. */
export function update({ now, actor }: Stamp) {
  return { updatedAt: now, updatedBy: actor.principal };
}

/** A new entity row, with its position in the call that creates it (see orderKey). */
export function entityRow(
  workspace: string,
  entity: { id: string; name: string; entityType: string; metadata?: unknown; expiresAt?: string },
  stamp: Stamp,
  position: number,
): Row {
  const row: EntityRow = {
    kind: "entity",
    name: entity.name,
    entityType: entity.entityType,
    metadata: JSON.stringify(entity.metadata ?? {}),
    ...creation(stamp),
    order: orderKey(stamp.now, position),
    version: newVersion(),
    ...(entity.expiresAt ? { expiresAt: entity.expiresAt } : {}),
  };
  return { partitionKey: workspace, rowKey: rowKey.entity(entity.id), ...row };
}

/**
 * The observation rows for contents not already stored (nor repeated within `contents`), in order, with the valid time
 * and expiry the write gives them (`times`, held fields only: docs/history.md#two-times).
 */
export function newObservationRows(
  workspace: string,
  entityId: string,
  contents: readonly string[],
  stored: Set<string>,
  { now, actor }: Stamp,
  times?: Validity,
) {
  const held = heldValidity(times);
  const seen = new Set(stored);
  const added: string[] = [];
  const rows: Row[] = [];
  for (const content of contents) {
    const key = rowKey.observation(entityId, observationId(entityId, content));
    if (seen.has(key)) continue;
    seen.add(key);
    added.push(content);
    const row: ObservationRow = {
      kind: "observation",
      entityId,
      content,
      order: orderKey(now, added.length),
      createdAt: now,
      createdBy: actor.principal,
      ...held,
    };
    rows.push({ partitionKey: workspace, rowKey: key, ...row });
  }
  return { added, rows };
}

/** The keys of the observation rows among these. */
export function storedKeys(rows: readonly StoredRow[]): Set<string> {
  return new Set(rows.filter((row) => kindOf(row) === "observation").map((row) => String(row.rowKey)));
}

/** The canonical relation row and its two edge rows, with the same fields. */
export function relationRows(
  workspace: string,
  write: Pick<RelationWrite, "id" | "fromEntityId" | "fromName" | "toEntityId" | "toName" | "relationType">,
  fields: Partial<RelationRow> & { supersededBy?: string },
): Row[] {
  const base = {
    relationId: write.id,
    relationType: write.relationType,
    fromId: write.fromEntityId,
    fromName: write.fromName,
    toId: write.toEntityId,
    toName: write.toName,
    ...fields,
  };
  const [canonical, out, incoming] = relationRowKeys(write);
  return [
    { partitionKey: workspace, rowKey: canonical!, ...base, kind: "relation" },
    { partitionKey: workspace, rowKey: out!, ...base, kind: "edge-out" },
    { partitionKey: workspace, rowKey: incoming!, ...base, kind: "edge-in" },
  ];
}
