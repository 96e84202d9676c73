import { expand, focus, onActionError, showDetails } from "./details.js";
import { byId, el, fill, linkButton } from "./dom.js";
import { fillFilters, refilter } from "./filters.js";
import { degreeTable, drawGraph, markAll, merge, replaceGraph, whenMerged } from "./graph.js";
import { Palette, typeCounts } from "./palette.js";
import { loadChanges, loadDuplicates, loadTags, showHubs, showLegend } from "./panels.js";
import type { EntityDetails, GraphView } from "./shapes.js";
import { edgeKey, mergeSlice, pathParts, pathText } from "./slice.js";
import { api, entities, type EntityView, relations, say, showError, status, typeSwatch, view } from "./state.js";
import { readableTime, sliderAsOf, sliderRange } from "./time.js";

/**
 * The graph screen (docs/viewer.md): the page's one screen, and the app's for show_memory_graph. It opens on the
 * show_memory_graph result it is given, and reads the rest through the app tools: app_expand, app_filter, app_entity_details,
 * show_memory_graph again at another time (the slider), and find_path for a path.
 */

/** How many of a hubs opening's most connected entities get their neighbourhood drawn once the graph is usable. */
const EXPANDED_HUBS = 5;

/** The arguments the graph was opened with (without asOf), to open it again at another time. */
let openingArgs: Record<string, unknown> = {};

function failed(error: unknown): void {
  showError(error);
}

export async function startGraph(opening: GraphView, args: Record<string, unknown>): Promise<void> {
  openingArgs = { ...args };
  delete openingArgs.asOf;
  view.tools = new Set(opening.tools);
  view.palette = new Palette(typeCounts(opening.entities));
  view.partial = opening.opening !== "all" || opening.truncated;
  view.hits = new Set(opening.hits);
  view.asOf = opening.asOf;
  mergeSlice({ entities, relations }, opening);
  document.body.dataset.app = "graph";
  byId("app").hidden = false;
  byId("app").classList.add("no-details");
  performance.mark("viewer-data");
  onActionError(failed);
  drawGraph(
    (name) => void showDetails(name).catch(failed),
    (name) => void expand(name).catch(failed),
  );
  fillFilters();
  showLegend();
  const hubs = [...degreeTable()].map(([name, degree]) => ({ name, degree })).sort((a, b) => b.degree - a.degree);
  showHubs(hubs);
  summarise(opening);
  whenMerged(() => {
    showLegend();
    summarise(shown);
  });
  wireSearch();
  for (const id of ["filter-type", "filter-tag", "filter-relation"]) {
    byId(id).addEventListener("change", () => void refilter((slice) => merge(slice.entities, slice.relations)).catch(failed));
  }
  const superseded = byId<HTMLInputElement>("show-superseded");
  superseded.addEventListener("change", () => {
    view.showSuperseded = superseded.checked;
    if (view.selected !== undefined) void showDetails(view.selected).catch(failed);
  });
  wirePath();
  wireSlider(opening.historySince);
  if (opening.hits.length > 0) showResults(opening.entities.filter((entity) => view.hits.has(entity.name)));
  // Interactive: the graph is drawn and the search box takes input (what the bench measures, docs/viewer.md#bench).
  document.body.dataset.state = "ready";
  performance.mark("viewer-interactive");
  if (opening.focus !== undefined) void focus({ name: opening.focus, entityType: "" }).catch(failed);
  // The side lists load after the graph is usable; one that fails says so in its place and leaves the rest working.
  const problem = (error: unknown) => el("li", { className: "muted" }, error instanceof Error ? error.message : String(error));
  await Promise.all([
    loadChanges().catch((error: unknown) => fill(byId("changes"), [problem(error)])),
    loadDuplicates().catch((error: unknown) => fill(byId("duplicates"), [problem(error)])),
    // Without the defined tags, the tag filter still offers those the viewer saw in use.
    loadTags().catch(() => undefined),
  ]);
  if (opening.opening === "hubs") {
    for (const hub of hubs.slice(0, EXPANDED_HUBS)) await expand(hub.name).catch(() => undefined);
  }
}

/** The last opening's counts of the whole workspace, for the summary as the graph grows. */
let shown: { totals: { entities: number; relations: number }; truncated: boolean; opening: string };

function summarise(opening: typeof shown): void {
  shown = opening;
  status(
    opening.opening === "all" && !opening.truncated
      ? `${entities.size} entities · ${relations.size} relations`
      : `${opening.totals.entities} entities: showing ${entities.size}; double-click a node to expand it.`,
  );
}

function wireSearch(): void {
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
}

/** Searches (search_entities' ranking, else search_nodes, else show_memory_graph's), lists the hits and marks them in the graph. */
async function search(query: string): Promise<void> {
  if (query.trim() === "") {
    byId("results-section").hidden = true;
    view.hits = new Set();
    markAll();
    return;
  }
  let hits: EntityView[];
  if (view.asOf === undefined && view.tools.has("search_entities")) {
    const answer = await api.call<{ hits: { entity: EntityView }[] }>("search_entities", { query, limit: 20 });
    hits = answer.hits.map((hit) => ({ name: hit.entity.name, entityType: hit.entity.entityType }));
  } else if (view.asOf === undefined && view.tools.has("search_nodes")) {
    hits = (await api.call<{ entities: EntityView[] }>("search_nodes", { query, limit: 20 })).entities.map((entity) => ({
      name: entity.name,
      entityType: entity.entityType,
    }));
  } else {
    const answer = await api.call<GraphView>("show_memory_graph", { query, limit: 100, ...(view.asOf ? { asOf: view.asOf } : {}) });
    const byName = new Map(answer.entities.map((entity) => [entity.name, entity]));
    hits = answer.hits.map((name) => byName.get(name) ?? { name, entityType: "" });
    merge(answer.entities, answer.relations);
  }
  // Hits the graph did not hold are added, so that every hit is marked.
  view.hits = new Set(hits.map((hit) => hit.name));
  merge(hits, []);
  markAll();
  showResults(hits);
}

