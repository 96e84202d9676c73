import MiniSearch, { type SearchResult } from "minisearch";
import { ValidationError } from "../domain/model/errors.js";
import type { EntityHit, EntitySearch, GraphStats, RelationSearch, StoredPage, WorkspaceSnapshot } from "../domain/ports/graphIndex.js";
import {
  feedPlace,
  inFeedOrder,
  type Change,
  type ChangeEvent,
  type EntityState,
  type FeedPosition,
  type RelationState,
} from "../domain/feed/history.js";
import { observationId } from "../domain/model/ids.js";
import type { Direction, Entity, EntityNode, Metadata, ReadMode, Relation, TagDefinition, TagUsage } from "../domain/model/model.js";
import type { TraversalPort } from "../domain/rules/navigation.js";
import { byCreation, compareText, orderKey } from "../domain/model/order.js";
import { searchTextOf, substringRank, type SearchText } from "../domain/rules/search.js";
import { MemoryEstimate, type EstimatedGraph } from "./memoryEstimate.js";
import { normalizedText, normalizeTerm, termsOf, tokenize } from "./text.js";

/** One entity as the index holds it: observations by content (unique within an entity), in the order added. */
interface Item {
  id: string;
  name: string;
  entityType: string;
  metadata: Metadata;
  createdAt: string;
  updatedAt: string;
  createdBy?: string;
  updatedBy?: string;
  order: string;
  version?: string;
  observations: Map<string, Set<string>>;
  tags: Set<string>;
  /** search_nodes' lower-cased text, made on first use and dropped on change. */
  lower?: SearchText;
  /** The name as search terms (normalizedText), for the exact-name rule; made on first use. */
  terms?: string;
}

type IndexedRelation = Relation & { version?: string };

interface Doc {
  id: string;
  name: string;
  entityType: string;
  observations: string;
}

type Field = EntityHit["matchedFields"][number];

/** Workspaces this large drop their most common terms from multi-word queries (withoutCommonTerms). */
const PRUNE_FROM_ENTITIES = 1000;

/** How many entities get_stats lists as the most connected. */
const MOST_CONNECTED = 10;

const FUZZY = (term: string): number | false => (term.length >= 8 ? 2 : term.length >= 5 ? 1 : false);
const BOOST = { name: 4, entityType: 1.5, observations: 1 };

/**
 * One workspace's index: the graph as the index holds it (entities, relations both ways, tag
 * definitions), a MiniSearch full-text index over names, types and observations, and the feed
 * position it is current to. Built from a snapshot, then kept current by applying the feed's events in order;
 * every event sets state (creates, replaces or removes), so applying one the snapshot already reflects changes nothing.
 */
export class WorkspaceIndex {
  private readonly items = new Map<string, Item>();
  private readonly relations = new Map<string, IndexedRelation>();
  private readonly adjacency = new Map<string, Set<string>>();
  private readonly definitions = new Map<string, TagDefinition>();
  private readonly text = new MiniSearch<Doc>({
    fields: ["name", "entityType", "observations"],
    tokenize,
    processTerm: normalizeTerm,
    searchOptions: { tokenize, processTerm: normalizeTerm },
  });
  private readonly stale = new Set<string>();
  private sortedIds: string[] | undefined;
  private firstWriteAt: string | undefined;
  private lastWriteAt: string | undefined;
  /** Kept per entity and relation as events apply (memoryEstimate.ts), looking up what is held through `held`. */
  private memory = new MemoryEstimate();
  private readonly held: EstimatedGraph = {
    entity: (id) => this.items.get(id),
    relation: (id) => this.relations.get(id),
    definitions: () => this.definitions.values(),
  };
  /** The feed place (feedPlace) of the newest event applied: an event placed before it cannot be applied after it. */
  private newestPlace = "";

  private constructor(
    public position: FeedPosition,
    public generation: string | undefined,
  ) {}

