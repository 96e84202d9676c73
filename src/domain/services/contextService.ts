import { type Change, type ChangeEvent, describeEvent, entitiesOf } from "../feed/history.js";
import { accessTo, type Principal } from "../model/access.js";
import { NotFoundError, ValidationError } from "../model/errors.js";
import { entityId } from "../model/ids.js";
import { LIMITS } from "../model/limits.js";
import type { EntityNode, Relation } from "../model/model.js";
import { checkCount, checkEntityNameLookup, checkSearchQuery } from "../model/validation.js";
import type { EntityHit, GraphIndex } from "../ports/graphIndex.js";
import type { GraphStore } from "../ports/store.js";
import type { WorkspaceStore } from "../ports/workspaceStore.js";
import { type ContextCandidate, type ContextPack, entityKey, packContext, renderBrief } from "../rules/contextPack.js";
import { entityShows, presentLens } from "../rules/validity.js";
import type { SearchService } from "./searchService.js";

export interface ContextInput {
  query?: string;
  entityNames?: string[];
  maxTokens?: number;
}

export interface ContextResult extends ContextPack {
  /** The brief as markdown (renderBrief): what get_context's text and the memory-context prompt carry. */
  brief: string;
}

/** Completion values: at most `max`, and whether more matched. */
export interface Completion {
  values: string[];
  total: number;
  hasMore: boolean;
}

/** How much of an entity's relevance its j-th observation keeps (0.6^(j+1)): the top entities' best facts come before weak entities. */
const OBSERVATION_DECAY = 0.6;
/** A relation between two chosen entities ranks at half their mean; one leading out of the chosen set at a quarter of its end. */
const RELATION_WEIGHT = 0.5;
const OUTWARD_RELATION_WEIGHT = 0.25;
/** A change event at 0.3 of the best entity it touches, less for each newer one before it. */
const EVENT_WEIGHT = 0.3;
const EVENT_DECAY = 0.8;

/**
 * get_context and its prompt (docs/context.md): gathers candidates (the named entities, the query's hits, their most
 * relevant observations, the relations among and around them, and the newest changes touching them) and packs them
 * with the pure rule (rules/contextPack.ts). Also the completions of entity and workspace names.
 *
 * Storage requests with the kept index: the index brought current (1, its feed tail), the search (1, its own) and the
 * recent events of the most relevant entity (1): names and query 3, names only 2, query only 3 (2 when nothing is found).
 */
export class ContextService {
  constructor(
    private readonly index: Pick<GraphIndex, "traversal" | "readGraph">,
    private readonly search: Pick<SearchService, "searchEntities">,
    private readonly store: Pick<GraphStore, "events">,
    private readonly workspaces: Pick<WorkspaceStore, "registered">,
    private readonly clock: () => number = Date.now,
  ) {}

  async context(workspace: string, input: ContextInput): Promise<ContextResult> {
    const { query, names, maxTokens } = checkContextInput(input);
    const searching = query !== undefined ? () => this.hits(workspace, query) : () => Promise.resolve([] as EntityHit[]);
    // With names, they are looked up alone first: an unknown name stops the call before the search and the feed are read.
    // Without, the index and the search are brought current together.
    // The brief holds current facts only (docs/history.md#two-times): the search's hits and the index's nodes, through the
    // present lens; an expired entity named reads as unknown.
    const lens = presentLens(this.clock());
    const [port, early] = await Promise.all([this.index.traversal(workspace, lens), names.length > 0 ? undefined : searching()]);
    const named =
      names.length > 0
        ? await port.nodes(
            workspace,
            names.map((name) => entityId(workspace, name)),
          )
        : [];
    const unknown = names.filter((_, i) => named[i] === undefined);
    if (unknown.length > 0) {
      throw new NotFoundError(
        `No entity named ${unknown.map((name) => `'${name}'`).join(", ")} in workspace '${workspace}' (names match exactly, ` +
          "case included). Find the right names with search_entities, or read_graph with mode 'names'; or pass only a query.",
      );
    }
    const first = named[0]?.entity.id;
    const [hits, firstEvents] = await Promise.all([early ?? searching(), first !== undefined ? this.recent(workspace, first) : undefined]);
    const knownIds = new Set(named.map((node) => node!.entity.id));
    const found = hits.filter((hit) => !knownIds.has(hit.entity.id));
    const top = first ?? found[0]?.entity.id;
    const [hitNodes, events] = await Promise.all([
      found.length > 0
        ? port.nodes(
            workspace,
            found.map((hit) => hit.entity.id),
          )
        : [],
      firstEvents ?? (top !== undefined ? this.recent(workspace, top) : []),
    ]);
    const chosen: Chosen[] = [
      ...named.map((node) => ({ node: node!, preferred: [] as string[] })),
      ...found.flatMap((hit, i) => {
        const node = hitNodes[i];
        return node ? [{ node, preferred: preferredObservations(hit) }] : [];
      }),
    ];
    const pack = packContext(candidates(chosen, events), maxTokens);
    return { ...pack, brief: renderBrief(workspace, pack.items) };
  }

