import { odata, type TableClient, type TransactionAction } from "@azure/data-tables";
import { ConflictError } from "../domain/errors.js";
import { classifyStorageError, toMemoryError } from "./errors.js";
import type { KeyRange } from "./keys.js";
import type { StoredRow } from "./rows.js";

/**
 * The storage requests both stores make, each one round trip (a query, one per page), with storage
 * failures mapped to domain errors here.
 */

/** Table Storage returns at most 1,000 rows per page. */
export const PAGE_SIZE = 1000;
/** Races are settled by retrying with what the store now says; this bounds a pathological loop. */
export const MAX_ATTEMPTS = 8;
/** Transactions of one call in flight at once: enough to hide latency, few enough not to be throttled. */
export const CONCURRENCY = 8;

export async function pointRead(table: TableClient, workspace: string, key: string): Promise<StoredRow | undefined> {
  try {
    return await table.getEntity<Record<string, unknown>>(workspace, key);
  } catch (error) {
    if (classifyStorageError(error) === "not-found") return undefined;
    throw toMemoryError(error);
  }
}

/** Runs a query to the end, one request per page of up to 1,000 rows. */
export async function query(table: TableClient, filter: string, select?: string[]): Promise<StoredRow[]> {
  const rows: StoredRow[] = [];
  try {
    const pages = table
      .listEntities<Record<string, unknown>>({ queryOptions: { filter, ...(select ? { select } : {}) } })
      .byPage({ maxPageSize: PAGE_SIZE });
    for await (const page of pages) rows.push(...page);
  } catch (error) {
    throw toMemoryError(error);
  }
  return rows;
}

/** The filter for one key range of a workspace. */
export function rangeFilter(workspace: string, range: KeyRange): string {
  return odata`PartitionKey eq ${workspace} and RowKey ge ${range.from} and RowKey lt ${range.to}`;
}

export function queryRange(table: TableClient, workspace: string, range: KeyRange, select?: string[]): Promise<StoredRow[]> {
  return query(table, rangeFilter(workspace, range), select);
}

/** One entity-group transaction (nothing to do for no actions). Failures are left to the caller to classify. */
export async function transact(table: TableClient, actions: TransactionAction[]): Promise<void> {
  if (actions.length === 0) return;
  await table.submitTransaction(actions);
}

export const deleteAction = (workspace: string, key: string): TransactionAction => ["delete", { partitionKey: workspace, rowKey: key }];

/** A delete that kept losing races: say so as a conflict (retry); other failures map as usual. */
export function retryExhausted(error: unknown) {
  const failure = classifyStorageError(error);
  if (failure === "not-found" || failure === "precondition-failed") {
    return new ConflictError("The data kept changing while it was being deleted. Retry the call.");
  }
  return toMemoryError(error);
}