  static build(snapshot: WorkspaceSnapshot, generation: string | undefined): WorkspaceIndex {
    const index = new WorkspaceIndex(snapshot.position, generation);
    for (const node of snapshot.nodes) {
      index.putEntity(node.entity, snapshot.versions.get(node.entity.id));
      for (const relation of node.relations) index.putRelation(relation);
    }
    for (const tag of snapshot.tags) index.definitions.set(tag.name, tag);
    index.text.addAll([...index.items.values()].map(docOf));
    index.stale.clear();
    index.memory = MemoryEstimate.of(index.items, index.relations, index.definitions.values());
    index.apply(snapshot.events);
    return index;
  }

  /**
   * Whether these events (not applied yet) can be applied on top of this index: none is placed before one already applied
   * in the feed's order (docs/architecture.md#the-feeds-order). One that arrived late (it became visible after a
   * later-committed event was read), and applying it now would undo that later change: the index is built again instead.
   */
  accepts(events: readonly ChangeEvent[]): boolean {
    return events.every((event) => feedPlace(event) > this.newestPlace);
  }

  /** Applies events in the feed's order, then re-indexes the entities whose text changed. */
  apply(events: readonly ChangeEvent[]): void {
    // Most reads bring no event: nothing to apply or re-index.
    if (events.length === 0 && this.stale.size === 0) return;
    for (const event of inFeedOrder(events)) {
      event.changes.forEach((change, i) => this.applyChange(change, event, i));
      this.noteWrite(event.at, event.at);
      const place = feedPlace(event);
      if (place > this.newestPlace) this.newestPlace = place;
    }
    for (const id of this.stale) {
      const item = this.items.get(id);
      if (this.text.has(id)) this.text.discard(id);
      if (item) this.text.add(docOf(item));
    }
    this.stale.clear();
    this.memory.update(events, this.held);
  }

  estimatedBytes(): number {
    return this.memory.bytes();
  }

  page(options: { limit?: number; after?: string; mode?: ReadMode }): StoredPage {
    const ids = this.ids();
    const start = options.after === undefined ? 0 : firstAfter(ids, options.after);
    const end = options.limit === undefined ? ids.length : Math.min(ids.length, start + options.limit);
    const names = options.mode === "names";
    const page: StoredPage = { entities: [], relations: [] };
    for (const id of ids.slice(start, end)) {
      const item = this.items.get(id)!;
      page.entities.push(names ? { ...entityOf(item, false), observations: [], observationTags: new Map(), metadata: {} } : entityOf(item));
      for (const relation of this.relationsOf(id)) {
        if (relation.fromEntityId === id) page.relations.push(names ? { ...relation, metadata: {} } : relation);
      }
    }
    if (end < ids.length) page.after = ids[end - 1];
    page.entities.sort(byCreation);
    page.relations.sort(byCreation);
    return page;
  }

  searchNodes(query: string, limit: number): EntityNode[] {
    const needle = query.toLowerCase();
    const ranked: { rank: number; item: Item }[] = [];
    for (const item of this.items.values()) {
      item.lower ??= searchTextOf({ name: item.name, entityType: item.entityType, observations: [...item.observations.keys()] });
      const rank = substringRank(item.lower, needle);
      if (rank !== undefined) ranked.push({ rank, item });
    }
    return ranked
      .sort((a, b) => a.rank - b.rank || byCreation(a.item, b.item))
      .slice(0, limit)
      .map(({ item }) => ({ entity: entityOf(item), relations: this.relationsOf(item.id) }));
  }

  listTags(): TagDefinition[] {
    return [...this.definitions.values()];
  }

  tagUsage(): TagUsage[] {
    const usage = new Map<string, TagUsage>(
      [...this.definitions.values()].map((tag) => [tag.name, { ...tag, entities: 0, observations: 0 }]),
    );
    const count = (name: string, field: "entities" | "observations") => {
      const counts = usage.get(name) ?? { name, category: "", description: "", entities: 0, observations: 0 };
      counts[field] += 1;
      usage.set(name, counts);
    };
    for (const item of this.items.values()) {
      for (const tag of item.tags) count(tag, "entities");
      for (const tags of item.observations.values()) for (const tag of tags) count(tag, "observations");
    }
    return [...usage.values()];
  }

