import type { TransactionAction } from "@azure/data-tables";

import type { Change } from "../../domain/feed/history.js";
import { ConflictError, NotFoundError, ValidationError } from "../../domain/model/errors.js";
import { observationId } from "../../domain/model/ids.js";
import type { Actor, Validity } from "../../domain/model/model.js";
import type { FactKey } from "../../domain/rules/validity.js";
import { factKeyName, factOf, heldValidity, presentLens, singleValuedFactOf, statusOf } from "../../domain/rules/validity.js";
import { relationStateOf } from "../rows/changes.js";
import { keyRange, rowKey } from "../rows/keys.js";
import { kindOf, relationFieldsOf, type StoredRow, text, validityOfRow } from "../rows/rows.js";
import { newObservationRows, relationRows, type Stamp, stampOf, update } from "../rows/rowWrites.js";
import type { TableGateway } from "../table/gateway.js";
import { retrying } from "../table/retrying.js";
import { readFactKeys } from "./factKeys.js";
import { commit, type Unit } from "./transactions.js";

/**
 * Valid time on writes (docs/history.md#two-times): which observation rows a write creates, reopens or supersedes, and the
 * two writes of their own, supersede_observation and end_relation. Times come from the write's stamp (the gateway's clock).
 *
 * Single-valued facts are serialised per entity: a write that supersedes, or adds a value on a single-valued key, merges the
 * entity row with If-Match on the ETag it read (instead of the plain guard, transactions.ts rule 1). Any other write hung
 * on the entity since changes that ETag, so two writers of one key never both see "no current value": the loser gets 412,
 * reads again and supersedes the winner's value.
 */

/** An observation row's status now: closed ones (superseded, ended, expired) are reopened when written again. */
function closed(row: StoredRow, nowMs: number): boolean {
  const status = statusOf(validityOfRow(row), presentLens(nowMs));
  return status === "superseded" || status === "ended" || status === "expired";
}

const observationKey = (entityId: string, content: string) => rowKey.observation(entityId, observationId(entityId, content));

const observationChange = (
  kind: "observation.created" | "observation.updated",
  entityId: string,
  entityName: string,
  content: string,
  extra: Pick<Change, "validity" | "validityBefore">,
): Change => ({
  kind,
  entityId,
  entityName,
  observationId: observationId(entityId, content),
  content,
  ...(extra.validity ? { validity: extra.validity } : {}),
  ...(extra.validityBefore ? { validityBefore: extra.validityBefore } : {}),
});

/** An If-Match merge of a validity patch ("" clears) onto a row read. */
const patchAction = (workspace: string, row: StoredRow, patch: Validity): TransactionAction => [
  "update",
  { partitionKey: workspace, rowKey: String(row.rowKey), ...patch },
  "Merge",
  { etag: String(row.etag) },
];

/** The entity row merged with If-Match on the ETag read: a guard that also fails when anything hung on it since. */
export const entityEtagGuard = (workspace: string, head: StoredRow): TransactionAction => [
  "update",
  { partitionKey: workspace, rowKey: String(head.rowKey) },
  "Merge",
  { etag: String(head.etag) },
];

/** What writing observations to one entity does. */
export interface ObservationPlan {
  /** The contents added (new rows and reopened ones), in order. */
  added: string[];
  /** Independent units: each guarded by the entity as usual. */
  units: (Unit & { adds: string[] })[];
  /**
   * Actions that must commit with the entity row merged on its ETag (single-valued facts: the supersessions and the value
   * written), with their changes; empty when none.
   */
  serial: { actions: TransactionAction[]; changes: Change[]; adds: string[] };
}

/**
 * Plans writing `contents` to one entity whose range `rows` were read (empty for a new entity). New contents are created
 * with `times` (validFrom, validTo, expiresAt); a content stored but closed is reopened (validFrom: the given one or now);
 * one stored and current is left alone. A content on a single-valued key supersedes the entity's current values on it.
 * Throws ValidationError (nothing written) for a malformed fact on a single-valued key, or two values of one in one write.
 */
