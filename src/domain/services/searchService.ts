import type { CursorCodec } from "../model/cursor.js";
import { ValidationError } from "../model/errors.js";
import { entityId } from "../model/ids.js";
import { LIMITS } from "../model/limits.js";
import type { Relation } from "../model/model.js";
import {
  checkCount,
  checkEntityNameLookup,
  checkEntityType,
  checkLimit,
  checkPrincipal,
  checkRelationType,
  checkSearchQuery,
  checkTagName,
  parseTime,
} from "../model/validation.js";
import type { EntityHit, GraphIndex, GraphStats, SearchMode } from "../ports/graphIndex.js";
import { lensOf, type TimeLens } from "../rules/validity.js";

export const DEFAULT_SEARCH_ENTITIES_LIMIT = 20;
export const DEFAULT_SEARCH_RELATIONS_LIMIT = 50;

/** What a read asks of valid time (docs/history.md#two-times): default, true now. */
export interface LensInput {
  validAt?: string;
  includeSuperseded?: boolean;
}

export interface SearchEntitiesInput extends LensInput {
  query?: string;
  mode?: SearchMode;
  explain?: boolean;
  entityType?: string;
  tags?: string[];
  createdBy?: string;
  updatedSince?: string;
  limit?: number;
  cursor?: string;
}

export interface SearchRelationsInput extends LensInput {
  relationType?: string;
  from?: string;
  to?: string;
  entityType?: string;
  limit?: number;
  cursor?: string;
}

/**
 * One page of a search tool: `nextCursor` when more follow, and `cursorAfter(id)`, the cursor that
 * continues after any item of the page (a maxChars answer that stops early continues after its last item shown).
 */
type SearchPage<P> = P & { nextCursor?: string; cursorAfter: (id: string) => Promise<string> };

/** The lens's part of a cursor's scope: a page holds only for the same valid time asked. */
const lensScope = (input: LensInput) =>
  input.validAt !== undefined || input.includeSuperseded ? [input.validAt ?? null, input.includeSuperseded ?? false] : [];

/**
 * Ranked search and stats over the workspace index (docs/search.md). Checks every input first, so a bad
 * call reads nothing; pages are signed cursors, each valid only for the same query and filters.
 */
export class SearchService {
  constructor(
    private readonly index: GraphIndex,
    private readonly cursors: CursorCodec,
    /** Now, in ms: what "true now" and an expiry are judged against. */
    private readonly clock: () => number = Date.now,
  ) {}

  /** The read's lens, checked (validAt an ISO 8601 time). */
  lens(input: LensInput): TimeLens {
    return lensOf(input, this.clock());
  }

  /** `lens` is the one the caller marks statuses with (this.lens(input)); made from `input` when not given. */
  async searchEntities(
    workspace: string,
    input: SearchEntitiesInput,
    lens: TimeLens = this.lens(input),
  ): Promise<SearchPage<{ hits: EntityHit[]; unavailable?: string }>> {
    const query = input.query?.trim() ?? "";
    if (input.query !== undefined) checkSearchQuery(input.query, "query");
    if (input.entityType !== undefined) checkEntityType(input.entityType, "entityType");
    if (input.tags !== undefined) {
      checkCount(input.tags, "tags", LIMITS.tagsPerCall);
      input.tags.forEach((tag, i) => checkTagName(tag, `tags[${i}]`));
    }
    if (input.createdBy !== undefined) checkPrincipal(input.createdBy, "createdBy");
    const updatedSince = input.updatedSince === undefined ? undefined : parseTime(input.updatedSince, "updatedSince");
    const hasFilter =
      input.entityType !== undefined || (input.tags?.length ?? 0) > 0 || input.createdBy !== undefined || updatedSince !== undefined;
    if (query === "" && !hasFilter) {
      throw new ValidationError(
        "Give a query, or at least one filter (entityType, tags, createdBy, updatedSince) to list by. read_graph with mode 'names' lists everything.",
      );
    }
    const limit = input.limit ?? DEFAULT_SEARCH_ENTITIES_LIMIT;
    checkLimit(limit, "limit");
    const scope = {
      workspace,
      tool: "search_entities" as const,
      // The mode orders the hits, so a cursor holds for it too; explain only adds to them.
      mode: JSON.stringify([
        query,
        input.entityType,
        input.tags,
        input.createdBy,
        updatedSince,
        ...(input.mode && input.mode !== "hybrid" ? [input.mode] : []),
        ...lensScope(input),
      ]),
    };
    const after = input.cursor === undefined ? undefined : await this.cursors.decode(scope, input.cursor);
    const { hits, more, unavailable } = await this.index.searchEntities(
      workspace,
      {
        ...(query !== "" ? { query } : {}),
        ...(input.mode !== undefined ? { mode: input.mode } : {}),
        ...(input.explain ? { explain: true } : {}),
        ...(input.entityType !== undefined ? { entityType: input.entityType } : {}),
        ...(input.tags !== undefined ? { tags: input.tags } : {}),
        ...(input.createdBy !== undefined ? { createdBy: input.createdBy } : {}),
        ...(updatedSince !== undefined ? { updatedSince } : {}),
        lens,
      },
      { limit, ...(after !== undefined ? { after } : {}) },
    );
    const cursorAfter = (entityId: string) => this.cursors.encode(scope, entityId);
    const last = hits[hits.length - 1];
    return {
      hits,
      cursorAfter,
      ...(more && last ? { nextCursor: await cursorAfter(last.entity.id) } : {}),
      ...(unavailable !== undefined ? { unavailable } : {}),
    };
  }

  /** `lens` as for searchEntities. */
  async searchRelations(
    workspace: string,
    input: SearchRelationsInput,
    lens: TimeLens = this.lens(input),
  ): Promise<SearchPage<{ relations: Relation[] }>> {
    if (input.relationType !== undefined) checkRelationType(input.relationType, "relationType");
    if (input.from !== undefined) checkEntityNameLookup(input.from, "from");
    if (input.to !== undefined) checkEntityNameLookup(input.to, "to");
    if (input.entityType !== undefined) checkEntityType(input.entityType, "entityType");
    const limit = input.limit ?? DEFAULT_SEARCH_RELATIONS_LIMIT;
    checkLimit(limit, "limit");
    const scope = {
      workspace,
      tool: "search_relations" as const,
      mode: JSON.stringify([input.relationType, input.from, input.to, input.entityType, ...lensScope(input)]),
    };
    const after = input.cursor === undefined ? undefined : await this.cursors.decode(scope, input.cursor);
    const { relations, more } = await this.index.searchRelations(
      workspace,
      {
        ...(input.relationType !== undefined ? { relationType: input.relationType } : {}),
        ...(input.from !== undefined ? { fromId: entityId(workspace, input.from) } : {}),
        ...(input.to !== undefined ? { toId: entityId(workspace, input.to) } : {}),
        ...(input.entityType !== undefined ? { entityType: input.entityType } : {}),
        lens,
      },
      { limit, ...(after !== undefined ? { after } : {}) },
    );
    const cursorAfter = (relationId: string) => this.cursors.encode(scope, relationId);
    const last = relations[relations.length - 1];
    return { relations, cursorAfter, ...(more && last ? { nextCursor: await cursorAfter(last.id) } : {}) };
  }

  /** get_stats through the read's lens: counts what shows (docs/history.md#two-times). */
  stats(workspace: string, input: LensInput = {}): Promise<GraphStats> {
    return this.index.stats(workspace, this.lens(input));
  }
}
