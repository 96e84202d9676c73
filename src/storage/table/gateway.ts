import { AsyncLocalStorage } from "node:async_hooks";

import type { PipelinePolicy } from "@azure/core-rest-pipeline";
import { odata, type TableClient, type TransactionAction, type UpdateMode } from "@azure/data-tables";

import type { Clock } from "../rows/clock.js";
import type { KeyRange } from "../rows/keys.js";
import type { StoredRow } from "../rows/rows.js";
import type { Row } from "../rows/rowWrites.js";
import { classifyStorageError, toMemoryError } from "./storageErrors.js";

/** Table Storage returns at most 1,000 rows per page. */
const PAGE_SIZE = 1000;

/** The filter for one key range of a workspace. */
export function rangeFilter(workspace: string, range: KeyRange): string {
  return odata`PartitionKey eq ${workspace} and RowKey ge ${range.from} and RowKey lt ${range.to}`;
}

/**
 * Creates the table once per process, and again after any TableNotFound; "already exists" counts as
 * success. A call that meets a missing table still fails (with a StorageError saying so): its reads
 * could not have seen data the table lost, so only the next call, on a fresh table, is safe to run.
 */
export class TableState {
  private creating: Promise<void> | undefined;

  constructor(private readonly table: TableClient) {}

  ensure(): Promise<void> {
    this.creating ??= this.table.createTable().catch((error: unknown) => {
      // The SDK already treats "table exists" as success; a service that still answers 409 means the same.
      if (classifyStorageError(error) === "entity-exists") return;
      this.creating = undefined; // a real failure: let the next call try again
      throw toMemoryError(error);
    });
    return this.creating;
  }

  /** Passes `error` on; if it says the table is gone, the next request creates it first. */
  noticeLoss(error: unknown): unknown {
    if (classifyStorageError(error) === "table-missing") this.creating = undefined;
    return error;
  }
}

/**
 * If-Match on deletes inside a transaction. The batch API takes an ETag on each DELETE of a changeset,
 * but `TableClient.submitTransaction` sends every transactional delete with If-Match "*". This
 * pipeline policy (on the gateway's client) sets the ETag of the deletes the gateway names for the
 * transaction it is sending, in the multipart body, so an entity row can be deleted on the ETag read
 * in the same transaction as its event (transactions.ts, rule 6). It fails closed: a named delete it
 * cannot find in the body stops the request instead of deleting unconditionally.
 */
export class ConditionalDeletes {
  private readonly current = new AsyncLocalStorage<ReadonlyMap<string, string>>();

  run<T>(conditions: ReadonlyMap<string, string>, send: () => Promise<T>): Promise<T> {
    return conditions.size === 0 ? send() : this.current.run(conditions, send);
  }

  readonly policy: PipelinePolicy = {
    name: "centralMemoryConditionalDeletes",
    sendRequest: (request, next) => {
      const conditions = this.current.getStore();
      if (!conditions || typeof request.body !== "string" || !new URL(request.url).pathname.endsWith("$batch")) return next(request);
      const lines = request.body.split("\r\n");
      const applied = new Set<string>();
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        if (!line.startsWith("DELETE ")) continue;
        const key = [...conditions.keys()].find((rowKey) => line.includes(`RowKey='${encodeURIComponent(rowKey)}')`));
        if (key === undefined) continue;
        // The sub-request's headers run to the first empty line.
        for (let j = i + 1; j < lines.length && lines[j] !== ""; j++) {
          if (!lines[j]!.toLowerCase().startsWith("if-match:")) continue;
          lines[j] = `If-Match: ${conditions.get(key)!}`;
          applied.add(key);
        }
      }
      if (applied.size !== conditions.size) throw new Error("A conditional delete was not found in the transaction it belongs to.");
      request.body = lines.join("\r\n");
      // The body grew ("*" became an ETag); shared-key signing already set the old length.
      request.headers.set("content-length", String(Buffer.byteLength(request.body)));
      return next(request);
    },
  };
}

