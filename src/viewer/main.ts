import cytoscape, { type Core, type ElementDefinition } from "cytoscape";
import { byId, colourOf, el, fill, linkButton } from "./dom.js";
import { AccessError, ViewerApi, type ToolInfo } from "./rpc.js";

/**
 * The viewer page (docs/viewer.md). It reads the workspace through the same tools an agent uses, choosing among them by
 * what tools/list offers (search_entities or search_nodes, get_stats or degrees counted from read_graph, get_neighbors or
 * get_entity_relations), and writes nothing.
 */

/** Past this many entities the page opens on the most connected ones and expands neighbourhoods on demand. */
const LARGE_WORKSPACE = 2000;
/** How many hubs a large workspace opens on. */
const OPENING_HUBS = 300;
const PAGE = 1000;
/** How many of a large workspace's hubs get their neighbourhood drawn once the page is usable. */
const EXPANDED_HUBS = 5;
/** Up to this many nodes the force-directed layout is used; above it, hubs in the middle (measured: cose is slow at 1,000). */
const FORCE_LAYOUT_NODES = 150;

interface EntityView {
  name: string;
  entityType: string;
  observations?: string[];
  tags?: string[];
  observationTags?: Record<string, string[]>;
  createdBy?: string;
  updatedBy?: string;
  createdAt?: string;
  updatedAt?: string;
  metadata?: Record<string, unknown>;
}
interface RelationView {
  id?: string;
  from: string;
  to: string;
  relationType: string;
}
interface GraphPage {
  entities: (EntityView & { id: string })[];
  relations: RelationView[];
  cursor?: string;
}
interface ChangeEvent {
  at: string;
  principal: string;
  tool: string;
  summary: string;
  changes: { kind: string; entityName?: string }[];
}

const workspace = decodeURIComponent(location.pathname.split("/")[3] ?? "");
const api = new ViewerApi(`/api/workspaces/${encodeURIComponent(workspace)}/view`);
const entities = new Map<string, EntityView>();
const relations = new Map<string, RelationView>();
const relationKey = (r: RelationView) => `${r.from}\n${r.relationType}\n${r.to}`;
let tools = new Map<string, ToolInfo>();
let cy: Core | undefined;

function addEntity(entity: EntityView): void {
  const known = entities.get(entity.name);
  entities.set(entity.name, known ? { ...known, ...entity } : entity);
}

function status(text: string): void {
  byId("summary").textContent = text;
}

