import cytoscape, { type ElementDefinition } from "cytoscape";

import { byId } from "./dom.js";
import { applyFilters, fillFilters } from "./filters.js";
import { syncNodeList } from "./nodeList.js";
import { mergeSlice } from "./slice.js";
import { entities, type EntityView, relationKey, relations, type RelationView, view } from "./state.js";

/** The drawn graph: cytoscape's elements for what the viewer holds, their sizes and layout, and what is added later. */

/** Up to this many nodes the force-directed layout is used; above it, hubs in the middle (measured: cose is slow at 1,000). */
const FORCE_LAYOUT_NODES = 150;

export function degreeTable(): Map<string, number> {
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
    // Labels cost a text measurement each: a large graph labels its hubs, and any node once selected or marked.
    const label = labelled === undefined || labelled.has(name) ? name : "";
    result.push({ group: "nodes", data: { id: name, name, label, colour: view.palette.colour(entity.entityType), size } });
  }
  for (const relation of links) {
    result.push({
      group: "edges",
      data: { id: relationKey(relation), source: relation.from, target: relation.to, type: relation.relationType },
    });
  }
  return result;
}

/** Re-sizes every node by its degree among the relations the viewer holds. */
function resize(): void {
  if (!view.cy) return;
  const graph = view.cy;
  graph.batch(() => graph.nodes().forEach((node) => void node.data("size", nodeSize(node.degree(false)))));
}

const STYLE: cytoscape.StylesheetJson = [
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
  // A search hit: a yellow halo behind it, like a highlighter (no type has that colour), a dark ring and its name.
  {
    selector: "node.hit",
    style: {
      "underlay-color": "#ffd400",
      "underlay-padding": 9,
      "underlay-opacity": 0.75,
      "underlay-shape": "ellipse",
      "border-width": 2,
      "border-color": "#1d2330",
      label: "data(name)",
      "z-index": 5,
    },
  },
  // The shown path: nodes ringed and edges drawn thick in one colour, above the rest.
  { selector: "node.path", style: { "border-width": 4, "border-color": "#c2185b", label: "data(name)", "z-index": 6 } },
  { selector: "edge.path", style: { width: 4, "line-color": "#c2185b", opacity: 1, "z-index": 6 } },
  { selector: "node:selected", style: { "border-width": 3, "border-color": "#111", label: "data(name)" } },
  { selector: ".hidden", style: { display: "none" } },
];

/** Draws what the viewer holds; a tap on a node calls `onTap`, a double tap `onDoubleTap`, with the entity's name. */
export function drawGraph(onTap: (name: string) => void, onDoubleTap: (name: string) => void): void {
  const present = [...relations.values()].filter((r) => entities.has(r.from) && entities.has(r.to));
  const small = entities.size <= FORCE_LAYOUT_NODES;
  const degrees = degreeTable();
  const graph = cytoscape({
    container: byId("graph"),
    elements: elementsFor(entities.keys(), present, degrees, small ? undefined : labelledHubs(degrees)),
    // Positions come from the layout run next; without this cytoscape would first lay everything out on a grid.
    layout: { name: "preset" },
    minZoom: 0.05,
    maxZoom: 4,
    textureOnViewport: true,
    hideEdgesOnViewport: !small,
    pixelRatio: 1,
    style: STYLE,
  });
  view.cy = graph;
  performance.mark("viewer-elements");
  layOut();
  performance.mark("viewer-layout");
  graph.on("tap", "node", (event) => onTap(event.target.id() as string));
  graph.on("dbltap", "node", (event) => onDoubleTap(event.target.id() as string));
  graph.on("select unselect", "node", () => syncNodeList());
  markAll();
}

function layOut(): void {
  if (!view.cy) return;
  const graph = view.cy;
  const small = graph.nodes().length <= FORCE_LAYOUT_NODES;
  const options = small
    ? { name: "cose", animate: false, randomize: true, nodeDimensionsIncludeLabels: true, padding: 40 }
    : {
        name: "concentric",
        animate: false,
        concentric: (node: cytoscape.NodeSingular) => node.degree(false),
        levelWidth: () => 2,
        minNodeSpacing: 6,
      };
  graph.layout(options as cytoscape.LayoutOptions).run();
  // A small graph would be fitted at the highest zoom: keep its nodes at a readable size instead.
  if (graph.zoom() > 1.2) {
    graph.zoom(1.2);
    graph.center();
  }
}

/** Adds entities and relations the viewer did not hold yet (an expanded neighbourhood, a filter's match, a search hit). */
export function merge(newEntities: EntityView[], newRelations: RelationView[]): void {
  const { fresh, links } = mergeSlice({ entities, relations }, { entities: newEntities, relations: newRelations });
  if (!view.cy || (fresh.length === 0 && links.length === 0)) return;
  const graph = view.cy;
  const added = graph.add(
    elementsFor(
      fresh.map((entity) => entity.name),
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
  markAll();
  afterMerge();
}

/** What the screen updates once something was added (the legend, the counts). */
let afterMerge: () => void = () => undefined;
export function whenMerged(update: () => void): void {
  afterMerge = update;
}

/** Replaces everything drawn with another graph (the time slider's graph as it was, or now again). */
export function replaceGraph(newEntities: EntityView[], newRelations: RelationView[]): void {
  entities.clear();
  relations.clear();
  mergeSlice({ entities, relations }, { entities: newEntities, relations: newRelations });
  if (!view.cy) return;
  const graph = view.cy;
  const present = [...relations.values()].filter((r) => entities.has(r.from) && entities.has(r.to));
  const degrees = degreeTable();
  graph.batch(() => {
    graph.elements().remove();
    graph.add(elementsFor(entities.keys(), present, degrees, entities.size <= FORCE_LAYOUT_NODES ? undefined : labelledHubs(degrees)));
  });
  layOut();
  fillFilters();
  applyFilters();
  markAll();
}

/** Puts the marks (search hits, the path) on the drawn elements, then lists the nodes again. */
export function markAll(): void {
  if (!view.cy) return;
  const graph = view.cy;
  // Only what changes is touched: at the first draw nothing is marked, and a class change on 1,000 nodes costs.
  const mark = (className: string, wanted: Set<string>, group: "node" | "edge") => {
    graph.$(`${group}.${className}`).forEach((element) => {
      if (!wanted.has(element.id())) element.removeClass(className);
    });
    for (const id of wanted) {
      const element = graph.getElementById(id);
      if (element.nonempty() && !element.hasClass(className)) element.addClass(className);
    }
  };
  graph.batch(() => {
    mark("hit", view.hits, "node");
    mark("path", view.path.names, "node");
    mark("path", view.path.edges, "edge");
  });
  syncNodeList();
}