export function planObservations(
  workspace: string,
  entity: { id: string; name: string },
  rows: readonly StoredRow[],
  contents: readonly string[],
  times: Validity | undefined,
  singleValued: ReadonlySet<string>,
  stamp: Stamp,
  write: "create" | "upsert" = "create",
): ObservationPlan {
  const nowMs = Date.parse(stamp.now);
  const stored = new Map(rows.filter((row) => kindOf(row) === "observation").map((row) => [String(row.rowKey), row]));
  const distinct = [...new Set(contents)];
  const facts = new Map<string, string>(); // key -> the content written on it
  for (const content of distinct) {
    const fact = singleValued.size > 0 ? singleValuedFactOf(content, singleValued, `Observation of '${entity.name}'`) : undefined;
    if (!fact) continue;
    const other = facts.get(fact.key);
    if (other !== undefined) {
      throw new ValidationError(
        `'${entity.name}' is given two values for the single-valued key '${fact.key}' in one call ('${other.slice(0, 100)}' and '${content.slice(0, 100)}'). Write one value.`,
      );
    }
    facts.set(fact.key, content);
  }
  const plan: ObservationPlan = { added: [], units: [], serial: { actions: [], changes: [], adds: [] } };
  const fresh = newObservationRows(
    workspace,
    entity.id,
    distinct.filter((content) => !stored.has(observationKey(entity.id, content))),
    new Set(),
    stamp,
    times,
  );
  const freshByKey = new Map(fresh.rows.map((row) => [row.rowKey, row]));
  const creationValidity = heldValidity(times);
  for (const content of distinct) {
    const key = observationKey(entity.id, content);
    const row = stored.get(key);
    const fact = factOf(content);
    const onKey = fact !== undefined && facts.get(fact.key) === content;
    let action: TransactionAction;
    let change: Change;
    if (!row) {
      const created = freshByKey.get(key)!;
      action = write === "create" ? ["create", created] : ["upsert", created, "Merge"];
      change = observationChange("observation.created", entity.id, entity.name, content, { validity: creationValidity });
    } else if (closed(row, nowMs)) {
      const before = validityOfRow(row);
      const patch: Validity = {
        validFrom: times?.validFrom ?? stamp.now,
        validTo: times?.validTo ?? "",
        supersededBy: "",
        ...(times?.expiresAt ? { expiresAt: times.expiresAt } : before?.expiresAt ? { expiresAt: "" } : {}),
      };
      action = patchAction(workspace, row, patch);
      change = observationChange("observation.updated", entity.id, entity.name, content, {
        validity: patch,
        ...(before ? { validityBefore: before } : {}),
      });
    } else continue; // stored and current (or not yet valid): nothing to do
    plan.added.push(content);
    if (!onKey) {
      plan.units.push({ actions: [action], guards: [entity.id], changes: [change], adds: [key] });
      continue;
    }
    plan.serial.actions.push(action);
    plan.serial.changes.push(change);
    plan.serial.adds.push(key);
    // The entity's other values on this key that hold now are superseded by this one.
    const from = times?.validFrom ?? stamp.now;
    for (const other of stored.values()) {
      if (other === row || closed(other, nowMs) || factOf(text(other.content))?.key !== fact.key) continue;
      const before = validityOfRow(other);
      if (before?.validFrom && Date.parse(from) <= Date.parse(before.validFrom)) {
        throw new ValidationError(
          `validFrom (${from}) must be after the validFrom (${before.validFrom}) of '${text(other.content).slice(0, 100)}', which it supersedes on '${entity.name}'. Give a later validFrom.`,
        );
      }
      const patch: Validity = { validTo: from, supersededBy: content };
      plan.serial.actions.push(patchAction(workspace, other, patch));
      plan.serial.changes.push(
        observationChange("observation.updated", entity.id, entity.name, text(other.content), {
          validity: patch,
          ...(before ? { validityBefore: before } : {}),
        }),
      );
    }
  }
  return plan;
}

/** The lower-case single-valued keys among those declared. */
const singleValuedKeys = (keys: readonly FactKey[]): Set<string> =>
  new Set(keys.filter((key) => key.singleValued).map((key) => factKeyName(key.key)));

/**
 * The declared fact keys, read only when some content looks like `key: value` (otherwise no request): started at once,
 * so it runs beside the write's own read.
 */
export function factKeysFor(gateway: TableGateway, workspace: string, contents: Iterable<string>): Promise<Set<string>> {
  for (const content of contents) {
    if (factOf(content)) return readFactKeys(gateway, workspace).then(singleValuedKeys);
  }
  return Promise.resolve(new Set());
}

// ---- supersede_observation -----------------------------------------------------------------------------------------

export interface SupersedeRequest {
  entityId: string;
  entityName: string;
  observation: string;
  replacement: string;
  /** When the replacement holds from (ISO 8601, checked); the old one's validTo. Default: now. */
  validFrom?: string;
}

/**
 * Replaces one current observation with another in one transaction (one range read, one transaction): the old row gets
 * validTo and supersededBy (If-Match on its ETag), the replacement is created (or reopened), the entity row is merged on
 * its ETag. A lost race (412) reads again: the old row is then superseded, which is a ConflictError, never a second
 * supersession.
 */