/** Loads what the graph opens on: every entity of a small workspace, or the hubs of a large one. */
async function loadOpening(): Promise<{ total: string; large: boolean; hubs: { name: string; degree: number }[] }> {
  if (tools.has("get_stats")) {
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

function degreeTable(): Map<string, number> {
  const degrees = new Map<string, number>([...entities.keys()].map((name) => [name, 0]));
  for (const relation of relations.values()) {
    degrees.set(relation.from, (degrees.get(relation.from) ?? 0) + 1);
    degrees.set(relation.to, (degrees.get(relation.to) ?? 0) + 1);
  }
  return degrees;
}

/** The nodes a large graph labels from the start: its most connected ones. */
const LABELLED_HUBS = 40;
function labelledHubs(degrees: Map<string, number>): Set<string> {
  const ranked = [...degrees].sort((a, b) => b[1] - a[1]).slice(0, LABELLED_HUBS);
  return new Set(ranked.map(([name]) => name));
}

function nodeSize(degree: number): number {
  return Math.min(80, 14 + 7 * Math.sqrt(degree));
}

function elementsFor(
  names: Iterable<string>,
  links: Iterable<RelationView>,
  degrees?: Map<string, number>,
  labelled?: Set<string>,
): ElementDefinition[] {
  const result: ElementDefinition[] = [];
  for (const name of names) {
    const entity = entities.get(name);
    if (!entity) continue;
    const size = nodeSize(degrees?.get(name) ?? 0);
    // Labels cost a text measurement each: a large graph labels its hubs, and any node once selected.
    const label = labelled === undefined || labelled.has(name) ? name : "";
    result.push({ group: "nodes", data: { id: name, name, label, colour: colourOf(entity.entityType), size } });
  }
  for (const relation of links) {
    result.push({
      group: "edges",
      data: { id: relationKey(relation), source: relation.from, target: relation.to, type: relation.relationType },
    });
  }
  return result;
}

/** Re-sizes every node by its degree among the relations the page holds. */
function resize(): void {
  if (!cy) return;
  const graph = cy;
  graph.batch(() => graph.nodes().forEach((node) => void node.data("size", nodeSize(node.degree(false)))));
}

function drawGraph(): void {
  const present = [...relations.values()].filter((r) => entities.has(r.from) && entities.has(r.to));
  const small = entities.size <= FORCE_LAYOUT_NODES;
  const degrees = degreeTable();
  cy = cytoscape({
    container: byId("graph"),
    elements: elementsFor(entities.keys(), present, degrees, small ? undefined : labelledHubs(degrees)),
    // Positions come from the layout run next; without this cytoscape would first lay everything out on a grid.
    layout: { name: "preset" },
    minZoom: 0.05,
    maxZoom: 4,
    textureOnViewport: true,
    hideEdgesOnViewport: !small,
    pixelRatio: 1,
    style: [
      {
        selector: "node",
        style: {
          "background-color": "data(colour)",
          width: "data(size)",
          height: "data(size)",
          label: "data(label)",
          "font-size": 10,
          "min-zoomed-font-size": 8,
          "text-valign": "bottom",
          "text-margin-y": 3,
          color: "#1d2330",
        },
      },
      { selector: "edge", style: { width: 1, "line-color": "#b8c0cc", "curve-style": "haystack", opacity: 0.8 } },
      { selector: "node:selected", style: { "border-width": 3, "border-color": "#111", label: "data(name)" } },
      { selector: ".hidden", style: { display: "none" } },
    ],
  });
  performance.mark("viewer-elements");
  relayout(small ? "cose" : "concentric");
  performance.mark("viewer-layout");
  // A small graph would be fitted at the highest zoom: keep its nodes at a readable size instead.
  if (cy.zoom() > 1.2) {
    cy.zoom(1.2);
    cy.center();
  }
  cy.on("tap", "node", (event) => void showDetails(event.target.id() as string));
  cy.on("dbltap", "node", (event) => void expand(event.target.id() as string));
}

function relayout(name: "cose" | "concentric"): void {
  if (!cy) return;
  const options =
    name === "cose"
      ? { name, animate: false, randomize: true, nodeDimensionsIncludeLabels: true, padding: 40 }
      : { name, animate: false, concentric: (node: cytoscape.NodeSingular) => node.degree(false), levelWidth: () => 2, minNodeSpacing: 6 };
  cy.layout(options as cytoscape.LayoutOptions).run();
}

/** Adds entities and relations the page did not hold yet (an expanded neighbourhood, a search hit) to the drawn graph. */
function merge(newEntities: EntityView[], newRelations: RelationView[]): void {
  const fresh: string[] = [];
  for (const entity of newEntities) {
    if (!entities.has(entity.name)) fresh.push(entity.name);
    addEntity(entity);
  }
  const links: RelationView[] = [];
  for (const relation of newRelations) {
    const key = relationKey(relation);
    if (relations.has(key)) continue;
    relations.set(key, relation);
    if (entities.has(relation.from) && entities.has(relation.to)) links.push(relation);
  }
  if (!cy || (fresh.length === 0 && links.length === 0)) return;
  const graph = cy;
  const added = graph.add(
    elementsFor(
      fresh,
      links.filter((r) => graph.getElementById(relationKey(r)).empty()),
    ),
  );
  resize();
  const around = added.nodes().length > 0 ? added.nodes().neighborhood().nodes().first() : undefined;
  const centre = around && around.nonempty() ? around.position() : { x: 0, y: 0 };
  added.nodes().forEach((node, i) => {
    const angle = (2 * Math.PI * i) / Math.max(1, added.nodes().length);
    node.position({ x: centre.x + 120 * Math.cos(angle), y: centre.y + 120 * Math.sin(angle) });
  });
  fillFilters();
  applyFilters();
}

/** The input a tool takes for "this one entity": its schema names the field (get_neighbors is another helper's tool). */
function entityArgument(tool: ToolInfo, name: string): Record<string, unknown> {
  const properties = tool.inputSchema?.properties ?? {};
  for (const field of ["entityName", "name", "entityNames", "names", "entities", "from"]) {
    if (field in properties) return { [field]: properties[field]?.type === "array" ? [name] : name };
  }
  return { entityName: name };
}

/** Expands an entity's neighbourhood: get_neighbors when offered, else its relations and open_nodes for the new ends. */
async function expand(name: string): Promise<void> {
  const neighbors = tools.get("get_neighbors");
  if (neighbors) {
    const answer = await api.call<{ entities: (EntityView & { id: string })[]; relations: RelationView[] }>(
      "get_neighbors",
      entityArgument(neighbors, name),
    );
    merge(answer.entities, answer.relations);
    return;
  }
  const answer = await api.call<{ relations: { fromName: string; toName: string; relationType: string; relationId: string }[] }>(
    "get_entity_relations",
    { entityName: name, direction: "both" },
  );
  const ends = [...new Set(answer.relations.flatMap((r) => [r.fromName, r.toName]))].filter((end) => !entities.has(end));
  const opened = ends.length > 0 ? await api.call<{ entities: EntityView[] }>("open_nodes", { names: ends }) : { entities: [] };
  merge(
    opened.entities,
    answer.relations.map((r) => ({ id: r.relationId, from: r.fromName, to: r.toName, relationType: r.relationType })),
  );
}

async function search(query: string): Promise<void> {
  const section = byId("results-section");
  if (query.trim() === "") {
    section.hidden = true;
    return;
  }
  let hits: EntityView[];
  if (tools.get("search_entities")?.inputSchema?.properties?.query) {
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

function swatch(entityType: string): HTMLElement {
  const dot = el("span", { className: "swatch", title: entityType });
  dot.style.backgroundColor = colourOf(entityType);
  return dot;
}

/** Selects an entity, adding it to the graph first when the page did not hold it (a large workspace). */
async function focus(entity: EntityView): Promise<void> {
  if (!entities.has(entity.name)) merge([entity], []);
  const node = cy?.getElementById(entity.name);
  if (node && node.nonempty()) {
    cy?.elements().unselect();
    node.select();
    cy?.animate({ center: { eles: node }, duration: 0 });
  }
  await showDetails(entity.name);
}

async function showDetails(name: string): Promise<void> {
  const panel = byId("details");
  panel.hidden = false;
  byId("app").classList.remove("no-details");
  panel.replaceChildren(el("h3", {}, name), el("p", { className: "muted" }, "Loading…"));
  let entity = entities.get(name);
  if (!entity?.observations) {
    const opened = await api.call<{ entities: EntityView[] }>("open_nodes", { names: [name] });
    if (opened.entities[0]) addEntity(opened.entities[0]);
    entity = entities.get(name);
  }
  // The history's oldest event is the creation; the newest events come from the feed, newest first.
  const withHistory = tools.has("get_entity_history") && tools.has("get_changes");
  const [links, first, recent] = await Promise.all([
    api.call<{ relations: { fromName: string; toName: string; relationType: string; createdBy?: string }[] }>("get_entity_relations", {
      entityName: name,
      direction: "both",
    }),
    withHistory ? api.call<{ events: ChangeEvent[] }>("get_entity_history", { entityName: name, limit: 1 }) : undefined,
    withHistory ? api.call<{ events: ChangeEvent[] }>("get_changes", { entityName: name, limit: 10 }) : undefined,
  ]);
  if (!entity) {
    panel.replaceChildren(el("h3", {}, name), el("p", { className: "muted" }, "This entity no longer exists."));
    return;
  }
  const events = recent?.events ?? [];
  const newest = events[0];
  const oldest = first?.events[0];
  const expandButton = el("button", { onClick: () => void expand(name) }, "Expand neighbourhood");
  expandButton.type = "button";
  panel.replaceChildren(
    el("h3", {}, name),
    el("p", {}, swatch(entity.entityType), entity.entityType),
    el("div", {}, tagList(entity.tags ?? [])),
    el(
      "p",
      { className: "muted" },
      `Created by ${entity.createdBy ?? oldest?.principal ?? "unknown"}${oldest ? ` at ${oldest.at}` : entity.createdAt ? ` at ${entity.createdAt}` : ""}. `,
      `Last changed by ${entity.updatedBy ?? newest?.principal ?? "unknown"}${newest ? ` at ${newest.at}` : entity.updatedAt ? ` at ${entity.updatedAt}` : ""}.`,
    ),
    expandButton,
    el("h2", {}, `Observations (${entity.observations?.length ?? 0})`),
    el(
      "ul",
      { className: "observations" },
      ...(entity.observations ?? []).map((text) =>
        el("li", { className: "observation" }, el("span", { className: "text" }, text), tagList(entity?.observationTags?.[text] ?? [])),
      ),
    ),
    el("h2", {}, `Relations (${links.relations.length})`),
    el(
      "ul",
      {},
      ...links.relations.map((r) =>
        el(
          "li",
          {},
          r.fromName === name ? "→ " : "← ",
          el("span", { className: "muted" }, r.relationType, " "),
          linkButton(
            r.fromName === name ? r.toName : r.fromName,
            () => void focus({ name: r.fromName === name ? r.toName : r.fromName, entityType: "" }),
          ),
        ),
      ),
    ),
    el("h2", {}, "History"),
    el(
      "ul",
      {},
      ...events.map((event) => el("li", {}, el("span", { className: "muted" }, `${event.at} ${event.principal}: `), event.summary)),
    ),
  );
}

function tagList(tags: string[]): HTMLElement | undefined {
  if (tags.length === 0) return undefined;
  return el("span", { className: "tags" }, ...tags.map((tag) => el("span", { className: "tag" }, tag)));
}

/** The entities carrying the chosen tag (on themselves or an observation), from get_entities_by_tag; undefined: no tag chosen. */
let tagged: Set<string> | undefined;
/** Tags the workspace defined (get_all_tags), offered in the filter with those the page saw in use. */
const definedTags = new Set<string>();

async function chooseTag(tag: string): Promise<void> {
  if (tag === "") tagged = undefined;
  else {
    const answer = await api.call<{ entities: EntityView[]; relations: RelationView[] }>("get_entities_by_tag", {
      tagName: tag,
      limit: PAGE,
    });
    tagged = new Set(answer.entities.map((entity) => entity.name));
    merge(answer.entities, answer.relations);
  }
  applyFilters();
}

function fillFilters(): void {
  const types = new Set<string>();
  const tags = new Set<string>(definedTags);
  for (const entity of entities.values()) {
    types.add(entity.entityType);
    for (const tag of entity.tags ?? []) tags.add(tag);
    for (const list of Object.values(entity.observationTags ?? {})) for (const tag of list) tags.add(tag);
  }
  const relationTypes = new Set([...relations.values()].map((r) => r.relationType));
  setOptions(byId<HTMLSelectElement>("filter-type"), types);
  setOptions(byId<HTMLSelectElement>("filter-tag"), tags);
  setOptions(byId<HTMLSelectElement>("filter-relation"), relationTypes);
}

function setOptions(select: HTMLSelectElement, values: Set<string>): void {
  const chosen = select.value;
  const options = [...values].sort().map((value) => {
    const option = el("option", {}, value);
    option.value = value;
    return option;
  });
  const all = el("option", {}, "all");
  all.value = "";
  select.replaceChildren(all, ...options);
  select.value = values.has(chosen) ? chosen : "";
}

function applyFilters(): void {
  if (!cy) return;
  const graph = cy;
  const type = byId<HTMLSelectElement>("filter-type").value;
  const relationType = byId<HTMLSelectElement>("filter-relation").value;
  graph.batch(() => {
    graph.nodes().forEach((node) => {
      const entity = entities.get(node.id());
      const shown =
        entity !== undefined &&
        (type === "" || entity.entityType === type) &&
        (tagged === undefined || tagged.has(entity.name)) &&
        (relationType === "" || node.connectedEdges().some((edge) => edge.data("type") === relationType));
      node.toggleClass("hidden", !shown);
    });
    graph.edges().forEach((edge) => {
      const shown =
        (relationType === "" || edge.data("type") === relationType) &&
        !edge.source().hasClass("hidden") &&
        !edge.target().hasClass("hidden");
      edge.toggleClass("hidden", !shown);
    });
  });
}

async function loadChanges(): Promise<void> {
  if (!tools.has("get_changes")) return;
  const { events } = await api.call<{ events: ChangeEvent[] }>("get_changes", { limit: 25 });
  fill(
    byId("changes"),
    events.map((event) => {
      const name = event.changes.find((change) => change.entityName !== undefined)?.entityName;
      return el(
        "li",
        {},
        el("span", { className: "muted" }, `${event.at.slice(0, 19).replace("T", " ")} · ${event.principal} · `),
        name !== undefined ? linkButton(event.summary, () => void focus({ name, entityType: "" })) : event.summary,
      );
    }),
  );
}

async function loadTags(): Promise<void> {
  if (!tools.has("get_all_tags")) return;
  const { tags } = await api.call<{ tags: { name: string }[] }>("get_all_tags");
  for (const tag of tags) definedTags.add(tag.name);
  fillFilters();
}

async function loadDuplicates(): Promise<void> {
  if (!tools.has("detect_duplicate_entities")) return;
  byId("duplicates-section").hidden = false;
  const { pairs } = await api.call<{ pairs: { a: EntityView; b: EntityView; score: number; reasons: string[] }[] }>(
    "detect_duplicate_entities",
    {},
  );
  fill(
    byId("duplicates"),
    pairs.map((pair) =>
      el(
        "li",
        { title: pair.reasons.join("; ") },
        linkButton(pair.a.name, () => void focus(pair.a)),
        " ≈ ",
        linkButton(pair.b.name, () => void focus(pair.b)),
        el("span", { className: "muted" }, ` (${pair.score.toFixed(2)})`),
      ),
    ),
    "None found.",
  );
}

/** The colour of each entity type, with how many entities of it the page holds. */
function showLegend(): void {
  const counts = new Map<string, number>();
  for (const entity of entities.values()) counts.set(entity.entityType, (counts.get(entity.entityType) ?? 0) + 1);
  const types = [...counts].sort((a, b) => b[1] - a[1]);
  fill(
    byId("legend"),
    types.slice(0, 12).map(([type, count]) => el("li", {}, swatch(type), type, el("span", { className: "muted" }, ` ${count}`))),
  );
}

function showHubs(hubs: { name: string; degree: number }[]): void {
  fill(
    byId("hubs"),
    hubs.slice(0, 10).map((hub) =>
      el(
        "li",
        {},
        linkButton(hub.name, () => void focus({ name: hub.name, entityType: "" })),
        el("span", { className: "muted" }, ` ${hub.degree}`),
      ),
    ),
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
  tools = await api.listTools();
  byId("app").hidden = false;
  byId("app").classList.add("no-details");
  const opening = await loadOpening();
  performance.mark("viewer-data");
  drawGraph();
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
  if (opening.large && tools.has("get_stats")) {
    for (const hub of opening.hubs.slice(0, EXPANDED_HUBS)) await expand(hub.name).catch(() => undefined);
  }
}

start().catch(failed);
