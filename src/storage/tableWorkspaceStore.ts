import { randomBytes, randomUUID } from "node:crypto";

import { odata } from "@azure/data-tables";

import { forEachLimited } from "../domain/model/concurrency.js";
import { LIMITS } from "../domain/model/limits.js";
import type { Actor } from "../domain/model/model.js";
import type { RegisteredWorkspace, WorkspaceDeletion, WorkspaceStore, WorkspaceSummary } from "../domain/ports/workspaceStore.js";
import { ADMIN_PARTITION, rowKey, workspaceDeletionKey, workspaceDeletions } from "./rows/keys.js";
import { text } from "./rows/rows.js";
import type { TableGateway } from "./table/gateway.js";
import { classifyStorageError, toMemoryError } from "./table/storageErrors.js";
import { registeredAt, registryRow } from "./writes/registration.js";
import { emptyPartition, emptyVectors } from "./writes/workspaceDeletion.js";

/** Registrations in flight at once. */
const REGISTRATIONS_IN_FLIGHT = 8;

/** The workspace registry and whole-workspace administration (docs/navigate.md#workspaces); registration itself: writes/registration.ts. */
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
    // An embeddings endpoint's kept vectors (docs/architecture.md#vectors): a partition of their own, not counted as the
    // workspace's rows. One key-only read when there are none (the packaged model keeps none).
    await emptyVectors(this.gateway, workspace);
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
