import type { Entity, Relation } from "../domain/model/model.js";
import type { TimeLens } from "../domain/rules/validity.js";
import { withinBudget } from "./budgets.js";
import { indentedJson, toOfficialGraph } from "./graphShapes.js";

/**
 * maxChars for open_nodes and search_nodes, whose output schema is the official server's exactly: the
 * entities and relations that fit stay in that shape, and how to continue goes in a second text block
 * (ToolContext.note). The budget counts both texts.
 */
export async function officialGraphWithin(options: {
  entities: readonly Entity[];
  offset: number;
  maxChars: number | undefined;
  /** Which entity position each relation is listed at; a page lists the relations listed at its entities. */
  listedAt: (relation: Relation) => number;
  relations: readonly Relation[];
  withTags: boolean;
  /** The time lens the caller asked for, when it did: entities then carry their validity fields (toOfficialGraph). */
  lens?: TimeLens;
  /** What to tell the caller when the answer stops at `end` (before the last entity). */
  continuation: (end: number) => Promise<Record<string, unknown>>;
}): Promise<{ graph: ReturnType<typeof toOfficialGraph>; note?: string }> {
  const { entities, offset, relations, listedAt, withTags } = options;
  return withinBudget({
    total: entities.length,
    offset,
    maxChars: options.maxChars,
    render: ({ graph, note }) => indentedJson(graph) + (note ?? ""),
    build: async (end) => {
      const graph = toOfficialGraph(
        {
          entities: entities.slice(offset, end),
          relations: relations.filter((relation) => listedAt(relation) >= offset && listedAt(relation) < end),
        },
        withTags,
        options.lens,
      );
      if (end >= entities.length) return { graph };
      return { graph, note: JSON.stringify({ truncated: true, ...(await options.continuation(end)) }) };
    },
  });
}
