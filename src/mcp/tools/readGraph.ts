import { z } from "zod";

import { checkMaxChars } from "../../domain/model/budget.js";
import { ValidationError } from "../../domain/model/errors.js";
import { LIMITS } from "../../domain/model/limits.js";
import { compareText } from "../../domain/model/order.js";
import { READ_ONLY } from "../annotations.js";
import { maxCharsInput, truncationOutput, withinBudget } from "../budgets.js";
import { graphOutput, lensInput, toGraphOutput } from "../graphShapes.js";
import { asOfInput } from "../historyShapes.js";
import { resultLimit } from "../schemas.js";
import { defineTool } from "../tool.js";

export const readGraph = defineTool({
  name: "read_graph",
  toolsets: ["core", "graph"],
  title: "Read the graph",
  description:
    "Read the workspace's entities (with observations, in the order they were added) and relations. With no arguments it returns " +
    "everything. For a large graph, page it: `limit` entities per page, each with the relations that start at them, and pass the " +
    "returned `cursor` back for the next page (no cursor means the last page). mode 'names' returns only names and types, a small " +
    "overview to pick entities from; then use open_nodes for their details. In mode 'full', entities and relations also say who " +
    "created them (createdBy) and last changed them (updatedBy). With the tags toolset, entities also carry `tags` and " +
    "(in mode 'full') `observationTags`: observation text -> tags. By default it shows what is true now, as the memory holds it " +
    "now: superseded, ended, not-yet-valid and expired facts are left out, so a page may hold fewer than `limit` entities " +
    "(keep following the cursor). `validAt` shows what was true at another time; `includeSuperseded` also shows what is not " +
    "true, each marked with its `status` (expired items stay hidden); with `asOf`, the graph as the memory held it then, " +
    "true at `validAt` (default: at asOf). Entities and relations carry validFrom, validTo, supersededBy (in " +
    "`observationValidity`), expiresAt and pinned where set.",
  input: {
    limit: resultLimit.optional().describe(`Entities per page (1-${LIMITS.itemsPerCall}). Omit for everything.`),
    cursor: z.string().optional().describe("The cursor a previous page returned, unchanged."),
    mode: z.enum(["full", "names"]).optional().describe("'full' (default): observations and metadata too; 'names': names and types only."),
    asOf: asOfInput.describe("An ISO 8601 time: the whole graph as it was then, rebuilt from the change history (no paging)."),
    ...lensInput,
    maxChars: maxCharsInput.describe(
      "Most characters of JSON text to return: the page stops at whole entities (in storage order) and says truncated, with a cursor for the rest.",
    ),
  },
  output: { ...graphOutput, truncated: truncationOutput.truncated },
  annotations: READ_ONLY,
  async handler(args, { services, workspace, toolsets }) {
    const mode = args.mode ?? "full";
    if (args.maxChars !== undefined) checkMaxChars(args.maxChars);
    if (args.maxChars !== undefined && args.asOf !== undefined) {
      throw new ValidationError("maxChars pages the current graph; asOf reads the whole past graph at once. Omit one of them.");
    }
    const page = await services.graph.readGraph(workspace, {
      limit: args.limit,
      cursor: args.cursor,
      mode,
      asOf: args.asOf,
      validAt: args.validAt,
      includeSuperseded: args.includeSuperseded,
    });
    const output = toGraphOutput(workspace, page, mode, toolsets.has("tags"), page.lens);
    if (args.maxChars === undefined) return output;
    // In storage order (by id), so that a cut page continues after the last entity it holds, and each relation comes with its source.
    const entities = [...output.entities].sort((a, b) => compareText(a.id, b.id));
    return withinBudget({
      total: entities.length,
      offset: 0,
      maxChars: args.maxChars,
      render: (answer) => JSON.stringify(answer),
      build: async (end) => {
        if (end === entities.length) return { ...output, entities };
        const kept = new Set(entities.slice(0, end).map((entity) => entity.id));
        const { cursor: _whole, ...rest } = output;
        return {
          ...rest,
          entities: entities.slice(0, end),
          relations: output.relations.filter((relation) => kept.has(relation.fromEntityId)),
          truncated: true as const,
          cursor: await services.cursors.encode({ workspace, mode }, entities[end - 1]!.id),
        };
      },
    });
  },
});
