import MiniSearch, { type SearchResult } from "minisearch";

import { entityOf, type FoldedEntity, GraphFold } from "../domain/feed/fold.js";
import { type ChangeEvent, feedPlace, type FeedPosition } from "../domain/feed/history.js";
import { ValidationError } from "../domain/model/errors.js";
import type { Direction, EntityNode, ReadMode, Relation, TagDefinition, TagUsage } from "../domain/model/model.js";
import { byCreation, compareText } from "../domain/model/order.js";
import {
  type ConflictSearch,
  type EntityHit,
  type EntitySearch,
  type FactConflict,
  type GraphStats,
  type HitExplanation,
  type RelationSearch,
  type StoredPage,
  type WorkspaceSnapshot,
} from "../domain/ports/graphIndex.js";
import type { TraversalPort } from "../domain/rules/navigation.js";
import { type SearchText, searchTextOf, substringRank } from "../domain/rules/search.js";
import { factKeyName, factOf, type TimeLens } from "../domain/rules/validity.js";
import { shownObservationKeys, statsOf, tagsCarriedBy, tagUsageOf } from "./graphStats.js";
import { fuse, FUSION, type GraphEdge } from "./hybrid.js";
import { entityThrough, itemShows, relationVisible, traversalThroughLens } from "./lensView.js";
import { type EstimatedGraph, MemoryEstimate } from "./memoryEstimate.js";
import { normalizedText, searchForms, searchTerm, tokenize } from "./text.js";
import { nameText, VectorSpace } from "./vectors.js";

/** One entity as the index holds it: as the fold holds it (domain/feed/fold.ts). */
type Item = FoldedEntity;

interface Doc {
  id: string;
  name: string;
  entityType: string;
  observations: string;
}

type Field = EntityHit["matchedFields"][number];

/** Workspaces this large drop their most common terms from multi-word queries (withoutCommonTerms). */
const PRUNE_FROM_ENTITIES = 1000;

const FUZZY = (term: string): number | false => (term.length >= 8 ? 2 : term.length >= 5 ? 1 : false);
const BOOST = { name: 4, entityType: 1.5, observations: 1 };

/**
 * One workspace's index: the graph as the one fold of the feed holds it (domain/feed/fold.ts: entities, relations both
 * ways, tag definitions), a MiniSearch full-text index over names, types and observations, and the feed position it is
 * current to. Built from a snapshot, then kept current by folding the feed's events in; the fold says which entities
 * and relations each batch touched, and exactly those are re-indexed and re-counted.
 */
export class WorkspaceIndex {
  private readonly graph = new GraphFold();
  private readonly text = new MiniSearch<Doc>({
    fields: ["name", "entityType", "observations"],
    tokenize,
    // Words first (docs/search.md#search_entities): stemmed, stop words dropped, in the index and in queries alike.
    processTerm: searchForms,
    searchOptions: { tokenize, processTerm: searchForms },
  });
  /** search_nodes' lower-cased text of an entity, made on first use and dropped when the fold touches it. */
  private readonly lowered = new Map<string, SearchText>();
  /** An entity's name as search terms (normalizedText), for the exact-name rule; made on first use, dropped likewise. */
  private readonly nameTerms = new Map<string, string>();
  private sortedIds: string[] | undefined;
  private firstWriteAt: string | undefined;
  private lastWriteAt: string | undefined;
  /** Kept per entity and relation as events apply (memoryEstimate.ts), looking up what is held through `held`. */
  private memory = new MemoryEstimate();
  private readonly held: EstimatedGraph = {
    entity: (id) => this.graph.entities.get(id),
    relation: (id) => this.graph.relations.get(id),
    definitions: () => this.graph.definitions.values(),
  };
  /** The feed place (feedPlace) of the newest event applied: an event placed before it cannot be applied after it. */
  private newestPlace = "";
  /** Each entity's texts' vectors (src/search/vectors.ts), when search by meaning is on; filled by src/search/meaning.ts. */
  readonly vectors: VectorSpace | undefined;

