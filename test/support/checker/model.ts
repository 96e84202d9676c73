import type { Validity } from "../../../src/domain/model/model.js";
import { isExpired, presentLens, shows, statusOf } from "../../../src/domain/rules/validity.js";
import { ownerOf, relationRowKeys, rowKey, tagLinkKeys } from "../../../src/storage/rows/keys.js";
import { validityOfRow } from "../../../src/storage/rows/rows.js";
import type { RawRow } from "../rawRows.js";

/**
 * The checker's model of a workspace: the graph a fresh scan of its raw rows gives, in a normal form every view is
 * compared with (ids, times, versions and order left out; lists sorted), and the raw rows' orphans.
 */

/** An entity in normal form. `metadata` is canonical JSON (keys sorted). */
export interface NEntity {
  name: string;
  entityType: string;
  metadata: string;
  observations: string[];
  tags: string[];
  /** Observation content -> its tag names, only observations that carry a tag. */
  observationTags: Record<string, string[]>;
  /**
   * Observation content -> its valid time and expiry with its status now (canonical JSON), only observations that have any
   * (docs/history.md#two-times). Compared only where a view shows superseded facts too.
   */
  observationValidity: Record<string, string>;
  /** The entity's own expiry (canonical JSON; "" when none). */
  expiry: string;
}

export interface NRelation {
  from: string;
  to: string;
  relationType: string;
  metadata: string;
  /** Its valid time and expiry with its status now (canonical JSON; "" when none). Compared only with includeSuperseded. */
  validity?: string;
}

interface NTag {
  name: string;
  category: string;
  description: string;
}

/** A whole graph in normal form, keyed by entity name, relation label and tag name. */
export interface NGraph {
  entities: Map<string, NEntity>;
  relations: Map<string, NRelation>;
  tags: Map<string, NTag>;
  /** The rejected duplicate pairs (pairLabel), as the raw rows hold them; only graphOfRows fills it. */
  rejections?: Set<string>;
}

/** The key a rejected duplicate pair is compared by: its two names, in either order. */
export const pairLabel = (a: string, b: string): string => [a, b].sort().join(" ≈ ");

/** The key a relation is compared by: its ends' names and its type. */
export const relationLabel = (r: { from: string; to: string; relationType: string }): string => `${r.from} -${r.relationType}-> ${r.to}`;

/** JSON with object keys sorted, so equal metadata compares equal whatever the order its keys were written in. */
export function canonicalJson(value: unknown): string {
  const sort = (v: unknown): unknown =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
        )
      : Array.isArray(v)
        ? v.map(sort)
        : v;
  return JSON.stringify(sort(value ?? {}));
}

const str = (value: unknown): string => (typeof value === "string" ? value : "");
const storedMetadata = (text: unknown): string => canonicalJson(str(text) === "" ? {} : JSON.parse(str(text)));

/** Row kinds outside the graph: the feed, the registry row and batch markers. */
export const NON_GRAPH_KINDS = ["event", "history-pruned", "batch-marker", "workspace"] as const;

/** An empty graph (a deleted or never-written workspace). */
const emptyGraph = (): NGraph => ({ entities: new Map(), relations: new Map(), tags: new Map() });

/** The graph the raw rows hold. Rows without their entity (orphans, reported by `orphans`) are left out. */
export function graphOfRows(rows: readonly RawRow[], now = Date.now()): NGraph {
  const graph = emptyGraph();
  const byKey = new Map(rows.map((row) => [row.rowKey, row]));
  const entityRows = rows.filter((row) => row.kind === "entity");
  const names = new Map(entityRows.map((row) => [row.rowKey, str(row.name)]));
  for (const head of entityRows) {
    const name = str(head.name);
    graph.entities.set(name, {
      name,
      entityType: str(head.entityType),
      metadata: storedMetadata(head.metadata),
      observations: [],
      tags: [],
      observationTags: {},
      observationValidity: {},
      expiry: canonicalValidity(validityOfRow(head), now),
    });
  }
  for (const row of rows) {
    const entity = graph.entities.get(names.get(ownerOf(row.rowKey)) ?? "\0");
    if (row.kind === "observation" && entity) {
      entity.observations.push(str(row.content));
      const validity = canonicalValidity(validityOfRow(row), now);
      if (validity) entity.observationValidity[str(row.content)] = validity;
    }
    if (row.kind === "entity-tag" && entity) entity.tags.push(str(row.tagName));
    if (row.kind === "observation-tag" && entity) {
      const observation = byKey.get(rowKey.observation(str(row.entityId), str(row.observationId)));
      if (!observation) continue;
      const content = str(observation.content);
      (entity.observationTags[content] ??= []).push(str(row.tagName));
    }
    if (row.kind === "relation") {
      const from = names.get(str(row.fromId));
      const to = names.get(str(row.toId));
      if (from === undefined || to === undefined) continue;
      const relation = {
        from,
        to,
        relationType: str(row.relationType),
        metadata: storedMetadata(row.metadata),
        validity: canonicalValidity(validityOfRow(row), now),
      };
      graph.relations.set(relationLabel(relation), relation);
    }
    if (row.kind === "duplicate-rejection") (graph.rejections ??= new Set()).add(pairLabel(str(row.aName), str(row.bName)));
    if (row.kind === "tag")
      graph.tags.set(str(row.name), { name: str(row.name), category: str(row.category), description: str(row.description) });
  }
  for (const entity of graph.entities.values()) {
    entity.observations.sort();
    entity.tags.sort();
    for (const tags of Object.values(entity.observationTags)) tags.sort();
  }
  return graph;
}