/**
 * Every Table Storage request the stores make goes through here, each one round trip (a query, one
 * per page): the table is made sure of first (see TableState), and a lost table noticed. Reads fail
 * with domain errors (a read has no race to settle). Writes fail with the storage error itself, for
 * the caller to classify: most writes settle races by reading again (see retrying.ts).
 */
/** Transactions of one call in flight at once: enough to hide latency, few enough not to be throttled. */
export const CONCURRENCY = 8;

export class TableGateway {
  constructor(
    private readonly table: TableClient,
    private readonly state: TableState,
    private readonly conditional: ConditionalDeletes,
    /** The writer's clock: stamps, event keys and feed read positions (docs/architecture.md#the-feeds-order). */
    readonly clock: Clock = Date.now,
  ) {}

  /** The row, or undefined if it does not exist. */
  async pointRead(workspace: string, key: string): Promise<StoredRow | undefined> {
    try {
      return await this.run(() => this.table.getEntity<Record<string, unknown>>(workspace, key));
    } catch (error) {
      if (classifyStorageError(error) === "not-found") return undefined;
      throw toMemoryError(error);
    }
  }

  /**
   * Streams a query's pages of up to 1,000 rows (or `pageSize`), in key order, one request per page. `onServerTime` gets
   * each answer's `Date` header (the storage server's clock, to the second).
   */
  async *pages(filter: string, select?: string[], pageSize = PAGE_SIZE, onServerTime?: (ms: number) => void): AsyncGenerator<StoredRow[]> {
    await this.state.ensure();
    const onResponse = onServerTime
      ? (response: { headers: { get(name: string): string | undefined } }) => {
          const date = Date.parse(response.headers.get("date") ?? "");
          if (Number.isFinite(date)) onServerTime(date);
        }
      : undefined;
    const pages = this.table
      .listEntities<Record<string, unknown>>({
        queryOptions: { filter, ...(select ? { select } : {}) },
        ...(onResponse ? { onResponse } : {}),
      })
      .byPage({ maxPageSize: pageSize });
    const iterator = pages[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<StoredRow[]>;
      try {
        next = await iterator.next();
      } catch (error) {
        throw toMemoryError(this.state.noticeLoss(error));
      }
      if (next.done) return;
      yield next.value;
    }
  }

  /** Runs a query to the end. */
  async query(filter: string, select?: string[], onServerTime?: (ms: number) => void): Promise<StoredRow[]> {
    const rows: StoredRow[] = [];
    for await (const page of this.pages(filter, select, PAGE_SIZE, onServerTime)) rows.push(...page);
    return rows;
  }

  queryRange(workspace: string, range: KeyRange, select?: string[]): Promise<StoredRow[]> {
    return this.query(rangeFilter(workspace, range), select);
  }

  async createRow(row: Row): Promise<void> {
    await this.run(() => this.table.createEntity(row));
  }

  /** Merges `row` into the stored row, only if its ETag still is `etag`. */
  async updateRow(row: Row, mode: UpdateMode, etag: string): Promise<void> {
    await this.run(() => this.table.updateEntity(row, mode, { etag }));
  }

  /** Deletes the row, only if its ETag still is `etag`. */
  async deleteRow(workspace: string, key: string, etag: string): Promise<void> {
    await this.run(() => this.table.deleteEntity(workspace, key, { etag }));
  }

  /**
   * One entity-group transaction (nothing to do for no actions). Its failure arrives inside a 202
   * answer, which the SDK turns into an error after the HTTP pipeline: caught here like any other.
   * `ifMatch` names deletes among the actions (row key -> ETag) that hold only on that ETag.
   */
  async transact(actions: TransactionAction[], ifMatch: ReadonlyMap<string, string> = new Map()): Promise<void> {
    if (actions.length === 0) return;
    await this.run(() => this.conditional.run(ifMatch, () => this.table.submitTransaction(actions)));
  }

  private async run<T>(request: () => Promise<T>): Promise<T> {
    await this.state.ensure();
    try {
      return await request();
    } catch (error) {
      throw this.state.noticeLoss(error);
    }
  }
}
