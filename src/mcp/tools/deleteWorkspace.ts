import { z } from "zod";

import { IDEMPOTENT_DESTRUCTIVE_WRITE } from "../annotations.js";
import { defineTool } from "../tool.js";

export const deleteWorkspace = defineTool({
  name: "delete_workspace",
  toolsets: ["admin"],
  title: "Delete a workspace",
  description:
    "Deletes a whole workspace: every entity, observation, relation, tag and its change history. It cannot be undone (copy it first " +
    "with the CLI's `central-memory workspaces copy` if in doubt). `confirm` must repeat workspaceName exactly. Needs write access. " +
    "The deletion itself is recorded outside the workspace (who, when, how many rows). A write racing it is deleted whole or fails; " +
    "if writers keep writing it answers ConflictError with nothing half-deleted: stop them and call it again.",
  input: { confirm: z.string().describe("The workspace name again, exactly: guards against deleting the wrong workspace.") },
  output: { success: z.literal(true), workspaceName: z.string(), rowsDeleted: z.number() },
  annotations: IDEMPOTENT_DESTRUCTIVE_WRITE,
  async handler(args, { services, workspace, actor }) {
    const { rowsDeleted } = await services.admin.delete(workspace, args.confirm, actor);
    return { success: true as const, workspaceName: workspace, rowsDeleted };
  },
});
