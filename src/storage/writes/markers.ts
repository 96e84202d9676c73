import { createHash } from "node:crypto";

import type { TransactionAction } from "@azure/data-tables";

import type { BatchAnswer, BatchClaim } from "../../domain/rules/batchModel.js";
import { rowKey } from "../rows/keys.js";
import { type StoredRow, text } from "../rows/rows.js";
import type { Row } from "../rows/rowWrites.js";
import type { TableGateway } from "../table/gateway.js";
import { retrying } from "../table/retrying.js";
import { commit } from "./transactions.js";

/**
 * Idempotent batches' marker rows (docs/curate.md#idempotency): one per requestId and workspace, keyed
 * by a hash of the requestId (never user text in a key), holding the batch's first answer. A marker is
 * honoured for MARKER_TTL_MS; after that the same requestId applies again, and its write replaces the
 * marker (If-Match on the old one's ETag). Retention prunes expired markers (retention.ts).
 */
export const MARKER_TTL_MS = 24 * 60 * 60 * 1000;
/** A non-atomic batch claims its marker first; a claim older than this was abandoned (the caller died), and may be taken over. */
const PENDING_TAKEOVER_MS = 5 * 60 * 1000;
/** The answer is kept whole up to this size (one string property); a larger one is kept as its digest. */
const ANSWER_MAX_CHARS = 30_000;

export type Marker =
  | { key: string; status: "absent" }
  | { key: string; status: "expired" | "stale-pending"; etag: string }
  | { key: string; status: "pending"; etag: string }
  | { key: string; status: "done"; answer: BatchAnswer };

function markerKey(requestId: string): string {
  return rowKey.batchMarker(createHash("sha256").update(requestId, "utf8").digest("hex").slice(0, 32));
}

export async function readMarker(gateway: TableGateway, workspace: string, requestId: string): Promise<Marker> {
  const key = markerKey(requestId);
  return markerOf(key, await gateway.pointRead(workspace, key));
}

function markerOf(key: string, row: StoredRow | undefined, now = Date.now()): Marker {
  if (!row) return { key, status: "absent" };
  const age = now - Date.parse(text(row.createdAt));
  if (!(age < MARKER_TTL_MS)) return { key, status: "expired", etag: row.etag };
  if (row.state === "pending") return { key, status: age >= PENDING_TAKEOVER_MS ? "stale-pending" : "pending", etag: row.etag };
  return { key, status: "done", answer: answerOf(row) };
}

function answerOf(row: StoredRow): BatchAnswer {
  try {
    return JSON.parse(text(row.answer)) as BatchAnswer;
  } catch {
    return { atomic: row.atomic === true, results: [], digest: text(row.digest) };
  }
}

/** The marker row holding `answer` (or, for a claim, marking the batch as running). */
function markerRow(workspace: string, marker: Marker, answer: BatchAnswer | "pending"): Row {
  const base = { partitionKey: workspace, rowKey: marker.key, kind: "batch-marker", createdAt: new Date().toISOString() };
  if (answer === "pending") return { ...base, state: "pending" };
  const json = JSON.stringify(answer);
  if (json.length <= ANSWER_MAX_CHARS) return { ...base, state: "done", answer: json };
  // Too big to keep: a retry learns that the batch applied, and how to see its effect, not the per-operation answers.
  const digest = createHash("sha256").update(json, "utf8").digest("hex");
  return { ...base, state: "done", atomic: answer.atomic, digest, answer: JSON.stringify({ atomic: answer.atomic, results: [], digest }) };
}

/**
 * The marker's write inside the batch's transaction: a create (a concurrent batch with the same requestId
 * makes it fail, 409), or the replacement of an expired marker on its ETag (412 likewise).
 */
export function markerAction(workspace: string, marker: Marker, answer: BatchAnswer | "pending"): TransactionAction {
  const row = markerRow(workspace, marker, answer);
  return marker.status === "absent" ? ["create", row] : ["update", row, "Replace", { etag: "etag" in marker ? marker.etag : "*" }];
}

/**
 * Claims the marker of a non-atomic batch before its first operation: "claimed", or the answer of the
 * batch that already ran, or "running" while another caller's claim is fresh. Two requests (read, claim).
 */
export function claimMarker(gateway: TableGateway, workspace: string, requestId: string): Promise<BatchClaim> {
  // 409/412: another caller claimed it between the read and the claim: read it again.
  return retrying({ retryOn: ["entity-exists", "precondition-failed"], exhausted: "conflict" }, async () => {
    const marker = await readMarker(gateway, workspace, requestId);
    if (marker.status === "done") return { status: "done", answer: marker.answer };
    if (marker.status === "pending") return { status: "running" };
    // Through the commit door like every write (no change recorded, so no event row).
    await commit(gateway, workspace, undefined, [{ actions: [markerAction(workspace, marker, "pending")] }], { order: "one" });
    return { status: "claimed" };
  });
}

/** Stores a claimed non-atomic batch's answer. */
export async function completeMarker(gateway: TableGateway, workspace: string, requestId: string, answer: BatchAnswer): Promise<void> {
  const key = markerKey(requestId);
  const row = markerRow(workspace, { key, status: "pending", etag: "*" }, answer);
  await commit(gateway, workspace, undefined, [{ actions: [["update", row, "Replace", { etag: "*" }]] }], { order: "one" });
}
