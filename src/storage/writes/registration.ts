import type { TransactionAction } from "@azure/data-tables";

import { LIMITS } from "../../domain/model/limits.js";
import { rowKey } from "../rows/keys.js";
import type { TableGateway } from "../table/gateway.js";

/**
 * Registering a workspace in the registry (docs/navigate.md#workspaces) as its writes commit.
 *
 * Registration costs no round trip: the first transaction an instance commits in a workspace (see
 * `commit`, the one commit door in transactions.ts) carries one more operation, a Merge-upsert of the "~workspace" row,
 * when it has room for it (at most 99 operations with its event). The instance then remembers the
 * workspace for REGISTRATION_TTL_MS, so a workspace deleted and written again through another
 * instance is registered again by that instance's next write after the interval. Merge never
 * touches properties it does not name (the search index's `generation`).
 */
const REGISTRATION_TTL_MS = 10 * 60_000;
/** When this instance last registered each workspace (forgotten when it deletes one). */
export const registeredAt = new WeakMap<TableGateway, Map<string, number>>();

/** The registry operation to add to a transaction of `operations` operations in `workspace`, or undefined. */
export function registration(gateway: TableGateway, workspace: string, operations: number): TransactionAction | undefined {
  if (operations >= LIMITS.batchOperations) return undefined;
  const at = registeredAt.get(gateway)?.get(workspace);
  if (at !== undefined && Date.now() - at < REGISTRATION_TTL_MS) return undefined;
  return ["upsert", registryRow(workspace), "Merge"];
}

/** The transaction carrying the registration committed. */
export function registered(gateway: TableGateway, workspace: string): void {
  let known = registeredAt.get(gateway);
  if (!known) registeredAt.set(gateway, (known = new Map()));
  known.set(workspace, Date.now());
}

export const registryRow = (workspace: string) => ({
  partitionKey: workspace,
  rowKey: rowKey.workspace,
  kind: "workspace",
  registeredAt: new Date().toISOString(),
});