  /**
   * Ranked search (BM25 over name, type and observations; the last term also as a prefix; bounded
   * typo tolerance), or, without a query, every entity the filters admit by name. An entity whose
   * name is the query (normalised) ranks first. `after` continues after that entity's hit.
   */
  searchEntities(search: EntitySearch, page: { after?: string; limit: number }): { hits: EntityHit[]; more: boolean } {
    const admits = (item: Item) => this.admits(item, search);
    const query = search.query?.trim() ?? "";
    let ranked: { item: Item; score: number; result?: SearchResult; exact: boolean }[];
    if (query === "") {
      ranked = [...this.items.values()]
        .filter(admits)
        .sort((a, b) => compareText(a.name, b.name) || compareText(a.id, b.id))
        .map((item) => ({ item, score: 0, exact: false }));
    } else {
      const wanted = normalizedText(query);
      ranked = this.text
        .search(this.withoutCommonTerms(query), {
          boost: BOOST,
          prefix: (_term, i, terms) => i === terms.length - 1,
          fuzzy: FUZZY,
          filter: (result) => admits(this.items.get(String(result.id))!),
        })
        .map((result) => {
          const item = this.items.get(String(result.id))!;
          item.terms ??= normalizedText(item.name);
          return { item, score: result.score, result, exact: item.terms === wanted };
        })
        .sort((a, b) => Number(b.exact) - Number(a.exact) || b.score - a.score || compareText(a.item.name, b.item.name));
    }
    let start = 0;
    if (page.after !== undefined) {
      const at = ranked.findIndex((hit) => hit.item.id === page.after);
      if (at < 0) throw pageLost();
      start = at + 1;
    }
    const shown = ranked.slice(start, start + page.limit).map(({ item, score, result }) => {
      // The index terms that matched (prefix and typo expansions included), as observations are compared in.
      const terms = new Set(Object.keys(result?.match ?? {}));
      const fields = new Set<Field>(Object.values(result?.match ?? {}).flat() as Field[]);
      const matchedObservations = result
        ? [...item.observations.keys()].filter((content) => termsOf(content).some((t) => terms.has(t)))
        : [];
      return {
        entity: entityOf(item),
        score: Math.round(score * 1000) / 1000,
        matchedFields: (["name", "entityType", "observations"] as const).filter((field) => fields.has(field)),
        matchedObservations,
        ...(item.version !== undefined ? { version: item.version } : {}),
      };
    });
    return { hits: shown, more: start + page.limit < ranked.length };
  }

  searchRelations(search: RelationSearch, page: { after?: string; limit: number }): { relations: Relation[]; more: boolean } {
    const typeOf = (id: string) => this.items.get(id)?.entityType;
    const found = [...this.relations.values()]
      .filter(
        (relation) =>
          (search.relationType === undefined || relation.relationType === search.relationType) &&
          (search.fromId === undefined || relation.fromEntityId === search.fromId) &&
          (search.toId === undefined || relation.toEntityId === search.toId) &&
          (search.entityType === undefined ||
            typeOf(relation.fromEntityId) === search.entityType ||
            typeOf(relation.toEntityId) === search.entityType),
      )
      .sort(byCreation);
    let start = 0;
    if (page.after !== undefined) {
      const at = found.findIndex((relation) => relation.id === page.after);
      if (at < 0) throw pageLost();
      start = at + 1;
    }
    return { relations: found.slice(start, start + page.limit), more: start + page.limit < found.length };
  }