export async function supersedeObservation(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  request: SupersedeRequest,
): Promise<{ validTo: string; validFrom: string }> {
  const stamp = stampOf(actor, gateway.clock);
  const { entityId, entityName, observation, replacement } = request;
  const quoted = (content: string) => `'${content.length > 100 ? `${content.slice(0, 100)}…` : content}'`;
  return retrying({ retryOn: ["precondition-failed", "entity-exists", "not-found"] }, async () => {
    const rows = await gateway.queryRange(workspace, keyRange.entityWithObservations(entityId));
    const head = rows.find((row) => kindOf(row) === "entity");
    if (!head) throw new NotFoundError(`Entity '${entityName}' not found in workspace '${workspace}'.`);
    const nowMs = Date.parse(stamp.now);
    const find = (content: string) =>
      rows.find((row) => kindOf(row) === "observation" && String(row.rowKey) === observationKey(entityId, content));
    const old = find(observation);
    if (!old) {
      throw new NotFoundError(
        `Entity '${entityName}' has no observation ${quoted(observation)}. Give its exact text (open_nodes lists them), or add the replacement with add_observations.`,
      );
    }
    const held = validityOfRow(old);
    const status = statusOf(held, presentLens(nowMs));
    if (status === "superseded") {
      throw new ConflictError(
        `Observation ${quoted(observation)} of '${entityName}' is already superseded by ${quoted(held!.supersededBy!)}; supersede that one instead.`,
      );
    }
    if (status === "ended" || status === "expired") {
      throw new ConflictError(
        `Observation ${quoted(observation)} of '${entityName}' already ${status === "ended" ? `ended (validTo ${held!.validTo})` : `expired (${held!.expiresAt})`}: it no longer holds, so there is nothing to supersede. Add the new fact with add_observations.`,
      );
    }
    const at = request.validFrom ?? stamp.now;
    if (held?.validFrom && Date.parse(at) < Date.parse(held.validFrom)) {
      throw new ValidationError(
        `validFrom (${at}) is before the validFrom (${held.validFrom}) of ${quoted(observation)}, which it supersedes. Give a validFrom at or after it.`,
      );
    }
    const existing = find(replacement);
    if (existing && !closed(existing, nowMs)) {
      throw new ConflictError(
        `${quoted(replacement)} is already current on '${entityName}'. To retire ${quoted(observation)} alone, delete it (delete_observations) or expire it (set_expiry).`,
      );
    }
    const oldPatch: Validity = { validTo: at, supersededBy: replacement };
    const actions: TransactionAction[] = [entityEtagGuard(workspace, head), patchAction(workspace, old, oldPatch)];
    const changes: Change[] = [
      observationChange("observation.updated", entityId, entityName, observation, {
        validity: oldPatch,
        ...(held ? { validityBefore: held } : {}),
      }),
    ];
    if (existing) {
      const before = validityOfRow(existing);
      const patch: Validity = { validFrom: at, validTo: "", supersededBy: "", ...(before?.expiresAt ? { expiresAt: "" } : {}) };
      actions.push(patchAction(workspace, existing, patch));
      changes.push(
        observationChange("observation.updated", entityId, entityName, replacement, {
          validity: patch,
          ...(before ? { validityBefore: before } : {}),
        }),
      );
    } else {
      const times = request.validFrom !== undefined ? { validFrom: at } : undefined;
      const [row] = newObservationRows(workspace, entityId, [replacement], new Set(), stamp, times).rows;
      actions.push(["create", row!]);
      changes.push(observationChange("observation.created", entityId, entityName, replacement, { validity: heldValidity(times) }));
    }
    await commit(gateway, workspace, stamp, [{ actions, changes }], { order: "one" });
    return { validTo: at, validFrom: at };
  });
}

// ---- end_relation --------------------------------------------------------------------------------------------------

/**
 * Ends a relation: its three rows merged with validTo in one transaction, the canonical row on the ETag read (one point
 * read, one transaction). NotFoundError when absent; ConflictError when it already ended (or expired).
 */
export async function endRelation(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  request: { relationId: string; label: string; validTo?: string },
): Promise<{ validTo: string }> {
  const stamp = stampOf(actor, gateway.clock);
  return retrying({ retryOn: ["precondition-failed"] }, async () => {
    const stored = await gateway.pointRead(workspace, rowKey.relation(request.relationId));
    if (!stored || kindOf(stored) !== "relation") {
      throw new NotFoundError(`Relation ${request.label} not found in workspace '${workspace}'.`);
    }
    const nowMs = Date.parse(stamp.now);
    const held = validityOfRow(stored);
    const status = statusOf(held, presentLens(nowMs));
    if (status === "ended" || status === "expired") {
      throw new ConflictError(
        `Relation ${request.label} already ${status === "ended" ? `ended (validTo ${held!.validTo})` : `expired (${held!.expiresAt})`}. To reopen it, upsert_relation it with a validFrom.`,
      );
    }
    const at = request.validTo ?? stamp.now;
    const start = held?.validFrom ?? text(stored.createdAt);
    if (start && Date.parse(at) <= Date.parse(start)) {
      throw new ValidationError(
        `validTo (${at}) must be after the relation's ${held?.validFrom ? "validFrom" : "creation"} (${start}). Give a later validTo, or delete the relation (delete_relations) if it never held.`,
      );
    }
    const fields = relationFieldsOf(stored);
    const write = { id: request.relationId, ...fields };
    const [canonical, ...edges] = relationRows(workspace, write, { ...update(stamp), validTo: at });
    const state = relationStateOf(stored);
    await commit(
      gateway,
      workspace,
      stamp,
      [
        {
          actions: [
            ["update", canonical!, "Merge", { etag: String(stored.etag) }],
            ...edges.map((row): TransactionAction => ["update", row, "Merge"]),
          ],
          guards: [fields.fromEntityId, fields.toEntityId],
          changes: [
            {
              kind: "relation.updated",
              relationId: request.relationId,
              before: state,
              after: state,
              validity: { validTo: at },
              ...(held ? { validityBefore: held } : {}),
            },
          ],
        },
      ],
      { order: "one" },
    );
    return { validTo: at };
  });
}
