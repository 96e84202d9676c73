import type { McpTestClient } from "../harness.js";
import {
  diffGraphs,
  diffKeyed,
  ENTITY_FIELDS_WITH_VALIDITY,
  graphOfView,
  relationOfView,
  statsOf,
  statsOfView,
  tagsOf,
  tagsOfView,
  tagUsageOf,
  tagUsageOfView,
} from "./compare.js";
import { type NGraph, pairLabel, presentView, relationLabel } from "./model.js";

/**
 * The checker's reads: every index-served view (read_graph, the listing of search_entities, search_relations, get_stats,
 * get_all_tags, get_tag_usage, get_neighbors of each entity) and read_graph asOf now, through one instance's client, each
 * compared with the graph storage holds.
 */

type Json = Record<string, unknown>;

/** One tool call's structured answer, or the error text. */
async function answer(client: McpTestClient, tool: string, args: Json): Promise<{ ok: true; value: Json } | { ok: false; error: string }> {
  try {
    const result = await client.call(tool, args);
    if (result.isError) {
      const text = result.content[0];
      return { ok: false, error: text?.type === "text" ? text.text : JSON.stringify(result.content) };
    }
    return { ok: true, value: (result.structuredContent ?? {}) as Json };
  } catch (error) {
    return { ok: false, error: String(error) };
  }
}

/** Every page of a paged listing, its items concatenated (`field` names the list, `nextCursor` the cursor). */
async function allPages(client: McpTestClient, tool: string, args: Json, field: string): Promise<Json[] | string> {
  const items: Json[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const got = await answer(client, tool, { ...args, ...(cursor ? { cursor } : {}) });
    if (!got.ok) return got.error;
    items.push(...((got.value[field] as Json[]) ?? []));
    cursor = got.value.nextCursor as string | undefined;
    if (!cursor) return items;
  }
  return "more than 50 pages";
}

/** Every difference between the views `label`'s client serves for `workspace` and the stored graph. */
export async function checkViews(client: McpTestClient, label: string, workspace: string, held: NGraph, asOf: string): Promise<string[]> {
  const ws = { workspaceName: workspace };
  const problems: string[] = [];
  const failed = (view: string, error: string) => problems.push(`${label} ${view} failed: ${error.slice(0, 300)}`);
  // Views show what is true now, as held now (docs/history.md#two-times); with includeSuperseded, all but what expired.
  const stored = presentView(held);

  const full = await answer(client, "read_graph", ws);
  if (full.ok) problems.push(...diffGraphs(`${label} read_graph`, stored, graphOfView(full.value)));
  else failed("read_graph", full.error);

  const everything = await answer(client, "read_graph", { ...ws, includeSuperseded: true });
  if (everything.ok) {
    const view = `${label} read_graph includeSuperseded`;
    problems.push(
      ...diffGraphs(view, presentView(held, Date.now(), true), graphOfView(everything.value), {
        fields: ENTITY_FIELDS_WITH_VALIDITY,
        validity: true,
      }),
    );
  } else failed("read_graph includeSuperseded", everything.error);

  const past = await answer(client, "read_graph", { ...ws, asOf });
  if (past.ok) problems.push(...diffGraphs(`${label} read_graph asOf now`, stored, graphOfView(past.value)));
  // A workspace with no recorded change (never written, or deleted) has no past to read: that is right when storage is empty.
  else if (!(/no history/i.test(past.error) && stored.entities.size === 0)) failed("read_graph asOf now", past.error);

  const hits = await allPages(client, "search_entities", { ...ws, updatedSince: "1970-01-01T00:00:00.000Z", limit: 100 }, "hits");
  if (typeof hits === "string") failed("search_entities", hits);
  else {
    const listed = graphOfView({ entities: hits.map((hit) => hit.entity) });
    const fields = ["entityType", "observations", "tags", "observationTags"] as const;
    problems.push(...diffGraphs(`${label} search_entities`, stored, listed, { fields, relations: false }));
  }

  const relations = await allPages(client, "search_relations", { ...ws, limit: 100 }, "relations");
  if (typeof relations === "string") failed("search_relations", relations);
  else problems.push(...diffGraphs(`${label} search_relations`, stored, graphOfView({ relations }), { entities: false }));

  const stats = await answer(client, "get_stats", ws);
  if (stats.ok) problems.push(...diffKeyed(`${label} get_stats`, "count", statsOf(stored), statsOfView(stats.value)));
  else failed("get_stats", stats.error);

  const tags = await answer(client, "get_all_tags", ws);
  if (tags.ok) problems.push(...diffKeyed(`${label} get_all_tags`, "tag", tagsOf(stored), tagsOfView(tags.value)));
  else failed("get_all_tags", tags.error);

  const usage = await answer(client, "get_tag_usage", ws);
  if (usage.ok) problems.push(...diffKeyed(`${label} get_tag_usage`, "tag", tagUsageOf(stored), tagUsageOfView(usage.value)));
  else failed("get_tag_usage", usage.error);

  // Detection never proposes a pair storage holds as rejected (docs/curate.md#rejecting-a-pair); threshold 0 lists every pair compared.
  const duplicates = await answer(client, "detect_duplicate_entities", { ...ws, threshold: 0, limit: 1000 });
  if (duplicates.ok) {
    const rejected = held.rejections ?? new Set<string>();
    const pairs = (duplicates.value.pairs as { a: Json; b: Json }[]).map((pair) => pairLabel(String(pair.a.name), String(pair.b.name)));
    for (const pair of pairs.filter((listed) => rejected.has(listed)))
      problems.push(`${label} detect_duplicate_entities: lists rejected pair ${pair}`);
    if (Number(duplicates.value.rejected) > rejected.size) {
      problems.push(
        `${label} detect_duplicate_entities: left out ${String(duplicates.value.rejected)} pairs, storage holds ${rejected.size} rejections`,
      );
    }
  } else failed("detect_duplicate_entities", duplicates.error);

  problems.push(...(await checkNeighbors(client, label, workspace, stored)));
  return problems;
}

/** get_neighbors (depth 1, both directions) of every stored entity: the entities around it and the relations among them. */
async function checkNeighbors(client: McpTestClient, label: string, workspace: string, stored: NGraph): Promise<string[]> {
  const problems: string[] = [];
  const relations = [...stored.relations.values()];
  for (const name of stored.entities.keys()) {
    const got = await answer(client, "get_neighbors", { workspaceName: workspace, entityName: name });
    if (!got.ok) {
      problems.push(`${label} get_neighbors ${name} failed: ${got.error.slice(0, 300)}`);
      continue;
    }
    const around = new Map([[name, "distance 0"]]);
    for (const r of relations) {
      if (r.from === name && r.to !== name) around.set(r.to, "distance 1");
      if (r.to === name && r.from !== name) around.set(r.from, "distance 1");
    }
    const among = relations.filter((r) => around.has(r.from) && around.has(r.to)).map((r) => [relationLabel(r), "present"] as const);
    const seen = (got.value.entities as Json[]).map((e) => [String(e.name), `distance ${String(e.distance)}`] as const);
    const seenRelations = (got.value.relations as Json[]).map((r) => [relationLabel(relationOfView(r)), "present"] as const);
    const view = `${label} get_neighbors ${name}`;
    problems.push(
      ...diffKeyed(view, "entity", around, new Map(seen)),
      ...diffKeyed(view, "relation", new Map(among), new Map(seenRelations)),
    );
  }
  return problems;
}