  stats(): GraphStats {
    const entityTypes = new Map<string, number>();
    const relationTypes = new Map<string, number>();
    const writes = new Map<string, number>();
    const wrote = (principal: string | undefined) => principal !== undefined && writes.set(principal, (writes.get(principal) ?? 0) + 1);
    let observations = 0;
    const tags = new Set(this.definitions.keys());
    for (const item of this.items.values()) {
      entityTypes.set(item.entityType, (entityTypes.get(item.entityType) ?? 0) + 1);
      observations += item.observations.size;
      for (const tag of item.tags) tags.add(tag);
      for (const names of item.observations.values()) for (const tag of names) tags.add(tag);
      wroteItem(item, wrote);
    }
    for (const relation of this.relations.values()) {
      relationTypes.set(relation.relationType, (relationTypes.get(relation.relationType) ?? 0) + 1);
      wroteItem(relation, wrote);
    }
    const mostConnected = [...this.items.values()]
      .map((item) => ({ id: item.id, name: item.name, entityType: item.entityType, degree: this.adjacency.get(item.id)?.size ?? 0 }))
      .filter((entry) => entry.degree > 0)
      .sort((a, b) => b.degree - a.degree || compareText(a.name, b.name))
      .slice(0, MOST_CONNECTED);
    const counted = <K extends string>(counts: Map<string, number>, key: K) =>
      [...counts]
        .sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))
        .map(([value, count]) => ({ [key]: value, count }) as Record<K, string> & { count: number });
    return {
      entities: this.items.size,
      relations: this.relations.size,
      observations,
      tags: tags.size,
      entityTypes: counted(entityTypes, "entityType"),
      relationTypes: counted(relationTypes, "relationType"),
      mostConnected,
      writesByPrincipal: [...writes]
        .sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))
        .map(([principal, count]) => ({ principal, writes: count })),
      ...(this.firstWriteAt !== undefined ? { firstWriteAt: this.firstWriteAt } : {}),
      ...(this.lastWriteAt !== undefined ? { lastWriteAt: this.lastWriteAt } : {}),
    };
  }

  /**
   * The traversal port over what the index holds now (get_neighbors, find_path): the same nodes the
   * storage port assembles (relations oldest first), read from memory, so a walk costs no request.
   */
  traversal(): TraversalPort {
    const nodeOf = (id: string, direction: Direction): EntityNode | undefined => {
      const item = this.items.get(id);
      if (!item) return undefined;
      const relations = this.relationsOf(id).filter(
        (relation) => (direction !== "in" && relation.fromEntityId === id) || (direction !== "out" && relation.toEntityId === id),
      );
      return { entity: entityOf(item), relations };
    };
    return {
      nodes: (_workspace, entityIds) => Promise.resolve(entityIds.map((id) => nodeOf(id, "both"))),
      edges: (_workspace, entityIds, direction) => Promise.resolve(entityIds.map((id) => nodeOf(id, direction))),
    };
  }

  /**
   * The query without the terms most entities hold, when it has others: BM25 weighs a term in more than
   * half the entities at nearly nothing, yet scoring it visits all of them (the cost of a search is
   * its terms' postings). A query of common terms only is kept whole, and so is every query of a small
   * workspace, where the cost does not matter and the low-ranked hits may.
   */
  private withoutCommonTerms(query: string): string {
    const terms = termsOf(query);
    if (terms.length < 2 || this.items.size < PRUNE_FROM_ENTITIES) return query;
    const rare = terms.filter((term, i) => i === terms.length - 1 || this.documentFrequency(term) * 2 <= this.items.size);
    return rare.length === terms.length || rare.length === 0 ? query : rare.join(" ");
  }

  /**
   * How many entities hold the term in their most common field. MiniSearch keeps this (its postings per
   * field) but does not expose it; read defensively, so a change of its internals only turns pruning off
   * (test/unit/searchIndex.test.ts notices).
   */
  documentFrequency(term: string): number {
    const internals = this.text as unknown as { _index?: { get?: (term: string) => unknown } };
    const postings = internals._index?.get?.(term);
    if (!(postings instanceof Map)) return 0;
    let most = 0;
    for (const docs of postings.values()) if (docs instanceof Map) most = Math.max(most, docs.size);
    return most;
  }

  private admits(item: Item, search: EntitySearch): boolean {
    if (search.entityType !== undefined && item.entityType !== search.entityType) return false;
    if (search.createdBy !== undefined && item.createdBy !== search.createdBy) return false;
    if (search.updatedSince !== undefined && !(Date.parse(item.updatedAt) >= search.updatedSince)) return false;
    if (search.tags !== undefined && search.tags.length > 0) {
      const carried = new Set(item.tags);
      for (const names of item.observations.values()) for (const tag of names) carried.add(tag);
      if (!search.tags.every((tag) => carried.has(tag))) return false;
    }
    return true;
  }

  private ids(): string[] {
    this.sortedIds ??= [...this.items.keys()].sort(compareText);
    return this.sortedIds;
  }

  private relationsOf(entityId: string): Relation[] {
    const ids = this.adjacency.get(entityId);
    if (!ids) return [];
    return [...ids].map((id) => this.relations.get(id)!).sort(byCreation);
  }

  private putEntity(entity: Entity, version = entity.version): void {
    const observations = new Map<string, Set<string>>(
      entity.observations.map((content) => [content, new Set(entity.observationTags.get(content))]),
    );
    this.items.set(entity.id, {
      id: entity.id,
      name: entity.name,
      entityType: entity.entityType,
      metadata: entity.metadata,
      createdAt: entity.createdAt,
      updatedAt: entity.updatedAt,
      ...(entity.createdBy !== undefined ? { createdBy: entity.createdBy } : {}),
      ...(entity.updatedBy !== undefined ? { updatedBy: entity.updatedBy } : {}),
      order: entity.order,
      ...(version !== undefined ? { version } : {}),
      observations,
      tags: new Set(entity.tags),
    });
    this.sortedIds = undefined;
    this.stale.add(entity.id);
    this.noteWrite(entity.createdAt, entity.updatedAt);
  }

  private putRelation(relation: IndexedRelation): void {
    this.relations.set(relation.id, relation);
    for (const end of [relation.fromEntityId, relation.toEntityId]) {
      const ids = this.adjacency.get(end) ?? new Set<string>();
      ids.add(relation.id);
      this.adjacency.set(end, ids);
    }
    this.noteWrite(relation.createdAt, relation.updatedAt);
  }

  private dropRelation(relationId: string): void {
    const relation = this.relations.get(relationId);
    if (!relation) return;
    this.relations.delete(relationId);
    for (const end of [relation.fromEntityId, relation.toEntityId]) this.adjacency.get(end)?.delete(relationId);
  }

  private noteWrite(first: string, last: string): void {
    if (first && (this.firstWriteAt === undefined || first < this.firstWriteAt)) this.firstWriteAt = first;
    if (last && (this.lastWriteAt === undefined || last > this.lastWriteAt)) this.lastWriteAt = last;
  }

  private applyChange(change: Change, event: ChangeEvent, position: number): void {
    const item = change.entityId === undefined ? undefined : this.items.get(change.entityId);
    const touched = () => {
      if (!item) return;
      item.lower = undefined;
      this.stale.add(item.id);
    };
    switch (change.kind) {
      case "entity.created":
      case "entity.updated": {
        const state = change.after as (EntityState & { version?: string }) | undefined;
        if (!state || change.entityId === undefined) return;
        if (item) {
          Object.assign(item, { name: state.name, entityType: state.entityType, metadata: state.metadata ?? {} });
          // A creation of an entity the index holds is one the scan already saw: its row's times and authors stand.
          if (change.kind === "entity.updated") Object.assign(item, { updatedAt: event.at, updatedBy: event.principal });
          if (state.version !== undefined) item.version = state.version;
          touched();
          return;
        }
        this.putEntity(
          {
            id: change.entityId,
            name: state.name,
            entityType: state.entityType,
            metadata: state.metadata ?? {},
            observations: [],
            tags: [],
            observationTags: new Map(),
            createdAt: event.at,
            updatedAt: event.at,
            createdBy: event.principal,
            updatedBy: event.principal,
            order: orderKey(event.at, position),
          },
          state.version,
        );
        return;
      }
      case "entity.deleted": {
        if (!item) return;
        for (const relationId of [...(this.adjacency.get(item.id) ?? [])]) this.dropRelation(relationId);
        this.adjacency.delete(item.id);
        this.items.delete(item.id);
        this.sortedIds = undefined;
        this.stale.add(item.id);
        return;
      }
      case "observation.created":
        if (item && change.content !== undefined && !item.observations.has(change.content)) {
          item.observations.set(change.content, new Set());
          touched();
        }
        return;
      case "observation.deleted":
        if (item && change.content !== undefined && item.observations.delete(change.content)) touched();
        return;
      case "relation.created":
      case "relation.updated": {
        const state = change.after as (Partial<RelationState> & { version?: string }) | undefined;
        if (!state || change.relationId === undefined) return;
        const existing = this.relations.get(change.relationId);
        const version = state.version ?? existing?.version;
        this.putRelation({
          id: change.relationId,
          fromEntityId: state.fromEntityId ?? existing?.fromEntityId ?? "",
          fromName: state.fromName ?? existing?.fromName ?? "",
          toEntityId: state.toEntityId ?? existing?.toEntityId ?? "",
          toName: state.toName ?? existing?.toName ?? "",
          relationType: state.relationType ?? existing?.relationType ?? "",
          metadata: state.metadata ?? existing?.metadata ?? {},
          ...(existing && change.kind === "relation.created"
            ? authorshipOf(existing)
            : {
                createdAt: existing?.createdAt ?? event.at,
                updatedAt: event.at,
                createdBy: existing?.createdBy ?? event.principal,
                updatedBy: event.principal,
              }),
          order: existing?.order ?? orderKey(event.at, position),
          ...(version !== undefined ? { version } : {}),
        });
        return;
      }
      case "relation.deleted":
        if (change.relationId !== undefined) this.dropRelation(change.relationId);
        return;
      case "tag.created":
      case "tag.updated":
      case "tag.deleted": {
        const name = change.tagName;
        if (name === undefined) return;
        if (change.entityId === undefined) {
          // A tag definition (define_tag, delete_tags).
          const state = change.after as { category?: string; description?: string } | undefined;
          if (change.kind === "tag.deleted") this.definitions.delete(name);
          else this.definitions.set(name, { name, category: state?.category ?? "", description: state?.description ?? "" });
          return;
        }
        if (!item) return;
        const target = change.observationId === undefined ? item.tags : this.observationTags(item, change.observationId);
        if (!target) return;
        if (change.kind === "tag.deleted") target.delete(name);
        else {
          target.add(name);
          // Tagging creates the definition when the workspace has none (empty category and description).
          if (!this.definitions.has(name)) this.definitions.set(name, { name, category: "", description: "" });
        }
        return;
      }
    }
  }

  private observationTags(item: Item, id: string): Set<string> | undefined {
    for (const [content, tags] of item.observations) if (observationId(item.id, content) === id) return tags;
    return undefined;
  }
}

