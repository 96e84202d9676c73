import type { Core } from "cytoscape";

import { byId, swatch } from "./dom.js";
import { Palette } from "./palette.js";
import type { DataSource } from "./shapes.js";
import { edgeKey, type EdgeView, type NodeView } from "./slice.js";

/** What the viewer holds: where its data comes from, what it has read of the workspace, and the drawn graph (docs/viewer.md). */

export type EntityView = NodeView;
export type RelationView = EdgeView;
export interface ChangeEvent {
  at: string;
  principal: string;
  tool: string;
  summary: string;
  changes: { kind: string; entityName?: string }[];
}

/** The data source: set once by the entry (main.ts for the page, appMain.ts for the app). */
export let api: DataSource = {
  call: () => Promise.reject(new Error("The viewer has no data source yet.")),
};
export function useSource(source: DataSource): void {
  api = source;
}

export const entities = new Map<string, EntityView>();
export const relations = new Map<string, RelationView>();
export const relationKey = edgeKey;

/** What changes as the viewer runs. */
export const view: {
  /** The tools this caller may call (the opening result's `tools`): the viewer offers only those actions. */
  tools: Set<string>;
  cy: Core | undefined;
  /** The entities the tag filter matched (app_filter); undefined: no tag chosen. */
  tagged: Set<string> | undefined;
  /** "Show superseded": the details panel reads with includeSuperseded and marks what is no longer true. */
  showSuperseded: boolean;
  /** The entity the details panel shows, to read again when the toggle or the time changes. */
  selected: string | undefined;
  /** The time the graph shows (the time slider); undefined: now. */
  asOf: string | undefined;
  /** The graph holds only part of the workspace: filters ask the server (app_filter) for what they match. */
  partial: boolean;
  palette: Palette;
  /** The last search's hits and the shown path, marked in the graph and in #graph-nodes. */
  hits: Set<string>;
  path: { names: Set<string>; edges: Set<string> };
} = {
  tools: new Set(),
  cy: undefined,
  tagged: undefined,
  showSuperseded: false,
  selected: undefined,
  asOf: undefined,
  partial: false,
  palette: new Palette(),
  hits: new Set(),
  path: { names: new Set(), edges: new Set() },
};

export function addEntity(entity: EntityView): void {
  const known = entities.get(entity.name);
  entities.set(entity.name, known ? { ...known, ...entity, entityType: entity.entityType || known.entityType } : entity);
}

/** The graph's counts, in the header. */
export function status(text: string): void {
  byId("summary").textContent = text;
}

/** A message for the person (#status, role=status); clears the last error. */
export function say(text: string): void {
  byId("status").textContent = text;
  const error = byId("error");
  error.textContent = "";
  error.hidden = true;
}

/** A call's error, as text, with the server's message (which says how to recover) (#error, role=alert). */
export function showError(error: unknown): void {
  const box = byId("error");
  box.textContent = error instanceof Error ? error.message : String(error);
  box.hidden = false;
}

/** A dot in the colour the palette gives an entity type. */
export function typeSwatch(entityType: string): HTMLElement {
  return swatch(entityType, view.palette.colour(entityType));
}
