import { z } from "zod";

import { READ_ONLY } from "../annotations.js";
import { lensInput } from "../graphShapes.js";
import { defineTool } from "../tool.js";

const counted = (key: string) => z.array(z.object({ [key]: z.string(), count: z.number() }));

export const getStats = defineTool({
  name: "get_stats",
  toolsets: ["search"],
  title: "Workspace statistics",
  description:
    "Counts for the workspace: entities, relations, observations and tags; entities by type and relations by type; the most " +
    "connected entities; writes per principal; the first and last write times; and how far search by meaning has embedded the " +
    "workspace. Counts only what shows (docs/history.md#two-times: by default what is true now; expired items never), and says " +
    "how many held facts are superseded or ended, expiring, or expired and not yet swept. Use it to get one's bearings in a workspace.",
  input: { ...lensInput },
  output: {
    workspaceName: z.string(),
    entities: z.number(),
    relations: z.number(),
    observations: z.number(),
    tags: z.number().describe("Distinct tags, defined or in use."),
    entityTypes: counted("entityType").describe("Most common first."),
    relationTypes: counted("relationType").describe("Most common first."),
    mostConnected: z
      .array(z.object({ id: z.string(), name: z.string(), entityType: z.string(), degree: z.number() }))
      .describe("Up to 10 entities with the most relations (either direction)."),
    writesByPrincipal: z
      .array(z.object({ principal: z.string(), writes: z.number() }))
      .describe("Entities and relations each principal created, plus those it last changed (docs/search.md#stats)."),
    firstWriteAt: z.string().optional(),
    lastWriteAt: z.string().optional(),
    superseded: z
      .number()
      .optional()
      .describe("Observations and relations held but not true at the time asked (superseded, ended, not yet valid); absent when none."),
    expiring: z
      .number()
      .optional()
      .describe("Entities, observations and relations with an expiry still ahead (not pinned); absent when none."),
    expired: z
      .number()
      .optional()
      .describe(
        "Entities, observations and relations expired (hidden from every read) and not yet swept (sweep_expired); absent when none.",
      ),
    embedding: z
      .object({
        model: z.string(),
        remote: z.boolean().describe("Whether vectors come from an embeddings endpoint (kept in storage) or the packaged model."),
        vectors: z.number().describe("Texts (names and observations) with a vector."),
        pending: z
          .number()
          .describe(
            "Texts still waiting for one: 0 with the packaged model (get_stats embeds them, as a search would); with an endpoint, those its background re-embedding has still to do.",
          ),
      })
      .optional()
      .describe("Search by meaning: how far this workspace's texts have vectors. Absent when it is off (docs/search.md#meaning)."),
  },
  annotations: READ_ONLY,
  async handler(args, { services, workspace }) {
    return { workspaceName: workspace, ...(await services.search.stats(workspace, args)) };
  },
});
