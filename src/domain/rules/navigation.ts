import { NotFoundError, ValidationError } from "../model/errors.js";
import { LIMITS } from "../model/limits.js";
import type { Direction, Entity, EntityNode, Relation } from "../model/model.js";
import { byCreation } from "../model/order.js";
import { checkCount, checkEntityType, checkLimit, checkRelationType } from "../model/validation.js";

/**
 * Traversal (get_neighbors, find_path) against a narrow port: "these entities, with their edges",
 * one round of parallel reads per call. Storage implements it with one range read per entity
 * (storage/reads/traversal.ts); an in-memory adjacency can answer the same calls with no request.
 */
export interface TraversalPort {
  /** Each entity with everything attached (observations, tags, relations both ways), in the order asked; undefined where absent. */
  nodes(workspace: string, entityIds: readonly string[]): Promise<(EntityNode | undefined)[]>;
  /**
   * Each entity's row and its relations in `direction` only (no observations), in the order asked; undefined where absent.
   * The entity part may carry empty observations.
   */
  edges(workspace: string, entityIds: readonly string[], direction: Direction): Promise<(EntityNode | undefined)[]>;
}

export interface NeighborOptions {
  depth: number;
  direction: Direction;
  /** Follow only relations of these types (all when absent). */
  relationTypes?: readonly string[];
  /** Return and pass through only entities of these types (the start entity is always returned). */
  entityTypes?: readonly string[];
  limit: number;
}

export interface Neighborhood {
  /** In breadth-first order: the start entity (distance 0), then each level in the order it was reached. */
  entities: { entity: Entity; distance: number }[];
  /** Every relation of the allowed types between two returned entities, oldest first. */
  relations: Relation[];
  /** True when `limit` (or the read bound) stopped the walk before the whole neighbourhood was returned. */
  limited: boolean;
}

/** An entity to start from: its id, and how the caller named it (for messages). */
export interface EntityKey {
  id: string;
  label: string;
}

function notFound(keys: readonly EntityKey[], workspace: string): NotFoundError {
  const names = keys.map((key) => `'${key.label}'`).join(" and ");
  return new NotFoundError(
    `Entity ${names} not found in workspace '${workspace}'. Check the name (names match exactly), or find it with search_nodes.`,
  );
}

/** The entity a relation leads to from `id`, following `direction`, or undefined if it does not lead away from `id` that way. */
function across(relation: Relation, id: string, direction: Direction): string | undefined {
  if (direction !== "in" && relation.fromEntityId === id) return relation.toEntityId;
  if (direction !== "out" && relation.toEntityId === id) return relation.fromEntityId;
  return undefined;
}

function typeFilter(types: readonly string[] | undefined): (type: string) => boolean {
  if (types === undefined) return () => true;
  const allowed = new Set(types);
  return (type) => allowed.has(type);
}

function checkDepth(depth: number, max: number, where: string): void {
  if (!Number.isInteger(depth) || depth < 1 || depth > max) {
    throw new ValidationError(`${where} must be a whole number from 1 to ${max}; got ${depth}.`);
  }
}

/**
 * Breadth-first neighbourhood of `startId`: round 0 reads the start entity (its lookup), round k
 * reads the entities first reached at distance k, all in parallel. So depth d costs at most d + 1
 * rounds and 1 + (entities read) requests. Within a level, entities come in the order they were
 * reached (by their predecessor's position, then relation age), so the walk is deterministic.
 */
