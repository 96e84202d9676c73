import { z } from "zod";

import { IDEMPOTENT_DESTRUCTIVE_WRITE } from "../annotations.js";
import { defineTool } from "../tool.js";

export const deleteWorkspace = defineTool({
  name: "delete_workspace",
  toolsets: ["admin"],
  title: "Delete a workspace",
  description:
    "Deletes a whole workspace: every entity, observation, relation, tag and its change history. It cannot be undone (copy it first " +
    "with the CLI's `central-memory workspaces copy` if in doubt). It asks for confirmation: a client that can ask its user " +
    "(2026-07-28 with elicitation) asks the user, and the deletion runs only on their yes; any other client (every 2025-era client) " +
    "must pass `confirm` repeating the workspace name exactly. Needs write access. " +
    "The deletion itself is recorded outside the workspace (who, when, how many rows). A write racing it is deleted whole or fails; " +
    "if writers keep writing it answers ConflictError with nothing half-deleted: stop them and call it again.",
  input: {
    confirm: z
      .string()
      .optional()
      .describe(
        "The workspace name again, exactly: guards against deleting the wrong workspace. Required unless the client asks its user " +
          "(then the user's answer decides and this is ignored).",
      ),
  },
  output: { success: z.literal(true), workspaceName: z.string(), rowsDeleted: z.number() },
  annotations: IDEMPOTENT_DESTRUCTIVE_WRITE,
  async handler(args, { services, workspace, actor, confirm }) {
    const by = await confirm({
      question: `Delete the workspace '${workspace}' with every entity, observation, relation, tag and its history? This cannot be undone.`,
      subject: {},
      explicit: args.confirm !== undefined,
      howToConfirm: `pass confirm: '${workspace}' (the workspace name again, exactly) to delete it`,
    });
    // The user's yes stands for the repeated name; the agent's text is checked as before.
    const { rowsDeleted } = await services.admin.delete(workspace, by === "user" ? workspace : (args.confirm ?? ""), actor);
    return { success: true as const, workspaceName: workspace, rowsDeleted };
  },
});
