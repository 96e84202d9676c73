import { ValidationError } from "../model/errors.js";
import { checkExpectedVersion } from "../model/expectedVersion.js";
import { entityId, relationId, relationIds } from "../model/ids.js";
import { LIMITS } from "../model/limits.js";
import {
  checkCount,
  checkEntityName,
  checkEntityNameLookup,
  checkEntityType,
  checkObservation,
  checkRelationLookup,
  checkRelationType,
  normalizeMetadata,
} from "../model/validation.js";
import type { BatchOp, BatchStep } from "./batchModel.js";

/**
 * execute_batch's rules (docs/curate.md#execute_batch): the operations it takes, each with the
 * arguments of the tool of the same name, and, for an atomic batch, the checked steps the store
 * plans into one entity-group transaction.
 */

/** The most operations one batch may hold (an atomic one must also fit one transaction). */
export const MAX_BATCH_OPERATIONS = LIMITS.batchOperations;

/** A stable id for a requestId: at most 200 characters of printable text. */
export function checkRequestId(requestId: string | undefined): void {
  if (requestId === undefined) return;
  if (requestId.length === 0 || requestId.length > 200 || /[\p{Cc}]/u.test(requestId)) {
    throw new ValidationError("requestId must be 1-200 printable characters (a UUID is a good choice). Nothing was written.");
  }
}

/**
 * The rows an atomic batch writes whatever the store holds: every upsert_entity writes its entity row,
 * every upsert_relation its three rows, and the transaction its event row and the marker. A batch whose
 * floor exceeds one transaction is refused before any request.
 */
export function atomicFloor(ops: readonly BatchOp[], requestId: string | undefined): number {
  const rows = ops.reduce((sum, op) => sum + (op.op === "upsert_entity" ? 1 : op.op === "upsert_relation" ? 3 : 0), 0);
  return rows + 1 + (requestId !== undefined ? 1 : 0);
}

export function tooLarge(rows: number): ValidationError {
  return new ValidationError(
    `This atomic batch needs ${rows} rows in one entity-group transaction (its event row and marker included); the limit is ` +
      `${LIMITS.batchOperations}. Nothing was written. Split it into smaller atomic batches, or send it with atomic: false.`,
  );
}

/**
 * Checks every operation as its own tool would, and derives the ids, before any storage call. `idOf`
 * resolves an entity reference (id or name) as upsert_relation does.
 */
export function stepsOf(
  workspace: string,
  ops: readonly BatchOp[],
  idOf: (ref: { id?: string; name?: string }, role: "from" | "to") => string,
): BatchStep[] {
  return ops.map((op, i): BatchStep => {
    const at = `operations[${i}].args`;
    switch (op.op) {
      case "upsert_entity": {
        const { name, entityType, expectedVersion } = op.args;
        const observations = op.args.observations ?? [];
        checkEntityName(name, `${at}.name`);
        checkEntityType(entityType, `${at}.entityType`);
        checkCount(observations, `${at}.observations`, LIMITS.observationsPerCall);
        observations.forEach((content, j) => checkObservation(content, `${at}.observations[${j}]`));
        checkExpectedVersion(expectedVersion, `${at}.expectedVersion`);
        const metadata = normalizeMetadata(op.args.metadata);
        return {
          op: op.op,
          write: {
            id: entityId(workspace, name),
            name,
            entityType,
            observations: [...new Set(observations)],
            ...(metadata !== undefined ? { metadata } : {}),
            ...(expectedVersion !== undefined ? { expectedVersion } : {}),
          },
        };
      }
      case "add_observations":
      case "delete_observations": {
        const adding = op.op === "add_observations";
        const list = adding
          ? op.args.observations.map((item) => ({ entityName: item.entityName, contents: item.contents }))
          : op.args.deletions.map((item) => ({ entityName: item.entityName, contents: item.observations }));
        // The argument names of the op's own tool, so the message names the field given.
        const [items, contents] = adding ? [`${at}.observations`, "contents"] : [`${at}.deletions`, "observations"];
        checkCount(list, items, LIMITS.itemsPerCall);
        list.forEach((item, j) => {
          (adding ? checkEntityName : checkEntityNameLookup)(item.entityName, `${items}[${j}].entityName`);
          checkCount(item.contents, `${items}[${j}].${contents}`, LIMITS.observationsPerCall);
          item.contents.forEach((content, k) => checkObservation(content, `${items}[${j}].${contents}[${k}]`));
        });
        return {
          op: op.op,
          items: list.map((item) => ({
            entityId: entityId(workspace, item.entityName),
            entityName: item.entityName,
            contents: item.contents,
          })),
        };
      }
      case "upsert_relation": {
        const fromEntityId = idOf(op.args.from, "from");
        const toEntityId = idOf(op.args.to, "to");
        checkRelationType(op.args.relationType, `${at}.relationType`);
        checkExpectedVersion(op.args.expectedVersion, `${at}.expectedVersion`);
        const metadata = normalizeMetadata(op.args.metadata);
        return {
          op: op.op,
          relation: {
            id: relationId(workspace, fromEntityId, op.args.relationType, toEntityId),
            fromEntityId,
            toEntityId,
            relationType: op.args.relationType,
            ...(metadata !== undefined ? { metadata } : {}),
          },
          ...(op.args.expectedVersion !== undefined ? { expectedVersion: op.args.expectedVersion } : {}),
          labels: { from: op.args.from.name ?? op.args.from.id ?? "", to: op.args.to.name ?? op.args.to.id ?? "" },
        };
      }
      case "delete_entities":
        checkCount(op.args.entityNames, `${at}.entityNames`, LIMITS.itemsPerCall);
        op.args.entityNames.forEach((name, j) => checkEntityNameLookup(name, `${at}.entityNames[${j}]`));
        return { op: op.op, entityIds: [...new Set(op.args.entityNames.map((name) => entityId(workspace, name)))] };
      case "delete_relations":
        checkCount(op.args.relations, `${at}.relations`, LIMITS.itemsPerCall);
        op.args.relations.forEach((relation, j) => checkRelationLookup(relation, `${at}.relations[${j}]`));
        return { op: op.op, relations: op.args.relations.map((relation) => relationIds(workspace, relation)) };
    }
  });
}

/** The entities a step reads (their whole ranges) to be planned. */
export function entitiesOfStep(step: BatchStep): string[] {
  switch (step.op) {
    case "upsert_entity":
      return [step.write.id];
    case "add_observations":
    case "delete_observations":
      return step.items.map((item) => item.entityId);
    case "upsert_relation":
      return [step.relation.fromEntityId, step.relation.toEntityId];
    case "delete_entities":
      return step.entityIds;
    case "delete_relations":
      return step.relations.map((relation) => relation.fromEntityId);
  }
}