export async function neighbors(port: TraversalPort, workspace: string, start: EntityKey, options: NeighborOptions): Promise<Neighborhood> {
  const startId = start.id;
  const followsType = typeFilter(options.relationTypes);
  const keepsType = typeFilter(options.entityTypes);
  const [startNode] = await port.nodes(workspace, [startId]);
  if (!startNode) throw notFound([start], workspace);
  const returned: { node: EntityNode; distance: number }[] = [{ node: startNode, distance: 0 }];
  const seen = new Set([startId]);
  let frontier = [startNode];
  let limited = false;
  let reads = 1;
  for (let distance = 1; distance <= options.depth && frontier.length > 0 && !limited; distance++) {
    const reached: string[] = [];
    for (const node of frontier) {
      for (const relation of node.relations) {
        if (!followsType(relation.relationType)) continue;
        const next = across(relation, node.entity.id, options.direction);
        if (next === undefined || seen.has(next)) continue;
        seen.add(next);
        reached.push(next);
      }
    }
    // Without a type filter every entity read is returned, so read no more than the limit leaves room for.
    const room = options.entityTypes === undefined ? options.limit - returned.length : LIMITS.neighborReads - reads;
    const toRead = reached.slice(0, Math.max(0, room));
    if (toRead.length < reached.length) limited = true;
    reads += toRead.length;
    const read = await port.nodes(workspace, toRead);
    frontier = [];
    for (const node of read) {
      if (!node || !keepsType(node.entity.entityType)) continue;
      if (returned.length >= options.limit) {
        limited = true;
        break;
      }
      returned.push({ node, distance });
      frontier.push(node);
    }
  }
  const ids = new Set(returned.map(({ node }) => node.entity.id));
  const relations = new Map<string, Relation>();
  for (const { node } of returned) {
    for (const relation of node.relations) {
      if (followsType(relation.relationType) && ids.has(relation.fromEntityId) && ids.has(relation.toEntityId)) {
        relations.set(relation.id, relation);
      }
    }
  }
  return {
    entities: returned.map(({ node, distance }) => ({ entity: node.entity, distance })),
    relations: [...relations.values()].sort(byCreation),
    limited,
  };
}

export interface PathOptions {
  maxDepth: number;
  direction: Direction;
  relationTypes?: readonly string[];
  /** The most entities whose edges the search reads (LIMITS.pathVisitedEntities by default). */
  maxVisited?: number;
}

type PathStep = { kind: "entity"; id: string; name: string } | { kind: "relation"; relation: Relation };

export type PathResult =
  | { found: true; hops: number; path: PathStep[]; visitedEntities: number }
  | { found: false; reason: "no-path-within-depth" | "visit-limit"; visitedEntities: number };

interface Side {
  /** How each visited entity was reached: the relation and the entity one step nearer this side's root. */
  via: Map<string, { relation: Relation; nearer: string } | undefined>;
  distance: Map<string, number>;
  names: Map<string, string>;
  frontier: string[];
  depth: number;
  /** Which edges to read: a path leaves `from` along `direction`, and arrives at `to` against it. */
  reads: Direction;
}

const reverse = (direction: Direction): Direction => (direction === "out" ? "in" : direction === "in" ? "out" : "both");

/** A path needs two different entities (checked before anything is read). */
export function checkDistinctEnds(fromId: string, toId: string): void {
  if (fromId === toId) throw new ValidationError("from and to name the same entity: a path needs two different entities.");
}

/**
 * The shortest path from `fromId` to `toId` (at most maxDepth relations, followed along `direction`),
 * by bidirectional breadth-first search: each round reads the edges of one side's whole frontier in
 * parallel (the smaller side first), and the search stops when the sides meet. Expanding whole
 * levels makes the first meeting a shortest path. The entities whose edges it reads are bounded by
 * maxVisited: past it the answer is "visit-limit", never an unbounded walk.
 */
export async function shortestPath(
  port: TraversalPort,
  workspace: string,
  from: EntityKey,
  to: EntityKey,
  options: PathOptions,
): Promise<PathResult> {
  const [fromId, toId] = [from.id, to.id];
  checkDistinctEnds(fromId, toId);
  const maxVisited = options.maxVisited ?? LIMITS.pathVisitedEntities;
  const follows = typeFilter(options.relationTypes);
  const side = (root: string, reads: Direction): Side => ({
    via: new Map([[root, undefined]]),
    distance: new Map([[root, 0]]),
    names: new Map(),
    frontier: [root],
    depth: 0,
    reads,
  });
  const forward = side(fromId, options.direction);
  const backward = side(toId, reverse(options.direction));
  let visited = 0;
  let best: { meeting: string; hops: number } | undefined;

  /** Records the nodes read for one side, and the shortest meeting with the other side it makes (if any). */
  const absorb = (own: Side, other: Side, nodes: readonly (EntityNode | undefined)[]) => {
    const next: string[] = [];
    for (const node of nodes) {
      if (!node) continue;
      const id = node.entity.id;
      own.names.set(id, node.entity.name);
      for (const relation of node.relations) {
        if (!follows(relation.relationType)) continue;
        const neighbor = across(relation, id, own.reads);
        if (neighbor === undefined || own.via.has(neighbor)) continue;
        own.via.set(neighbor, { relation, nearer: id });
        own.distance.set(neighbor, own.depth + 1);
        own.names.set(neighbor, neighbor === relation.toEntityId ? relation.toName : relation.fromName);
        next.push(neighbor);
        const otherDistance = other.distance.get(neighbor);
        if (otherDistance === undefined) continue;
        const hops = own.depth + 1 + otherDistance;
        if (hops <= options.maxDepth && (best === undefined || hops < best.hops)) best = { meeting: neighbor, hops };
      }
    }
    own.frontier = next;
    own.depth += 1;
  };

  // Round 0 reads both ends at once: it proves both exist and is each side's first level.
  const [fromNodes, toNodes] = await Promise.all([
    port.edges(workspace, [fromId], forward.reads),
    port.edges(workspace, [toId], backward.reads),
  ]);
  const missing = [fromNodes[0] ? undefined : from, toNodes[0] ? undefined : to].filter((key) => key !== undefined);
  if (missing.length > 0) throw notFound(missing, workspace);
  visited = 2;
  absorb(forward, backward, fromNodes);
  absorb(backward, forward, toNodes);

  while (!best && forward.depth + backward.depth < options.maxDepth && forward.frontier.length > 0 && backward.frontier.length > 0) {
    const [own, other] = forward.frontier.length <= backward.frontier.length ? [forward, backward] : [backward, forward];
    if (visited + own.frontier.length > maxVisited) return { found: false, reason: "visit-limit", visitedEntities: visited };
    visited += own.frontier.length;
    absorb(own, other, await port.edges(workspace, own.frontier, own.reads));
  }
  if (!best) return { found: false, reason: "no-path-within-depth", visitedEntities: visited };
  return { found: true, hops: best.hops, path: stepsThrough(forward, backward, best.meeting), visitedEntities: visited };
}

