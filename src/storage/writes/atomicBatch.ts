import { LIMITS } from "../../domain/model/limits.js";
import type { Actor } from "../../domain/model/model.js";
import { entitiesOfStep, tooLarge } from "../../domain/rules/batch.js";
import type { BatchAnswer, BatchStep } from "../../domain/rules/batchModel.js";
import { changeChars, EVENT_MAX_CHARS, eventAction } from "../rows/events.js";
import { keyRange, ownerOf } from "../rows/keys.js";
import { type StoredRow, text } from "../rows/rows.js";
import { stampOf } from "../rows/rowWrites.js";
import type { TableGateway } from "../table/gateway.js";
import { retrying } from "../table/retrying.js";
import { AtomicPlan } from "./batchPlan.js";
import { type Marker, markerAction, readMarker } from "./markers.js";
import { actionBytes, commit } from "./transactions.js";

/**
 * Atomic batches (docs/curate.md#execute_batch): every operation is planned against the rows read
 * (each named entity's whole range, in parallel, and the marker) into ONE entity-group transaction with
 * its event row and the marker, so the batch applies whole or not at all. The plan holds If-Match on
 * the ETag of every existing entity row it merges, guards or deletes: anything hung on or changed in
 * those entities since the read (rule 1, transactions.ts) fails the transaction (412), and it is read
 * and planned again. Reads: one range query per distinct entity named, plus one point read of the
 * marker with a requestId, all in parallel; then one transaction, through the commit door like every
 * write (transactions.ts), so it registers its workspace the same way.
 */

/**
 * Plans and commits an atomic batch. With a requestId whose marker is fresh, returns its stored answer
 * (replayed) and writes nothing. Failures of planning (a missing entity, a version conflict, a batch
 * too large) are thrown before any write, naming the operation.
 */
export async function executeAtomicBatch(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  steps: readonly BatchStep[],
  requestId: string | undefined,
): Promise<{ answer: BatchAnswer; replayed: boolean }> {
  const ids = [...new Set(steps.flatMap(entitiesOfStep))];
  // 409: a row the plan creates (or the marker) was created meanwhile; 412: an entity read changed; 404: one went away.
  return retrying({ retryOn: ["entity-exists", "precondition-failed", "not-found"], exhausted: "conflict" }, async () => {
    const [marker, ...ranges] = await Promise.all([
      requestId !== undefined ? readMarker(gateway, workspace, requestId) : Promise.resolve<Marker | undefined>(undefined),
      ...ids.map((id) => gateway.queryRange(workspace, keyRange.wholeEntity(id))),
    ]);
    if (marker?.status === "done") return { answer: marker.answer, replayed: true };
    const read = new Map<string, StoredRow>();
    for (const row of ranges.flat() as StoredRow[]) read.set(text(row.rowKey), row);
    dropOrphans(read);
    const stamp = stampOf(actor, gateway.clock);
    const plan = new AtomicPlan(workspace, stamp, read);
    const results = steps.map((step, i) => {
      try {
        return { index: i, op: step.op, success: true, ...plan.apply(step) };
      } catch (error) {
        if (error instanceof Error)
          error.message = `Operation ${i} (${step.op}): ${error.message} Nothing in this atomic batch was written.`;
        throw error;
      }
    });
    const answer: BatchAnswer = { atomic: true, results };
    const { actions, conditions } = plan.actions();
    if (marker) actions.push(markerAction(workspace, marker, answer));
    // Sized with its event row, which the door adds (when the batch changes anything), so the door need not pack it.
    const sized = plan.changes.length > 0 ? [...actions, eventAction(workspace, stamp, plan.changes)] : actions;
    const chars = plan.changes.reduce((sum, change) => sum + changeChars(change), 0);
    const bytes = sized.reduce((sum, action) => sum + actionBytes(action), 0);
    if (sized.length > LIMITS.batchOperations || chars > EVENT_MAX_CHARS || bytes > LIMITS.batchPayloadBytes) {
      throw tooLarge(sized.length);
    }
    await commit(gateway, workspace, stamp, [{ actions, changes: plan.changes, conditions }], { order: "one" });
    return { answer, replayed: false };
  });
}

/** Rows whose entity row is absent (left by an interrupted delete) are not trusted as stored (rule 4, transactions.ts). */
function dropOrphans(read: Map<string, StoredRow>): void {
  for (const key of [...read.keys()]) {
    const owner = ownerOf(key);
    if (owner !== key && !read.has(owner)) read.delete(key);
  }
}
