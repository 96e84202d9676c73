import type { Core } from "cytoscape";

import { byId } from "./dom.js";
import { type ToolInfo, ViewerApi } from "./rpc.js";

/** What the viewer page holds: the workspace it shows, what it has read of it, and the drawn graph (docs/viewer.md). */

/** read_graph's page size, and get_entities_by_tag's limit. */
export const PAGE = 1000;

export interface EntityView {
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
  /** With includeSuperseded: observation content -> its valid time and status (docs/history.md#two-times). */
  observationValidity?: Record<string, FactValidity>;
}
/** A fact's valid time as the read tools return it; `status` is absent when it is current. */
export interface FactValidity {
  validFrom?: string;
  validTo?: string;
  supersededBy?: string;
  expiresAt?: string;
  status?: string;
}
export interface RelationView {
  id?: string;
  from: string;
  to: string;
  relationType: string;
}
export interface GraphPage {
  entities: (EntityView & { id: string })[];
  relations: RelationView[];
  cursor?: string;
}
export interface ChangeEvent {
  at: string;
  principal: string;
  tool: string;
  summary: string;
  changes: { kind: string; entityName?: string }[];
}

export const workspace = decodeURIComponent(location.pathname.split("/")[3] ?? "");
export const api = new ViewerApi(`/api/workspaces/${encodeURIComponent(workspace)}/view`);
export const entities = new Map<string, EntityView>();
export const relations = new Map<string, RelationView>();
export const relationKey = (r: RelationView) => `${r.from}\n${r.relationType}\n${r.to}`;

/** What changes as the page runs: the tools offered (tools/list), the drawn graph, and the tag filter's entities. */
export const view: {
  tools: Map<string, ToolInfo>;
  cy: Core | undefined;
  /** The entities carrying the chosen tag (on themselves or an observation), from get_entities_by_tag; undefined: no tag chosen. */
  tagged: Set<string> | undefined;
  /** "Show superseded": the details panel reads with includeSuperseded and marks what is no longer true. */
  showSuperseded: boolean;
  /** The entity the details panel shows, to read again when the toggle changes. */
  selected: string | undefined;
} = { tools: new Map(), cy: undefined, tagged: undefined, showSuperseded: false, selected: undefined };

export function addEntity(entity: EntityView): void {
  const known = entities.get(entity.name);
  entities.set(entity.name, known ? { ...known, ...entity } : entity);
}

export function status(text: string): void {
  byId("summary").textContent = text;
}