  /**
   * Entity names in the workspace starting with `prefix`, case-insensitively, by name, but those in `exclude` (already
   * chosen), from the index (one request).
   */
  async entityNames(workspace: string, prefix: string, max: number, exclude: readonly string[] = []): Promise<Completion> {
    const { entities } = await this.index.readGraph(workspace, { mode: "names" });
    const wanted = prefix.toLowerCase();
    const skip = new Set(exclude);
    const lens = presentLens(this.clock());
    const matching = entities
      .filter((entity) => entityShows(entity, lens))
      .map((entity) => entity.name)
      .filter((name) => name.toLowerCase().startsWith(wanted) && !skip.has(name))
      .sort();
    return completion(matching, max);
  }

  /** Registered workspaces the principal has a grant for (read or write) whose names start with `prefix` (one registry query). */
  async workspaceNames(principal: Principal, prefix: string, max: number): Promise<Completion> {
    const wanted = prefix.toLowerCase();
    const matching = (await this.workspaces.registered())
      .map((workspace) => workspace.name)
      .filter((name) => accessTo(principal, name) !== undefined && name.toLowerCase().startsWith(wanted))
      .sort();
    return completion(matching, max);
  }

  /**
   * What changed recently, bounded to one small read: the window's events touching the most relevant entity (the first
   * named, else the top hit), filtered by storage. Its events show their changes to every chosen entity.
   */
  private recent(workspace: string, entity: string): Promise<ChangeEvent[]> {
    return this.store.events(workspace, { entityId: entity, fromMs: this.clock() - LIMITS.contextRecentMs });
  }

  private async hits(workspace: string, query: string): Promise<EntityHit[]> {
    // Hybrid, explained: the observation the meaning ranker matched is the entity's most relevant one (docs/search.md).
    const page = await this.search.searchEntities(workspace, { query, mode: "hybrid", explain: true, limit: LIMITS.contextHits });
    return page.hits;
  }
}

interface Chosen {
  node: EntityNode;
  /** Observations the search named, most relevant first. */
  preferred: string[];
}

function checkContextInput(input: ContextInput): { query?: string; names: string[]; maxTokens: number } {
  const query = input.query?.trim() ?? "";
  if (input.query !== undefined) checkSearchQuery(input.query, "query");
  const names = [...new Set(input.entityNames ?? [])];
  checkCount(names, "entityNames", LIMITS.contextEntityNames);
  names.forEach((name, i) => checkEntityNameLookup(name, `entityNames[${i}]`));
  if (query === "" && names.length === 0) {
    throw new ValidationError("Give a query, or entityNames (at least one), or both: get_context needs something to start from.");
  }
  const maxTokens = input.maxTokens ?? LIMITS.contextDefaultTokens;
  if (!Number.isInteger(maxTokens) || maxTokens < LIMITS.contextMinTokens || maxTokens > LIMITS.contextMaxTokens) {
    throw new ValidationError(
      `maxTokens must be a whole number from ${LIMITS.contextMinTokens} to ${LIMITS.contextMaxTokens}; got ${maxTokens}.`,
    );
  }
  return { ...(query !== "" ? { query } : {}), names, maxTokens };
}