function docOf(item: Item): Doc {
  return { id: item.id, name: item.name, entityType: item.entityType, observations: [...item.observations.keys()].join("\n") };
}

function entityOf(item: Item, full = true): Entity {
  const observationTags = new Map<string, string[]>();
  if (full) for (const [content, tags] of item.observations) if (tags.size > 0) observationTags.set(content, [...tags].sort(compareText));
  return {
    id: item.id,
    name: item.name,
    entityType: item.entityType,
    observations: full ? [...item.observations.keys()] : [],
    tags: [...item.tags].sort(compareText),
    observationTags,
    metadata: item.metadata,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    ...(item.createdBy !== undefined ? { createdBy: item.createdBy } : {}),
    ...(item.updatedBy !== undefined ? { updatedBy: item.updatedBy } : {}),
    order: item.order,
    ...(full && item.version !== undefined ? { version: item.version } : {}),
  };
}

/** The times and authors a row records, each author present only when recorded. */
function authorshipOf(row: { createdAt: string; updatedAt: string; createdBy?: string; updatedBy?: string }) {
  return {
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    ...(row.createdBy !== undefined ? { createdBy: row.createdBy } : {}),
    ...(row.updatedBy !== undefined ? { updatedBy: row.updatedBy } : {}),
  };
}

/** An entity or relation counts once for who created it, and once more for who last changed it after. */
function wroteItem(
  item: { createdBy?: string; updatedBy?: string; createdAt: string; updatedAt: string },
  wrote: (principal: string | undefined) => unknown,
): void {
  wrote(item.createdBy);
  if (item.updatedAt > item.createdAt) wrote(item.updatedBy);
}

/** The index of the first id after `after` in sorted `ids`. */
function firstAfter(ids: readonly string[], after: string): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareText(ids[mid]!, after) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

const pageLost = () =>
  new ValidationError(
    "cursor points at a result that is no longer there (the workspace changed since the previous page). Omit cursor to start again.",
  );
