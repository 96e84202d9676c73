import { odata, type TableClient } from "@azure/data-tables";

/** A raw Table row as a test reads it: every stored property, with its key and `kind` (src/storage/rows/keys.ts). */
export type RawRow = Record<string, unknown> & { rowKey: string; kind?: string };

/**
 * Every row of a workspace's partition, straight from the table (no server code in between), leaving out the row kinds
 * named in `without` (e.g. "event", "workspace": the feed and the registry row, which most state checks ignore).
 */
export async function partitionRows(table: TableClient, workspace: string, without: readonly string[] = []): Promise<RawRow[]> {
  const filter = [odata`PartitionKey eq ${workspace}`, ...without.map((kind) => odata`kind ne ${kind}`)].join(" and ");
  const rows: RawRow[] = [];
  for await (const row of table.listEntities<Record<string, unknown>>({ queryOptions: { filter } })) {
    rows.push({ ...row, rowKey: String(row.rowKey) });
  }
  return rows;
}
