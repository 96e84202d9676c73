import { accessTo, type Access, type Principal } from "./access.js";
import { forEachLimited } from "./concurrency.js";
import { ValidationError } from "./errors.js";
import type { Actor } from "./model.js";
import { checkQuery } from "./validation.js";

/** A workspace the registry knows (its "~workspace" row). */
export interface RegisteredWorkspace {
  name: string;
  /** When an instance last registered it (ISO): each instance registers a workspace on its first write there. */
  registeredAt?: string;
}

export interface WorkspaceSummary {
  entities: number;
  /** The time of the newest change event (absent when the workspace has none, e.g. retention pruned them all). */
  lastWriteAt?: string;
}

/** A workspace deletion as recorded outside every workspace (docs/navigate.md#delete_workspace). */
export interface WorkspaceDeletion {
  workspace: string;
  at: string;
  principal: string;
  tool: string;
  rowsDeleted: number;
}

/** The workspace part of the storage port: the registry, per-workspace summaries, and whole-partition deletion. */
export interface WorkspaceStore {
  /** Every registered workspace (one query across partitions, paged). */
  registered(): Promise<RegisteredWorkspace[]>;
  /** Entity count and last write of one workspace (one key-only query, paged by 1,000 rows). */
  summary(workspace: string): Promise<WorkspaceSummary>;
  /** Deletes every row of the workspace's partition, the registry row last, and records the deletion. Idempotent. */
  deleteWorkspace(workspace: string, actor: Actor): Promise<{ rowsDeleted: number }>;
  /** Every recorded workspace deletion, oldest first. */
  deletions(): Promise<WorkspaceDeletion[]>;
  /**
   * Registers workspaces written before the registry existed: visits each partition once (one
   * request per partition) and registers those without a registry row. Returns the names it registered.
   */
  discover(): Promise<string[]>;
}

export interface WorkspaceListing extends RegisteredWorkspace, WorkspaceSummary {
  access: Access;
}

/** Summaries read at once by list_workspaces. */
const SUMMARIES_IN_FLIGHT = 8;

/** Listing and deleting workspaces: access rules here, storage behind WorkspaceStore. */
export class WorkspaceService {
  constructor(private readonly store: WorkspaceStore) {}

  /**
   * The registered workspaces the principal has a grant for (exact names and prefixes, read or
   * write), by name, each with its entity count and last write. Costs one registry query plus one
   * summary query per listed workspace (more only past 1,000 rows of entities and events).
   */
  async list(principal: Principal): Promise<WorkspaceListing[]> {
    const granted = (await this.store.registered())
      .map((workspace) => ({ workspace, access: accessTo(principal, workspace.name) }))
      .filter((item): item is { workspace: RegisteredWorkspace; access: Access } => item.access !== undefined)
      .sort((a, b) => (a.workspace.name < b.workspace.name ? -1 : a.workspace.name > b.workspace.name ? 1 : 0));
    const listings: WorkspaceListing[] = new Array<WorkspaceListing>(granted.length);
    await forEachLimited(
      granted.map((item, position) => ({ ...item, position })),
      SUMMARIES_IN_FLIGHT,
      async ({ workspace, access, position }) => {
        listings[position] = { ...workspace, access, ...(await this.store.summary(workspace.name)) };
      },
    );
    return listings;
  }

  /** Deletes the whole workspace; `confirm` must repeat its name exactly (access is checked by the caller). */
  async delete(workspace: string, confirm: string, actor: Actor): Promise<{ rowsDeleted: number }> {
    checkQuery(confirm, "confirm"); // the text rules every argument meets
    if (confirm !== workspace) {
      throw new ValidationError(
        `confirm must repeat the workspace name exactly ('${workspace}') to delete it; got '${confirm.slice(0, 80)}'. Nothing was deleted.`,
      );
    }
    return this.store.deleteWorkspace(workspace, actor);
  }

  deletions(): Promise<WorkspaceDeletion[]> {
    return this.store.deletions();
  }

  discover(): Promise<string[]> {
    return this.store.discover();
  }
}
