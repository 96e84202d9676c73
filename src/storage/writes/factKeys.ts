import type { FactKey } from "../../domain/rules/validity.js";
import { factKeyName } from "../../domain/rules/validity.js";
import { rowKey } from "../rows/keys.js";
import { text } from "../rows/rows.js";
import type { TableGateway } from "../table/gateway.js";
import { retrying } from "../table/retrying.js";

/**
 * A workspace's declared fact keys (declare_fact_keys; docs/history.md#single-valued-facts): one row, `~config~factkeys`,
 * holding them as JSON. A setting of the workspace, not graph data: it records no event. Declaring merges into what is
 * declared, on the row's ETag (a lost race reads again), so two declarations never drop each other's keys.
 */

/** The declared keys, by lower-case key; none when the row is absent. */
export async function readFactKeys(gateway: TableGateway, workspace: string): Promise<FactKey[]> {
  return keysOf(await gateway.pointRead(workspace, rowKey.factKeys));
}

function keysOf(row: Record<string, unknown> | undefined): FactKey[] {
  if (!row) return [];
  try {
    const value: unknown = JSON.parse(text(row.keys) || "[]");
    return Array.isArray(value)
      ? value.filter((key): key is FactKey => typeof key?.key === "string" && typeof key?.singleValued === "boolean")
      : [];
  } catch {
    return [];
  }
}

/** Declares keys (a key declared again takes its new `singleValued`); returns every declared key, sorted. */
export async function declareFactKeys(gateway: TableGateway, workspace: string, keys: readonly FactKey[]): Promise<FactKey[]> {
  return retrying({ retryOn: ["precondition-failed", "entity-exists"] }, async () => {
    const row = await gateway.pointRead(workspace, rowKey.factKeys);
    const declared = new Map(keysOf(row).map((key) => [factKeyName(key.key), key]));
    for (const key of keys) declared.set(factKeyName(key.key), { key: factKeyName(key.key), singleValued: key.singleValued });
    const all = [...declared.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const next = { partitionKey: workspace, rowKey: rowKey.factKeys, kind: "fact-keys", keys: JSON.stringify(all) };
    if (row) await gateway.updateRow(next, "Replace", String(row.etag));
    else await gateway.createRow(next);
    return all;
  });
}
