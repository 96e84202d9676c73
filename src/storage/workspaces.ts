import { randomBytes, randomUUID } from "node:crypto";
import { odata, type TransactionAction } from "@azure/data-tables";
import { forEachLimited } from "../domain/concurrency.js";
import { LIMITS } from "../domain/limits.js";
import type { Actor } from "../domain/model.js";
import type { RegisteredWorkspace, WorkspaceDeletion, WorkspaceStore, WorkspaceSummary } from "../domain/workspaces.js";
import { classifyStorageError, toMemoryError } from "./errors.js";
import type { TableGateway } from "./gateway.js";
import { ADMIN_PARTITION, rowKey, workspaceDeletionKey, workspaceDeletions } from "./keys.js";
import { text } from "./rows.js";
import { emptyPartition } from "./workspaceDeletion.js";

/**
 * The workspace registry and whole-workspace administration (docs/navigate.md#workspaces).
 *
 * Registration costs no round trip: the first transaction an instance commits in a workspace (see
 * commitBatch, transactions.ts) carries one more operation, a Merge-upsert of the "~workspace" row,
 * when it has room for it (at most 99 operations with its event). The instance then remembers the
 * workspace for REGISTRATION_TTL_MS, so a workspace deleted and written again through another
 * instance is registered again by that instance's next write after the interval. Merge never
 * touches properties it does not name (the search index's `generation`).
 */
const REGISTRATION_TTL_MS = 10 * 60_000;
const registeredAt = new WeakMap<TableGateway, Map<string, number>>();

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

const registryRow = (workspace: string) => ({
  partitionKey: workspace,
  rowKey: rowKey.workspace,
  kind: "workspace",
  registeredAt: new Date().toISOString(),
});

/** Registrations in flight at once. */
const REGISTRATIONS_IN_FLIGHT = 8;

export class TableWorkspaceStore implements WorkspaceStore {
  constructor(private readonly gateway: TableGateway) {}

  async registered(): Promise<RegisteredWorkspace[]> {
    const rows = await this.gateway.query(odata`RowKey eq ${rowKey.workspace}`, ["PartitionKey", "registeredAt"]);
    return rows
      .filter((row) => LIMITS.workspaceNamePattern.test(text(row.partitionKey)))
      .map((row) => ({ name: text(row.partitionKey), ...(text(row.registeredAt) ? { registeredAt: text(row.registeredAt) } : {}) }));
  }

  async summary(workspace: string): Promise<WorkspaceSummary> {
    let entities = 0;
    let last = "";
    const filter = odata`PartitionKey eq ${workspace} and (kind eq ${"entity"} or kind eq ${"event"})`;
    for await (const page of this.gateway.pages(filter, ["RowKey", "kind", "at"])) {
      for (const row of page) {
        if (row.kind === "entity") entities += 1;
        else if (text(row.at) > last) last = text(row.at);
      }
    }
    return { entities, ...(last ? { lastWriteAt: last } : {}) };
  }

  async deleteWorkspace(workspace: string, actor: Actor): Promise<{ rowsDeleted: number }> {
    // The deletion writes no events, so first the registry row is marked: every index built before or during it (which would
    // otherwise trust its generation and see no change) builds again, even if this call stops part-way (docs/navigate.md).
    // (A merge on `*`: a workspace with no registry row has no generation any index could trust.)
    try {
      await this.gateway.updateRow(
        { partitionKey: workspace, rowKey: rowKey.workspace, generation: randomUUID(), deleting: true },
        "Merge",
        "*",
      );
    } catch (error) {
      if (classifyStorageError(error) !== "not-found") throw toMemoryError(error);
    }
    // Dependents first, rows others hang off last on their ETags, until a read finds nothing (workspaceDeletion.ts).
    let rowsDeleted = await emptyPartition(this.gateway, workspace);
    // The registry row goes last: until it is gone, a reader of the feed tail sees the same workspace (docs/navigate.md).
    try {
      await this.gateway.deleteRow(workspace, rowKey.workspace, "*");
      rowsDeleted += 1;
    } catch (error) {
      if (classifyStorageError(error) !== "not-found") throw toMemoryError(error);
    }
    registeredAt.get(this.gateway)?.delete(workspace);
    const at = new Date();
    await this.gateway.createRow({
      partitionKey: ADMIN_PARTITION,
      rowKey: workspaceDeletionKey(at.getTime(), randomBytes(6).toString("hex")),
      kind: "workspace-deletion",
      workspace,
      at: at.toISOString(),
      principal: actor.principal,
      tool: actor.tool,
      rowsDeleted,
    });
    return { rowsDeleted };
  }

  async deletions(): Promise<WorkspaceDeletion[]> {
    const rows = await this.gateway.queryRange(ADMIN_PARTITION, workspaceDeletions);
    return rows.map((row) => ({
      workspace: text(row.workspace),
      at: text(row.at),
      principal: text(row.principal),
      tool: text(row.tool),
      rowsDeleted: typeof row.rowsDeleted === "number" ? row.rowsDeleted : 0,
    }));
  }

  async discover(): Promise<string[]> {
    const known = new Set((await this.registered()).map((workspace) => workspace.name));
    const found: string[] = [];
    // A skip scan: each query asks for the first row of the next partition, so it costs one request per partition.
    for (let after = ""; ;) {
      let next: string | undefined;
      for await (const page of this.gateway.pages(odata`PartitionKey gt ${after}`, ["PartitionKey"], 1)) {
        if (page.length === 0) continue;
        next = text(page[0]!.partitionKey);
        break;
      }
      if (next === undefined) break;
      if (LIMITS.workspaceNamePattern.test(next) && !known.has(next)) found.push(next);
      after = next;
    }
    await forEachLimited(found, REGISTRATIONS_IN_FLIGHT, async (workspace) => {
      try {
        await this.gateway.transact([["upsert", registryRow(workspace), "Merge"]]);
      } catch (error) {
        throw toMemoryError(error);
      }
    });
    return found;
  }
}