/** The observation the meaning ranker matched, then those the words matched. */
function preferredObservations(hit: EntityHit): string[] {
  const explained = hit.explain?.meaning?.observation;
  return [...(explained !== undefined ? [explained] : []), ...hit.matchedObservations];
}

/** Every candidate item, with its relevance (docs/context.md#ranking); packContext dedupes and cuts. */
function candidates(chosen: readonly Chosen[], events: readonly ChangeEvent[]): ContextCandidate[] {
  const relevance = new Map(chosen.map(({ node }, position) => [node.entity.id, 1 / (position + 1)]));
  const items: ContextCandidate[] = [];
  for (const { node, preferred } of chosen) {
    const { entity } = node;
    const entityRelevance = relevance.get(entity.id)!;
    const entitySource = { kind: "entity" as const, id: entity.id, name: entity.name };
    items.push({ source: entitySource, text: `${entity.name} (${entity.entityType})`, relevance: entityRelevance });
    const stored = new Set(entity.observations);
    // Preferred first, then the newest (observations are kept in the order added).
    const ordered = [...new Set([...preferred.filter((text) => stored.has(text)), ...[...entity.observations].reverse()])];
    ordered.slice(0, LIMITS.contextObservationsPerEntity).forEach((observation, j) => {
      items.push({
        source: { kind: "observation", entity: entity.name, observation },
        text: observation,
        relevance: entityRelevance * OBSERVATION_DECAY ** (j + 1),
        requires: [entityKey(entity.id)],
      });
    });
    for (const relation of node.relations) items.push(relationCandidate(relation, relevance));
  }
  items.push(...eventCandidates(events, relevance));
  return items;
}

function relationCandidate(relation: Relation, relevance: ReadonlyMap<string, number>): ContextCandidate {
  const from = relevance.get(relation.fromEntityId);
  const to = relevance.get(relation.toEntityId);
  const ends = [from !== undefined ? relation.fromEntityId : undefined, to !== undefined ? relation.toEntityId : undefined];
  const score = from !== undefined && to !== undefined ? ((from + to) / 2) * RELATION_WEIGHT : (from ?? to ?? 0) * OUTWARD_RELATION_WEIGHT;
  return {
    source: { kind: "relation", id: relation.id, from: relation.fromName, relationType: relation.relationType, to: relation.toName },
    text: `${relation.fromName} -[${relation.relationType}]-> ${relation.toName}`,
    relevance: score,
    // The chosen ends must be in the brief; an end outside the chosen set is named by the line itself.
    requires: ends.filter((id): id is string => id !== undefined).map(entityKey),
  };
}

/** The newest events touching a chosen entity, each shown with only its changes to chosen entities. */
function eventCandidates(events: readonly ChangeEvent[], relevance: ReadonlyMap<string, number>): ContextCandidate[] {
  const items: ContextCandidate[] = [];
  for (const event of [...events].reverse()) {
    if (items.length >= LIMITS.contextEvents) break;
    const changes = event.changes.filter((change) => bestOf(change, relevance) > 0);
    if (changes.length === 0) continue;
    const best = Math.max(...changes.map((change) => bestOf(change, relevance)));
    items.push({
      source: { kind: "event", id: event.id, at: event.at, tool: event.tool },
      text: `${event.at} ${describeEvent({ ...event, changes })}`,
      relevance: best * EVENT_WEIGHT * EVENT_DECAY ** items.length,
    });
  }
  return items;
}

/** The relevance of the most relevant chosen entity a change touches (a merge's target too); 0 when it touches none. */
function bestOf(change: Change, relevance: ReadonlyMap<string, number>): number {
  const touched = [...entitiesOf(change), ...(change.mergedInto !== undefined ? [change.mergedInto] : [])];
  return Math.max(0, ...touched.map((id) => relevance.get(id) ?? 0));
}

function completion(matching: readonly string[], max: number): Completion {
  return { values: matching.slice(0, max), total: matching.length, hasMore: matching.length > max };
}