  private constructor(
    public position: FeedPosition,
    public generation: string | undefined,
    model: string | undefined,
  ) {
    this.vectors = model === undefined ? undefined : new VectorSpace(model);
  }

  /**
   * `model` names the embedder whose vectors the index keeps (none: search by meaning is off); `previous`, the index this one
   * replaces, lends its vectors for the texts both hold.
   */
  static build(
    snapshot: WorkspaceSnapshot,
    generation: string | undefined,
    options: { model?: string; previous?: WorkspaceIndex } = {},
  ): WorkspaceIndex {
    const index = new WorkspaceIndex(snapshot.position, generation, options.model);
    const { graph } = index;
    for (const node of snapshot.nodes) {
      graph.putEntity(node.entity, snapshot.versions.get(node.entity.id));
      index.noteWrite(node.entity.createdAt, node.entity.updatedAt);
      for (const relation of node.relations) {
        graph.putRelation(relation);
        index.noteWrite(relation.createdAt, relation.updatedAt);
      }
    }
    for (const tag of snapshot.tags) graph.putDefinition(tag);
    index.text.addAll([...graph.entities.values()].map(docOf));
    index.memory = MemoryEstimate.of(graph.entities, graph.relations, graph.definitions.values());
    if (index.vectors) for (const item of graph.entities.values()) index.vectors.track(item.id, textsOf(item));
    index.vectors?.adopt(options.previous?.vectors);
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

  /** Folds events in (in the feed's order), then re-indexes and re-counts what they touched. */
  apply(events: readonly ChangeEvent[]): void {
    // Most reads bring no event: nothing to apply or re-index.
    if (events.length === 0) return;
    for (const event of events) {
      this.noteWrite(event.at, event.at);
      const place = feedPlace(event);
      if (place > this.newestPlace) this.newestPlace = place;
    }
    const touched = this.graph.apply(events);
    for (const id of touched.entities) {
      const item = this.graph.entities.get(id);
      const indexed = this.text.has(id);
      if (indexed) this.text.discard(id);
      if (item) this.text.add(docOf(item));
      // An entity came or went: the sorted ids are made again on the next page.
      if (indexed !== (item !== undefined)) this.sortedIds = undefined;
      this.lowered.delete(id);
      this.nameTerms.delete(id);
      if (item) this.vectors?.track(id, textsOf(item));
      else this.vectors?.untrack(id);
    }
    this.memory.update(touched, this.held);
  }

  estimatedBytes(): number {
    return this.memory.bytes() + (this.vectors?.bytes() ?? 0);
  }

  page(options: { limit?: number; after?: string; mode?: ReadMode }): StoredPage {
    const ids = this.ids();
    const start = options.after === undefined ? 0 : firstAfter(ids, options.after);
    const end = options.limit === undefined ? ids.length : Math.min(ids.length, start + options.limit);
    const names = options.mode === "names";
    const page: StoredPage = { entities: [], relations: [] };
    for (const id of ids.slice(start, end)) {
      const item = this.graph.entities.get(id)!;
      page.entities.push(names ? { ...entityOf(item, false), observations: [], observationTags: new Map(), metadata: {} } : entityOf(item));
      for (const relation of this.graph.relationsOf(id)) {
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
    for (const item of this.graph.entities.values()) {
      let lower = this.lowered.get(item.id);
      if (!lower) {
        lower = searchTextOf({ name: item.name, entityType: item.entityType, observations: contentsOf(item) });
        this.lowered.set(item.id, lower);
      }
      const rank = substringRank(lower, needle);
      if (rank !== undefined) ranked.push({ rank, item });
    }
    return ranked
      .sort((a, b) => a.rank - b.rank || byCreation(a.item, b.item))
      .slice(0, limit)
      .map(({ item }) => ({ entity: entityOf(item), relations: this.graph.relationsOf(item.id) }));
  }

  listTags(): TagDefinition[] {
    return [...this.graph.definitions.values()];
  }

  tagUsage(lens?: TimeLens): TagUsage[] {
    return tagUsageOf(this.graph, lens);
  }

  /**
   * Ranked search, or, without a query, every entity the filters admit by name. `mode` picks the rankers
   * (docs/search.md#hybrid-retrieval): "words" is BM25 over name, type and observations (the last term also as a prefix,
   * bounded typo tolerance); "meaning" is the nearest texts to `queryVector` (src/search/vectors.ts); "hybrid", the default,
   * fuses both with the graph's neighbours of the strongest hits (src/search/hybrid.ts). An entity whose name is the query
   * (normalised) ranks first in "words" and "hybrid". `after` continues after that entity's hit. Without a query vector (search
   * by meaning off, or the embedder unavailable) "hybrid" fuses words and graph.
   */
  searchEntities(
    search: EntitySearch,
    page: { after?: string; limit: number },
    queryVector?: Float32Array,
  ): { hits: EntityHit[]; more: boolean } {
    const { lens } = search;
    const admits = (item: Item) => itemShows(item, lens) && this.admits(item, search);
    const query = search.query?.trim() ?? "";
    const mode = search.mode ?? "hybrid";
    let ranked: Ranked[];
    if (query === "") {
      ranked = [...this.graph.entities.values()]
        .filter(admits)
        .sort((a, b) => compareText(a.name, b.name) || compareText(a.id, b.id))
        .map((item) => ({ item, score: 0 }));
    } else {
      const wanted = normalizedText(query);
      const exact = (item: Item) => this.nameTermsOf(item) === wanted;
      // An entity named exactly the query ranks first, found or not by a ranker: a name of stop words ("IT", "Will") has no
      // search term for the words ranker to find, and its vector may be far from anything.
      const withExactNames = <Hit extends { item: Item; score: number }>(hits: Hit[]): (Hit | { item: Item; score: number })[] => {
        if (wanted === "") return hits;
        const held = new Set(hits.map((hit) => hit.item.id));
        const missing = [...this.graph.entities.values()].filter((item) => !held.has(item.id) && exact(item) && admits(item));
        return [...hits, ...missing.map((item) => ({ item, score: 0 }))];
      };
      // What the words ranker looks up: in a large workspace, without the query's most common words (withoutCommonTerms).
      const searched = mode === "meaning" ? query : this.withoutCommonTerms(query);
      // Equal scores are ordered by name, then id, in every ranker: ranks never depend on ids (which differ per workspace).
      const tie = (a: string, b: string) =>
        compareText(this.graph.entities.get(a)!.name, this.graph.entities.get(b)!.name) || compareText(a, b);
      const words =
        mode === "meaning" ? [] : this.wordsRanking(searched, admits, lens).sort((a, b) => b.score - a.score || tie(a.item.id, b.item.id));
      const meaning =
        mode !== "words" && queryVector && this.vectors
          ? this.vectors
              .nearest(
                queryVector,
                (id) => admits(this.graph.entities.get(id)!),
                FUSION.meaningFloor,
                lens && ((id) => hiddenTexts(this.graph.entities.get(id)!, lens)),
              )
              .sort((a, b) => b.similarity - a.similarity || tie(a.id, b.id))
          : [];
      if (mode === "words") {
        ranked = withExactNames(words)
          .sort((a, b) => Number(exact(b.item)) - Number(exact(a.item)) || b.score - a.score || compareText(a.item.name, b.item.name))
          .map((hit, i) => ({ ...hit, explain: { words: { rank: i + 1, score: round(hit.score) } } }));
      } else if (mode === "meaning") {
        ranked = meaning.map(({ id, similarity, text }, i) => {
          const observation = text > 0 ? this.vectors!.textOf(id, text) : undefined;
          return {
            item: this.graph.entities.get(id)!,
            score: similarity,
            ...(observation !== undefined ? { nearest: observation } : {}),
            explain: { meaning: { rank: i + 1, similarity: round(similarity), ...(observation !== undefined ? { observation } : {}) } },
          };
        });
      } else {
        const byId = new Map(words.map((hit) => [hit.item.id, hit]));
        const nearest = meaning.map(({ id, similarity, text }) => ({
          id,
          similarity,
          ...(text > 0 ? { observation: this.vectors!.textOf(id, text)! } : {}),
        }));
        // Coverage is of the words searched: a common word left out does not count against every hit.
        const queryWords = wordsOf(searched);
        ranked = fuse(
          words.map(({ item, score, result }) => ({ id: item.id, score, coverage: coverageOf(queryWords, result.queryTerms) })),
          nearest,
          (id) => this.edgesOf(id, lens),
          (id) => admits(this.graph.entities.get(id)!),
          tie,
        ).map(({ id, score, explain }) => {
          const item = this.graph.entities.get(id)!;
          const observation = explain.meaning?.observation;
          return {
            item,
            score,
            ...(byId.get(id)?.result ? { result: byId.get(id)!.result } : {}),
            ...(observation !== undefined ? { nearest: observation } : {}),
            explain,
          };
        });
        ranked = withExactNames(ranked).sort(
          (a, b) => Number(exact(b.item)) - Number(exact(a.item)) || b.score - a.score || compareText(a.item.name, b.item.name),
        );
      }
    }
    let start = 0;
    if (page.after !== undefined) {
      const at = ranked.findIndex((hit) => hit.item.id === page.after);
      if (at < 0) throw pageLost();
      start = at + 1;
    }
    const shown = ranked.slice(start, start + page.limit).map(({ item, score, result, nearest, explain }): EntityHit => {
      // The index terms that matched (prefix and typo expansions included), as observations are compared in.
      const terms = new Set(Object.keys(result?.match ?? {}));
      const fields = new Set<Field>(Object.values(result?.match ?? {}).flat() as Field[]);
      const entity = entityThrough(entityOf(item), lens)!;
      const matchedObservations = entity.observations.filter(
        (content) => content === nearest || (result !== undefined && holdsTerm(content, terms)),
      );
      // The words matched in observations that do not show only (the entity was found by its name or type).
      if (matchedObservations.length === 0) fields.delete("observations");
      return {
        entity,
        score: mode === "hybrid" && query !== "" ? Math.round(score * 1e6) / 1e6 : round(score),
        matchedFields: (["name", "entityType", "observations"] as const).filter((field) => fields.has(field)),
        matchedObservations,
        ...(item.version !== undefined ? { version: item.version } : {}),
        ...(search.explain && query !== "" && explain ? { explain } : {}),
      };
    });
    return { hits: shown, more: start + page.limit < ranked.length };
  }

  /**
   * BM25 over names, types and observations: every admitted entity the query's words find, best first. The index holds every
   * held observation's words; through `lens`, an entity whose words matched only in observations that do not show is not
   * found (its score may still count those words alongside ones that do show: one document per entity, docs/search.md).
   */
  private wordsRanking(
    query: string,
    admits: (item: Item) => boolean,
    lens: TimeLens | undefined,
  ): { item: Item; score: number; result: SearchResult }[] {
    return this.text
      .search(query, {
        boost: BOOST,
        prefix: (_term, i, terms) => i === terms.length - 1,
        fuzzy: FUZZY,
        filter: (result) => {
          const item = this.graph.entities.get(String(result.id))!;
          return admits(item) && foundByShown(item, result, lens);
        },
      })
      .map((result) => ({ item: this.graph.entities.get(String(result.id))!, score: result.score, result }));
  }

  /** An entity's name as search terms (normalizedText), made on first use. */
  private nameTermsOf(item: Item): string {
    let name = this.nameTerms.get(item.id);
    if (name === undefined) {
      name = normalizedText(item.name);
      this.nameTerms.set(item.id, name);
    }
    return name;
  }

  /** The relations touching an entity that show through `lens`, as the graph ranker follows them (by name, for the explanation). */
  private edgesOf(id: string, lens: TimeLens | undefined): GraphEdge[] {
    const nameOf = (entityId: string) => this.graph.entities.get(entityId)?.name ?? entityId;
    // By names, so the relation an explanation names does not depend on ids (which differ per workspace).
    return this.graph
      .relationsOf(id)
      .filter((relation) => relationVisible(relation, lens, this.showsThrough(lens)))
      .map((relation) => ({
        neighbour: relation.fromEntityId === id ? relation.toEntityId : relation.fromEntityId,
        from: nameOf(relation.fromEntityId),
        relationType: relation.relationType,
        to: nameOf(relation.toEntityId),
      }))
      .sort((a, b) => compareText(a.from, b.from) || compareText(a.relationType, b.relationType) || compareText(a.to, b.to));
  }

  searchRelations(search: RelationSearch, page: { after?: string; limit: number }): { relations: Relation[]; more: boolean } {
    const typeOf = (id: string) => this.graph.entities.get(id)?.entityType;
    const shows = this.showsThrough(search.lens);
    const found = [...this.graph.relations.values()]
      .filter(
        (relation) =>
          relationVisible(relation, search.lens, shows) &&
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

  stats(lens?: TimeLens): GraphStats {
    return statsOf(this.graph, { firstWriteAt: this.firstWriteAt, lastWriteAt: this.lastWriteAt }, lens);
  }

  /**
   * list_conflicts: entities that show holding two or more current observations (through `lens`) on one key whose values
   * differ (trimmed, without case), by entity name then key. Only entities with a `key:`-shaped observation are looked at
   * twice; the rest cost one regular-expression test per observation.
   */
  conflicts(search: ConflictSearch): FactConflict[] {
    const current = { ...search.lens, includeSuperseded: false };
    const only = search.key === undefined ? undefined : factKeyName(search.key);
    const found: FactConflict[] = [];
    for (const item of this.graph.entities.values()) {
      if (!itemShows(item, current)) continue;
      const shown = shownObservationKeys(item, current);
      const byKey = new Map<string, { observation: string; value: string; validFrom?: string }[]>();
      for (const [id, content] of item.observations) {
        if (shown && !shown.has(id)) continue;
        const fact = factOf(content);
        if (!fact || (only !== undefined && fact.key !== only)) continue;
        const validFrom = item.observationValidity?.get(id)?.validFrom;
        const values = byKey.get(fact.key) ?? [];
        values.push({ observation: content, value: fact.value.toLowerCase(), ...(validFrom ? { validFrom } : {}) });
        byKey.set(fact.key, values);
      }
      for (const [key, values] of byKey) {
        if (new Set(values.map(({ value }) => value)).size < 2) continue;
        found.push({
          entityId: item.id,
          entityName: item.name,
          entityType: item.entityType,
          key,
          values: values.map(({ observation, validFrom }) => ({ observation, ...(validFrom ? { validFrom } : {}) })),
        });
      }
    }
    return found.sort((a, b) => compareText(a.entityName, b.entityName) || compareText(a.key, b.key));
  }

  /**
   * The traversal port over what the index holds now (get_neighbors, find_path): the same nodes the
   * storage port assembles (relations oldest first), read from memory, so a walk costs no request.
   */
  traversal(lens?: TimeLens): TraversalPort {
    const nodeOf = (id: string, direction: Direction): EntityNode | undefined => {
      const item = this.graph.entities.get(id);
      if (!item) return undefined;
      const relations = this.graph
        .relationsOf(id)
        .filter((relation) => (direction !== "in" && relation.fromEntityId === id) || (direction !== "out" && relation.toEntityId === id));
      return { entity: entityOf(item), relations };
    };
    return traversalThroughLens(
      {
        nodes: (_workspace, entityIds) => Promise.resolve(entityIds.map((id) => nodeOf(id, "both"))),
        edges: (_workspace, entityIds, direction) => Promise.resolve(entityIds.map((id) => nodeOf(id, direction))),
      },
      lens,
      this.showsThrough(lens),
    );
  }

  /** Whether an entity is held and shows through `lens` (expiry is the only thing that hides an entity). */
  private showsThrough(lens: TimeLens | undefined): (id: string) => boolean {
    return (id) => {
      const item = this.graph.entities.get(id);
      return item !== undefined && itemShows(item, lens);
    };
  }

  /**
   * The query without the terms most entities hold, when it has others: BM25 weighs a term in more than
   * half the entities at nearly nothing, yet scoring it visits all of them (the cost of a search is
   * its terms' postings). A query of common terms only is kept whole, and so is every query of a small
   * workspace, where the cost does not matter and the low-ranked hits may.
   */
  private withoutCommonTerms(query: string): string {
    // Words as typed (the search stems them again), each with its term; stop words have none and go.
    const words = tokenize(query).flatMap((word) => {
      const term = searchTerm(word);
      return term === null ? [] : [{ word, term }];
    });
    const entities = this.graph.entities.size;
    if (words.length < 2 || entities < PRUNE_FROM_ENTITIES) return query;
    const rare = words.filter(({ term }, i) => i === words.length - 1 || this.documentFrequency(term) * 2 <= entities);
    return rare.length === words.length || rare.length === 0 ? query : rare.map(({ word }) => word).join(" ");
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
      const carried = tagsCarriedBy(item);
      if (!search.tags.every((tag) => carried.has(tag))) return false;
    }
    return true;
  }

  private ids(): string[] {
    this.sortedIds ??= [...this.graph.entities.keys()].sort(compareText);
    return this.sortedIds;
  }

  private noteWrite(first: string, last: string): void {
    if (first && (this.firstWriteAt === undefined || first < this.firstWriteAt)) this.firstWriteAt = first;
    if (last && (this.lastWriteAt === undefined || last > this.lastWriteAt)) this.lastWriteAt = last;
  }
}

const contentsOf = (item: Item): string[] => [...item.observations.values()];

/** Whether the content holds one of the index terms (as the query's matches are compared). */
const holdsTerm = (content: string, terms: ReadonlySet<string>): boolean =>
  tokenize(content).some((word) => searchForms(word)?.some((term) => terms.has(term)));

/**
 * Whether a words match stands through `lens`: found by name or type, or by a term some shown observation holds. An entity
 * whose observations all show (the usual case) is not looked at again.
 */
function foundByShown(item: Item, result: SearchResult, lens: TimeLens | undefined): boolean {
  const shown = shownObservationKeys(item, lens);
  if (!shown) return true;
  const terms = new Set<string>();
  for (const [term, fields] of Object.entries(result.match)) {
    if (fields.includes("name") || fields.includes("entityType")) return true;
    terms.add(term);
  }
  for (const key of shown) if (holdsTerm(item.observations.get(key)!, terms)) return true;
  return false;
}

/** The texts of an entity the meaning ranker must not count through `lens` (VectorSpace.nearest: text i is observation i - 1). */
function hiddenTexts(item: Item, lens: TimeLens): ReadonlySet<number> | undefined {
  const shown = shownObservationKeys(item, lens);
  if (!shown) return undefined;
  const hidden = new Set<number>();
  [...item.observations.keys()].forEach((key, i) => {
    if (!shown.has(key)) hidden.add(i + 1);
  });
  return hidden;
}

/** The texts an entity is embedded as (src/search/vectors.ts): its name with its type, then each observation. */
const textsOf = (item: Item): string[] => [nameText(item.name, item.entityType), ...contentsOf(item)];

const round = (value: number) => Math.round(value * 1000) / 1000;

/** The query's words that are not stop words, each as the terms it is looked up by (searchForms). */
function wordsOf(query: string): string[][] {
  return tokenize(query).flatMap((word) => {
    const forms = searchForms(word);
    return forms ? [forms] : [];
  });
}

/** The share of the query's words a hit matched (in any of their forms; MiniSearch lists the query terms that matched). */
function coverageOf(queryWords: readonly string[][], matched: readonly string[]): number {
  if (queryWords.length === 0) return 1;
  const found = new Set(matched);
  return queryWords.filter((forms) => forms.some((form) => found.has(form))).length / queryWords.length;
}

/** One hit on its way to a page: what each ranker said of it. */
interface Ranked {
  item: Item;
  score: number;
  /** The words ranker's match (its terms and fields). */
  result?: SearchResult;
  /** The observation the meaning ranker found nearest. */
  nearest?: string;
  explain?: HitExplanation;
}

function docOf(item: Item): Doc {
  return { id: item.id, name: item.name, entityType: item.entityType, observations: contentsOf(item).join("\n") };
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