function showResults(hits: EntityView[]): void {
  byId("results-section").hidden = false;
  fill(
    byId("results"),
    hits.map((hit) =>
      el(
        "li",
        {},
        typeSwatch(hit.entityType),
        linkButton(hit.name, () => void focus(hit).catch(failed)),
        " ",
        el("span", { className: "muted" }, hit.entityType),
      ),
    ),
    "No entity matches.",
  );
}

/** find_path between two entities: the path's nodes and edges marked, those the graph did not hold added. */
function wirePath(): void {
  const section = byId("path-section");
  if (!view.tools.has("find_path")) {
    section.hidden = true;
    return;
  }
  section.hidden = false;
  byId("path-show").addEventListener("click", () => void showPath().catch(failed));
  byId("path-clear").addEventListener("click", () => {
    view.path = { names: new Set(), edges: new Set() };
    byId("path-result").textContent = "";
    markAll();
  });
}

type PathStep = { kind: "entity"; name: string } | { kind: "relation"; from: string; to: string; relationType: string };

async function showPath(): Promise<void> {
  const from = byId<HTMLInputElement>("path-from").value.trim();
  const to = byId<HTMLInputElement>("path-to").value.trim();
  const result = byId("path-result");
  if (from === "" || to === "") {
    result.textContent = "Name two entities.";
    return;
  }
  result.textContent = "Looking…";
  const answer = await api.call<{ found: boolean; path: PathStep[]; message?: string }>("find_path", { from, to });
  if (!answer.found) {
    view.path = { names: new Set(), edges: new Set() };
    markAll();
    result.textContent = answer.message ?? `No path from ${from} to ${to}.`;
    return;
  }
  const parts = pathParts(answer.path);
  // A path step names an entity but not its type: read the type of those the graph does not hold, for their colour.
  const missing = parts.names.filter((name) => !entities.has(name));
  const read = await Promise.all(
    missing.map((name) =>
      view.tools.has("app_entity_details")
        ? api.call<EntityDetails>("app_entity_details", { entityName: name }).then((details) => ({
            name,
            entityType: details.entity?.entityType ?? "",
          }))
        : { name, entityType: "" },
    ),
  );
  merge(read, parts.relations);
  view.path = { names: new Set(parts.names), edges: new Set(parts.relations.map(edgeKey)) };
  markAll();
  result.textContent = pathText(parts);
  const nodes = view.cy?.nodes(".path");
  if (nodes && nodes.nonempty()) view.cy?.fit(nodes, 60);
}

/** The time slider: the graph as it was at a time between the history's start and now (show_memory_graph asOf). */
function wireSlider(historySince: string | undefined): void {
  const section = byId("time-section");
  const range = historySince !== undefined ? sliderRange(historySince, Date.now()) : undefined;
  if (!range) {
    section.hidden = true;
    return;
  }
  section.hidden = false;
  const slider = byId<HTMLInputElement>("time-slider");
  const label = byId("time-label");
  slider.min = String(range.min);
  slider.max = String(range.max);
  slider.step = String(range.step);
  slider.value = String(view.asOf !== undefined ? Date.parse(view.asOf) : range.max);
  const show = (asOf: string | undefined) => (label.textContent = asOf === undefined ? "now" : readableTime(asOf, Date.now()));
  show(view.asOf);
  let pending: ReturnType<typeof setTimeout> | undefined;
  slider.addEventListener("input", () => {
    const asOf = sliderAsOf(Number(slider.value), range);
    show(asOf);
    clearTimeout(pending);
    // Debounced: dragging asks for one graph when the hand rests, not one per pixel.
    pending = setTimeout(() => void redrawAt(asOf).catch(failed), 300);
  });
  byId("time-now").addEventListener("click", () => {
    clearTimeout(pending);
    slider.value = String(range.max);
    show(undefined);
    void redrawAt(undefined).catch(failed);
  });
}

let redraws = 0;
async function redrawAt(asOf: string | undefined): Promise<void> {
  const mine = ++redraws;
  document.body.dataset.time = "loading";
  const graph = await api.call<GraphView>("show_memory_graph", { ...openingArgs, ...(asOf !== undefined ? { asOf } : {}) });
  // A later move of the slider wins over an answer that arrives late.
  if (mine !== redraws) return;
  view.asOf = asOf;
  view.partial = graph.opening !== "all" || graph.truncated;
  replaceGraph(graph.entities, graph.relations);
  summarise(graph);
  showLegend();
  say(asOf === undefined ? "The graph as it is now." : `The graph as it was at ${readableTime(asOf, Date.now())}.`);
  document.body.dataset.time = asOf === undefined ? "now" : "past";
  if (view.selected !== undefined) await showDetails(view.selected);
}
