import type { Actor } from "../model/model.js";

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
