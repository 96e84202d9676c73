import { z } from "zod";

import { IDEMPOTENT_DESTRUCTIVE_WRITE } from "../annotations.js";
import { defineTool } from "../tool.js";

export const deleteWorkspace = defineTool({
  name: "delete_workspace",
  toolsets: ["admin"],
  title: "Delete a workspace",
  description:
    "Deletes a whole workspace: every entity, observation, relation, tag and its change history. It cannot be undone (copy it first " +
    "with the CLI's `central-memory workspaces copy` if in doubt). `confirm` must repeat workspaceName exactly; a client that can " +
    "ask its user (2026-07-28 with elicitation) also asks the user, and the deletion runs only on their yes. Needs write access. " +
    "The deletion itself is recorded outside the workspace (who, when, how many rows). A write racing it is deleted whole or fails; " +
    "if writers keep writing it answers ConflictError with nothing half-deleted: stop them and call it again.",
  input: {
    confirm: z
      .string()
      .describe("The workspace name again, exactly: guards against deleting the wrong workspace. A client that asks its user asks too."),
  },
  output: { success: z.literal(true), workspaceName: z.string(), rowsDeleted: z.number() },
  annotations: IDEMPOTENT_DESTRUCTIVE_WRITE,
  async handler(args, { services, workspace, actor, confirm }) {
    // The repeated name is the explicit confirmation. A wrong one is refused by admin.delete before anything is deleted, and
    // before the user is asked: their yes is not spent on a call that cannot run.
    if (args.confirm === workspace) {
      await confirm({
        question: `Delete the workspace '${workspace}' with every entity, observation, relation, tag and its history? This cannot be undone.`,
        subject: {},
        explicit: true,
        howToConfirm: `pass confirm: '${workspace}' (the workspace name again, exactly) to delete it`,
      });
    }
    const { rowsDeleted } = await services.admin.delete(workspace, args.confirm, actor);
    return { success: true as const, workspaceName: workspace, rowsDeleted };
  },
});