/** A validity with its status now, as canonical JSON ("" for none): what views show (src/mcp/graphShapes.ts). */
function canonicalValidity(validity: Validity | undefined, now: number): string {
  if (!validity) return "";
  const status = statusOf(validity, presentLens(now));
  return canonicalJson({ ...validity, ...(status !== "current" ? { status } : {}) });
}

const held = (text: string): Validity | undefined => (text === "" ? undefined : (JSON.parse(text) as Validity));

/**
 * The graph as reads show it by default, true now as held now (docs/history.md#two-times): without the observations and
 * relations that are superseded, ended, not yet valid or expired, and without expired entities and their relations. With
 * `includeSuperseded`, only what expired is left out.
 */
export function presentView(graph: NGraph, now = Date.now(), includeSuperseded = false): NGraph {
  const lens = { ...presentLens(now), includeSuperseded };
  const entities = new Map<string, NEntity>();
  for (const [name, entity] of graph.entities) {
    if (isExpired(held(entity.expiry), now)) continue;
    const observations = entity.observations.filter((content) => {
      const text = entity.observationValidity[content];
      return text === undefined || shows(held(text), lens);
    });
    const kept = (record: Record<string, string[]> | Record<string, string>) =>
      Object.fromEntries(Object.entries(record).filter(([content]) => observations.includes(content)));
    entities.set(name, {
      ...entity,
      observations,
      observationTags: kept(entity.observationTags) as Record<string, string[]>,
      observationValidity: kept(entity.observationValidity) as Record<string, string>,
    });
  }
  const relations = new Map(
    [...graph.relations].filter(
      ([, r]) =>
        entities.has(r.from) && entities.has(r.to) && (r.validity === undefined || r.validity === "" || shows(held(r.validity), lens)),
    ),
  );
  return { entities, relations, tags: graph.tags };
}

/**
 * Every row that dangles: an observation, edge or tag link without its entity row; an observation tag without its
 * observation; a relation without both edge rows or an endpoint, an edge without its relation; a tag link without its
 * index row or definition, and an index row without its link.
 */
export function orphans(rows: readonly RawRow[]): string[] {
  const keys = new Set(rows.map((row) => row.rowKey));
  const tagIds = new Set(rows.filter((row) => row.kind === "tag").map((row) => row.rowKey));
  const entity = (id: string) => keys.has(rowKey.entity(id));
  const problems: string[] = [];
  const say = (row: RawRow, what: string) => problems.push(`${row.kind ?? "row"} ${row.rowKey}: ${what}`);
  for (const row of rows) {
    switch (row.kind) {
      case "observation":
      case "entity-tag":
      case "observation-tag":
      case "edge-in":
      case "edge-out":
        if (!entity(ownerOf(row.rowKey))) say(row, "its entity row is missing");
        break;
    }
    if (row.kind === "observation-tag" && !keys.has(rowKey.observation(str(row.entityId), str(row.observationId)))) {
      say(row, "its observation row is missing");
    }
    if ((row.kind === "edge-in" || row.kind === "edge-out") && !keys.has(rowKey.relation(str(row.relationId)))) {
      say(row, "its relation row is missing");
    }
    if (row.kind === "duplicate-rejection" && row.rowKey !== rowKey.rejection(str(row.aId), str(row.bId))) {
      say(row, "its key is not its pair's (rowKey.rejection)");
    }
    if (row.kind === "relation") {
      const [, out, inbound] = relationRowKeys({ id: row.rowKey, fromEntityId: str(row.fromId), toEntityId: str(row.toId) });
      if (!keys.has(out)) say(row, `its outgoing edge ${out} is missing`);
      if (!keys.has(inbound)) say(row, `its incoming edge ${inbound} is missing`);
      if (!entity(str(row.fromId))) say(row, `its source entity ${str(row.fromName)} is missing`);
      if (!entity(str(row.toId))) say(row, `its target entity ${str(row.toName)} is missing`);
    }
    if (row.kind === "entity-tag" || row.kind === "observation-tag" || row.kind === "tag-index") {
      const observationId = str(row.observationId);
      const pair = tagLinkKeys({ entityId: str(row.entityId), ...(observationId ? { observationId } : {}) }, str(row.tagId));
      const other = row.kind === "tag-index" ? pair.link : pair.index;
      if (!keys.has(other)) say(row, `its ${row.kind === "tag-index" ? "link" : "index row"} ${other} is missing`);
      if (!tagIds.has(rowKey.tag(str(row.tagId)))) say(row, `the definition of tag ${str(row.tagName)} is missing`);
    }
  }
  return problems;
}
