import { expand, focus, showDetails } from "./details.js";
import { byId, el, fill, linkButton, swatch } from "./dom.js";
import { applyFilters, fillFilters } from "./filters.js";
import { degreeTable, drawGraph, LARGE_WORKSPACE, OPENING_HUBS } from "./graph.js";
import { chooseTag, loadChanges, loadDuplicates, loadTags, showHubs, showLegend } from "./panels.js";
import { AccessError } from "./rpc.js";
import {
  addEntity,
  api,
  entities,
  type EntityView,
  type GraphPage,
  PAGE,
  relationKey,
  relations,
  status,
  view,
  workspace,
} from "./state.js";

/**
 * The viewer page (docs/viewer.md). It reads the workspace through the same tools an agent uses, choosing among them by
 * what tools/list offers (search_entities or search_nodes, get_stats or degrees counted from read_graph, get_neighbors or
 * get_entity_relations), and writes nothing.
 */

/** How many of a large workspace's hubs get their neighbourhood drawn once the page is usable. */
const EXPANDED_HUBS = 5;

/** Loads what the graph opens on: every entity of a small workspace, or the hubs of a large one. */
async function loadOpening(): Promise<{ total: string; large: boolean; hubs: { name: string; degree: number }[] }> {
  if (view.tools.has("get_stats")) {
    const stats = await api.call<{
      entities: number;
      relations: number;
      mostConnected: { name: string; entityType: string; degree: number }[];
    }>("get_stats");
    if (stats.entities > LARGE_WORKSPACE) {
      for (const hub of stats.mostConnected) addEntity({ name: hub.name, entityType: hub.entityType });
      return { total: String(stats.entities), large: true, hubs: stats.mostConnected };
    }
  }
  let cursor: string | undefined;
  do {
    // Names and types only: observations are read when an entity is opened (open_nodes), which keeps the first render small.
    const page: GraphPage = await api.call<GraphPage>("read_graph", { limit: PAGE, mode: "names", ...(cursor ? { cursor } : {}) });
    for (const entity of page.entities) addEntity(entity);
    for (const relation of page.relations) relations.set(relationKey(relation), relation);
    cursor = page.cursor;
  } while (cursor && entities.size < LARGE_WORKSPACE);
  const degrees = degreeTable();
  const hubs = [...degrees].map(([name, degree]) => ({ name, degree })).sort((a, b) => b.degree - a.degree);
  if (!cursor) return { total: String(entities.size), large: false, hubs };
  // Larger than the threshold: keep the most connected of what was read, and the relations among them.
  const kept = new Set(hubs.slice(0, OPENING_HUBS).map((hub) => hub.name));
  for (const name of [...entities.keys()]) if (!kept.has(name)) entities.delete(name);
  for (const [key, relation] of relations) if (!kept.has(relation.from) || !kept.has(relation.to)) relations.delete(key);
  return { total: `More than ${LARGE_WORKSPACE}`, large: true, hubs };
}

async function search(query: string): Promise<void> {
  const section = byId("results-section");
  if (query.trim() === "") {
    section.hidden = true;
    return;
  }
  let hits: EntityView[];
  if (view.tools.get("search_entities")?.inputSchema?.properties?.query) {
    const answer = await api.call<{ hits: { entity: EntityView }[] }>("search_entities", { query, limit: 20 });
    hits = answer.hits.map((hit) => hit.entity);
  } else {
    hits = (await api.call<{ entities: EntityView[] }>("search_nodes", { query, limit: 20 })).entities;
  }
  for (const hit of hits) if (entities.has(hit.name)) addEntity(hit);
  section.hidden = false;
  fill(
    byId("results"),
    hits.map((hit) =>
      el(
        "li",
        {},
        swatch(hit.entityType),
        linkButton(hit.name, () => void focus(hit)),
        " ",
        el("span", { className: "muted" }, hit.entityType),
      ),
    ),
    "No entity matches.",
  );
}

function showSignIn(reason: string): void {
  byId("app").hidden = true;
  byId("signin").hidden = false;
  byId("signin-reason").textContent = reason;
  document.body.dataset.state = "signin";
  byId("signin-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const key = byId<HTMLInputElement>("signin-key").value.trim();
    api.signIn(key).then(
      () => location.reload(),
      (error: unknown) => void (byId("signin-error").textContent = error instanceof Error ? error.message : String(error)),
    );
  });
}

function problem(error: unknown): HTMLElement {
  return el("li", { className: "muted" }, error instanceof Error ? error.message : String(error));
}

function failed(error: unknown): void {
  if (error instanceof AccessError && error.status !== 503) return showSignIn(error.message);
  status(error instanceof Error ? error.message : String(error));
  document.body.dataset.state = "error";
}

async function start(): Promise<void> {
  byId("title").textContent = `Memory · ${workspace}`;
  document.title = `${workspace} · Memory viewer`;
  view.tools = await api.listTools();
  byId("app").hidden = false;
  byId("app").classList.add("no-details");
  const opening = await loadOpening();
  performance.mark("viewer-data");
  drawGraph(
    (name) => void showDetails(name),
    (name) => void expand(name),
  );
  fillFilters();
  showLegend();
  showHubs(opening.hubs);
  status(
    opening.large
      ? `${opening.total} entities: showing the ${entities.size} most connected; double-click a node to expand it.`
      : `${entities.size} entities · ${relations.size} relations`,
  );
  const input = byId<HTMLInputElement>("search");
  input.disabled = false;
  let pending: ReturnType<typeof setTimeout> | undefined;
  input.addEventListener("input", () => {
    clearTimeout(pending);
    pending = setTimeout(() => void search(input.value).catch(failed), 250);
  });
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    clearTimeout(pending);
    void search(input.value).catch(failed);
  });
  for (const id of ["filter-type", "filter-relation"]) byId(id).addEventListener("change", applyFilters);
  const superseded = byId<HTMLInputElement>("show-superseded");
  superseded.addEventListener("change", () => {
    view.showSuperseded = superseded.checked;
    if (view.selected !== undefined) void showDetails(view.selected).catch(failed);
  });
  const tagFilter = byId<HTMLSelectElement>("filter-tag");
  tagFilter.addEventListener("change", () => void chooseTag(tagFilter.value).catch(failed));
  // Interactive: the graph is drawn and the search box takes input (what the bench measures, docs/viewer.md#bench).
  document.body.dataset.state = "ready";
  performance.mark("viewer-interactive");
  // The side lists load after the page is usable; one that fails says so in its place and leaves the rest working.
  const side: [() => Promise<void>, string][] = [
    [loadChanges, "changes"],
    [loadDuplicates, "duplicates"],
  ];
  await Promise.all([
    ...side.map(([load, list]) => load().catch((error: unknown) => fill(byId(list), [problem(error)]))),
    // Without the defined tags, the tag filter still offers those the page saw in use.
    loadTags().catch(() => undefined),
  ]);
  // A large workspace opened on its hubs from get_stats: draw the relations around the first few.
  if (opening.large && view.tools.has("get_stats")) {
    for (const hub of opening.hubs.slice(0, EXPANDED_HUBS)) await expand(hub.name).catch(() => undefined);
  }
}

start().catch(failed);
