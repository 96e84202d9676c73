import { type Access, accessTo, type Principal } from "../model/access.js";
import { forEachLimited } from "../model/concurrency.js";
import { ValidationError } from "../model/errors.js";
import type { Actor } from "../model/model.js";
import { checkQuery } from "../model/validation.js";
import type { RegisteredWorkspace, WorkspaceDeletion, WorkspaceStore, WorkspaceSummary } from "../ports/workspaceStore.js";

export interface WorkspaceListing extends RegisteredWorkspace, WorkspaceSummary {
  access: Access;
}

/** Summaries read at once by list_workspaces. */
const SUMMARIES_IN_FLIGHT = 8;

/** Listing and deleting workspaces: access rules here, storage behind WorkspaceStore. */
export class AdminService {
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
