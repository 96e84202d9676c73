import { odata, type TableClient, type TransactionAction, type UpdateMode } from "@azure/data-tables";
import { classifyStorageError, toMemoryError } from "./errors.js";
import type { KeyRange } from "./keys.js";
import type { Row } from "./rowWrites.js";
import type { StoredRow } from "./rows.js";

/** Table Storage returns at most 1,000 rows per page. */
const PAGE_SIZE = 1000;

/** The filter for one key range of a workspace. */
function rangeFilter(workspace: string, range: KeyRange): string {
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
      this.creating = undefined; // let the next call try again
      if (classifyStorageError(error) === "entity-exists") return;
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
 * Every Table Storage request the stores make goes through here, each one round trip (a query, one
 * per page): the table is made sure of first (see TableState), and a lost table noticed. Reads fail
 * with domain errors (a read has no race to settle). Writes fail with the storage error itself, for
 * the caller to classify: most writes settle races by reading again (see retrying.ts).
 */
export class TableGateway {
  constructor(
    private readonly table: TableClient,
    private readonly state: TableState,
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

  /** Streams a query's pages of up to 1,000 rows, in key order, one request per page. */
  async *pages(filter: string, select?: string[]): AsyncGenerator<StoredRow[]> {
    await this.state.ensure();
    const pages = this.table
      .listEntities<Record<string, unknown>>({ queryOptions: { filter, ...(select ? { select } : {}) } })
      .byPage({ maxPageSize: PAGE_SIZE });
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
  async query(filter: string, select?: string[]): Promise<StoredRow[]> {
    const rows: StoredRow[] = [];
    for await (const page of this.pages(filter, select)) rows.push(...page);
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
   */
  async transact(actions: TransactionAction[]): Promise<void> {
    if (actions.length === 0) return;
    await this.run(() => this.table.submitTransaction(actions));
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
