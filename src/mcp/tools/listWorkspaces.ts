import { z } from "zod";

import { READ_ONLY } from "../annotations.js";
import { defineTool } from "../tool.js";

export const listWorkspaces = defineTool({
  name: "list_workspaces",
  toolsets: ["admin"],
  title: "List workspaces",
  description:
    "The workspaces this caller has a grant for, by name, each with its access (read or write), entity count and last write " +
    "(the time of its newest change). Takes no arguments. Use it to find which workspace holds what before reading one.",
  input: {},
  output: {
    workspaces: z.array(
      z.object({
        workspaceName: z.string(),
        access: z.enum(["read", "write"]),
        entities: z.number(),
        lastWriteAt: z.string().optional().describe("ISO time of the newest change event; absent when it has none."),
        registeredAt: z.string().optional().describe("When a server instance last registered the workspace (on a write)."),
      }),
    ),
  },
  annotations: READ_ONLY,
  noWorkspace: true,
  async handler(_args, { services, principal }) {
    const listed = await services.admin.list(principal);
    return {
      workspaces: listed.map(({ name, access, entities, lastWriteAt, registeredAt }) => ({
        workspaceName: name,
        access,
        entities,
        ...(lastWriteAt !== undefined ? { lastWriteAt } : {}),
        ...(registeredAt !== undefined ? { registeredAt } : {}),
      })),
    };
  },
});
