import { odata, TableClient } from "@azure/data-tables";

import { keyRange } from "../../src/storage/rows/keys.js";
import { TEST_TABLE, testConnectionString } from "./harness.js";

/** A raw Table row as a test reads it: every stored property, with its key and `kind` (src/storage/rows/keys.ts). */
export type RawRow = Record<string, unknown> & { rowKey: string; kind?: string; etag?: string };

/**
 * A client of the test table that shares nothing with any server (no pipeline policy, no request counter, no fault
 * injector): what a test reads through it is what storage holds.
 */
export function rawTable(connectionString = testConnectionString(), tableName = TEST_TABLE): TableClient {
  return TableClient.fromConnectionString(connectionString, tableName, { allowInsecureConnection: true });
}

/** Which of a partition's rows to read: the kinds to leave out or to keep, a row-key range, the properties to fetch. */
export interface RowQuery {
  without?: readonly string[];
  only?: readonly string[];
  range?: { from: string; to: string };
  /** Only the rows whose key is above this one (a place in the feed already read). */
  after?: string;
  select?: string[];
}

/**
 * Every row of a workspace's partition, straight from the table (no server code in between), leaving out the row kinds
 * named in `without` (e.g. "event", "workspace": the feed and the registry row, which most state checks ignore), or
 * narrowed by a fuller query.
 */
export async function partitionRows<Row extends { rowKey: string } = RawRow>(
  table: TableClient,
  workspace: string,
  query: readonly string[] | RowQuery = [],
): Promise<Row[]> {
  const { without = [], only = [], range, after, select }: RowQuery = isKindList(query) ? { without: query } : query;
  const filter = [
    odata`PartitionKey eq ${workspace}`,
    ...without.map((kind) => odata`kind ne ${kind}`),
    ...(only.length > 0 ? [`(${only.map((kind) => odata`kind eq ${kind}`).join(" or ")})`] : []),
    ...(range ? [odata`RowKey ge ${range.from} and RowKey lt ${range.to}`] : []),
    ...(after !== undefined ? [odata`RowKey gt ${after}`] : []),
  ].join(" and ");
  const rows: Row[] = [];
  for await (const row of table.listEntities<Record<string, unknown>>({ queryOptions: { filter, ...(select ? { select } : {}) } })) {
    rows.push({ ...row, rowKey: String(row.rowKey) } as unknown as Row);
  }
  return rows;
}

/** The row keys of a workspace's change feed, oldest first (src/storage/rows/keys.ts: the feed's own key range). */
export async function eventRowKeys(table: TableClient, workspace: string): Promise<string[]> {
  const rows = await partitionRows(table, workspace, { range: keyRange.events(), select: ["RowKey"] });
  return rows.map((row) => row.rowKey);
}

function isKindList(query: readonly string[] | RowQuery): query is readonly string[] {
  return Array.isArray(query);
}