/** The path from the forward root to the meeting entity and on to the backward root, entities and relations alternating. */
function stepsThrough(forward: Side, backward: Side, meeting: string): PathStep[] {
  const entity = (id: string): PathStep => ({ kind: "entity", id, name: forward.names.get(id) ?? backward.names.get(id) ?? "" });
  const toMeeting: PathStep[] = [entity(meeting)];
  for (let at = meeting, step = forward.via.get(at); step; at = step.nearer, step = forward.via.get(at)) {
    toMeeting.unshift(entity(step.nearer), { kind: "relation", relation: step.relation });
  }
  const fromMeeting: PathStep[] = [];
  for (let at = meeting, step = backward.via.get(at); step; at = step.nearer, step = backward.via.get(at)) {
    fromMeeting.push({ kind: "relation", relation: step.relation }, entity(step.nearer));
  }
  return [...toMeeting, ...fromMeeting];
}

/** get_neighbors' arguments as a caller gives them (defaults filled in by checkNeighborRequest). */
export interface NeighborRequest {
  depth?: number;
  direction?: Direction;
  relationTypes?: readonly string[];
  entityTypes?: readonly string[];
  limit?: number;
}

export interface PathRequest {
  maxDepth?: number;
  direction?: Direction;
  relationTypes?: readonly string[];
}

/** Type filters name at most this many types. */
const MAX_TYPES = 100;

function checkTypes(types: readonly string[] | undefined, where: string, check: (value: string, where: string) => void): void {
  if (types === undefined) return;
  checkCount(types, where, MAX_TYPES);
  if (types.length === 0) throw new ValidationError(`${where} is empty, so nothing would match. Omit ${where} to follow every type.`);
  types.forEach((type, i) => check(type, `${where}[${i}]`));
}

export function checkNeighborRequest(request: NeighborRequest): NeighborOptions {
  const depth = request.depth ?? 1;
  checkDepth(depth, LIMITS.neighborDepth, "depth");
  const limit = request.limit ?? LIMITS.neighborLimit;
  checkLimit(limit, "limit");
  checkTypes(request.relationTypes, "relationTypes", checkRelationType);
  checkTypes(request.entityTypes, "entityTypes", checkEntityType);
  return {
    depth,
    limit,
    direction: request.direction ?? "both",
    ...(request.relationTypes !== undefined ? { relationTypes: request.relationTypes } : {}),
    ...(request.entityTypes !== undefined ? { entityTypes: request.entityTypes } : {}),
  };
}

export function checkPathRequest(request: PathRequest): PathOptions {
  const maxDepth = request.maxDepth ?? LIMITS.pathDepth;
  checkDepth(maxDepth, LIMITS.pathDepth, "maxDepth");
  checkTypes(request.relationTypes, "relationTypes", checkRelationType);
  return {
    maxDepth,
    direction: request.direction ?? "both",
    ...(request.relationTypes !== undefined ? { relationTypes: request.relationTypes } : {}),
  };
}
