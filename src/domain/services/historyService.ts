import type { CursorCodec } from "../model/cursor.js";
import { NotFoundError, ValidationError } from "../model/errors.js";
import { describeEvent, CHANGE_KINDS, type ChangeEvent, type ChangeKind } from "../feed/history.js";
import { entityId as entityIdOf } from "../model/ids.js";
import type { Actor, Direction, Entity, EntityNode, Relation } from "../model/model.js";
import { GraphReplay } from "../feed/replay.js";
import { EntityRestore, touchesEntity, type RestoreReport } from "./restore.js";
import type { GraphStore } from "../ports/store.js";
import { subgraph } from "../rules/subgraph.js";
import { checkCount, checkEntityName, checkLimit, checkPrincipal } from "../model/validation.js";

/**
 * History over the change feed (docs/history.md): the workspace's changes, one entity's history,
 * reads as of a past time, and restoring a deleted entity. Every answer is rebuilt from events.
 */

const DEFAULT_CHANGES_LIMIT = 50;

export interface ChangesQuery {
  since?: string;
  until?: string;
  entityName?: string;
  kinds?: string[];
  principal?: string;
  order?: "newest" | "oldest";
  limit?: number;
  cursor?: string;
}

export interface ChangesPage {
  events: (ChangeEvent & { summary: string })[];
  cursor?: string;
}

export class HistoryService {
  constructor(
    private readonly store: GraphStore,
    private readonly cursors: CursorCodec,
  ) {}

  async changes(workspace: string, query: ChangesQuery): Promise<ChangesPage> {
    const since = query.since === undefined ? undefined : parseTime(query.since, "since");
    const until = query.until === undefined ? undefined : parseTime(query.until, "until");
    if (since !== undefined && until !== undefined && since > until) throw new ValidationError("since is after until: swap them.");
    const kinds = query.kinds === undefined ? undefined : checkKinds(query.kinds);
    if (query.entityName !== undefined) checkEntityName(query.entityName, "entityName");
    if (query.principal !== undefined) checkPrincipal(query.principal, "principal");
    const order = query.order ?? "newest";
    const limit = query.limit ?? DEFAULT_CHANGES_LIMIT;
    checkLimit(limit, "limit");
    const scope = {
      workspace,
      tool: "get_changes" as const,
      mode: JSON.stringify([query.since, query.until, query.entityName, kinds, query.principal, order]),
    };
    const after = query.cursor === undefined ? undefined : await this.cursors.decode(scope, query.cursor);
    const events = await this.store.events(workspace, {
      ...(since !== undefined ? { fromMs: since } : {}),
      ...(until !== undefined ? { toMs: until + 1 } : {}),
      ...(query.entityName !== undefined ? { entityId: entityIdOf(workspace, query.entityName) } : {}),
      ...(query.principal !== undefined ? { principal: query.principal } : {}),
    });
    const matching = events
      .map((event) => (kinds ? { ...event, changes: event.changes.filter((change) => kinds.has(change.kind)) } : event))
      .filter((event) => event.changes.length > 0);
    return this.page(matching, order, limit, after, (last) => this.cursors.encode(scope, last));
  }

  async entityHistory(
    workspace: string,
    ref: { id: string; label: string },
    options: { limit?: number; cursor?: string },
  ): Promise<ChangesPage> {
    const limit = options.limit ?? DEFAULT_CHANGES_LIMIT;
    checkLimit(limit, "limit");
    const scope = { workspace, tool: "get_entity_history" as const, mode: ref.id };
    const after = options.cursor === undefined ? undefined : await this.cursors.decode(scope, options.cursor);
    const events = await this.store.events(workspace, { entityId: ref.id });
    if (events.length === 0) {
      throw new NotFoundError(
        `Entity '${ref.label}' has no history in workspace '${workspace}' (no recorded change touched it). Names match exactly.`,
      );
    }
    // Only the entity's own changes: an event of a bulk call also holds its changes to every other entity.
    const own = events
      .map((event) => ({ ...event, changes: event.changes.filter((change) => touchesEntity(change, ref.id)) }))
      .filter((event) => event.changes.length > 0);
    return this.page(own, "oldest", limit, after, (last) => this.cursors.encode(scope, last));
  }

  /** The whole graph as of `asOf`, rebuilt from every event up to then. */
  async graphAsOf(workspace: string, asOf: string): Promise<{ entities: Entity[]; relations: Relation[] }> {
    const at = await this.checkAsOf(workspace, asOf);
    return new GraphReplay().apply(await this.store.events(workspace, { toMs: at + 1 })).graph();
  }

  /** The named entities as of `asOf` (each rebuilt from its own history) and every relation touching them. */
  async nodesAsOf(workspace: string, entityIds: readonly string[], asOf: string): Promise<(EntityNode | undefined)[]> {
    const at = await this.checkAsOf(workspace, asOf);
    const histories = await Promise.all(entityIds.map((id) => this.store.events(workspace, { entityId: id, toMs: at + 1 })));
    return entityIds.map((id, i) => new GraphReplay().apply(histories[i]!).node(id));
  }

  async openNodesAsOf(
    workspace: string,
    entityIds: readonly string[],
    asOf: string,
  ): Promise<{ entities: Entity[]; relations: Relation[] }> {
    const nodes = await this.nodesAsOf(workspace, entityIds, asOf);
    return subgraph(nodes.filter((node): node is EntityNode => node !== undefined));
  }

  async relationsAsOf(workspace: string, entityId: string, label: string, direction: Direction, asOf: string): Promise<Relation[]> {
    const [node] = await this.nodesAsOf(workspace, [entityId], asOf);
    if (!node) throw new NotFoundError(`Entity '${label}' did not exist in workspace '${workspace}' at ${asOf}.`);
    return node.relations.filter(
      (relation) => direction === "both" || (direction === "out" ? relation.fromEntityId === entityId : relation.toEntityId === entityId),
    );
  }

  /** Brings back a deleted entity (docs/history.md#restoring-a-deleted-entity; restore.ts). */
  restoreEntity(workspace: string, actor: Actor, name: string, asOf?: string): Promise<RestoreReport> {
    return new EntityRestore(this.store, (ws, time) => this.checkAsOf(ws, time)).restore(workspace, actor, name, asOf);
  }

  /**
   * asOf as milliseconds. Refused: text that is not an ISO 8601 time, a time in the future, and a time
   * before the workspace's first event ("no history before X": not a silently partial state).
   */
  private async checkAsOf(workspace: string, asOf: string): Promise<number> {
    const at = parseTime(asOf, "asOf");
    if (at > Date.now()) throw new ValidationError(`asOf ${asOf} is in the future. Give a past time, or omit asOf for the current state.`);
    const { first, prunedBefore } = await this.store.historyStart(workspace);
    if (prunedBefore !== undefined) {
      // A replay without the pruned events would be a partial state: refuse rather than mislead.
      throw new ValidationError(
        `No complete history: events before ${prunedBefore} were pruned (MEMORY_HISTORY_RETENTION_DAYS), and an as-of state ` +
          "needs every event since the workspace began. Use get_changes for the history that is kept.",
      );
    }
    if (!first) {
      throw new ValidationError(
        `Workspace '${workspace}' has no history yet: no change has been recorded. Omit asOf for the current state.`,
      );
    }
    if (at < Date.parse(first.at)) {
      throw new ValidationError(`No history before ${first.at}: the workspace's first recorded change. Give a time at or after it.`);
    }
    return at;
  }

  private async page(
    events: ChangeEvent[],
    order: "newest" | "oldest",
    limit: number,
    after: string | undefined,
    encode: (last: string) => Promise<string>,
  ): Promise<ChangesPage> {
    // Events come in the feed's order (docs/architecture.md#the-feeds-order), not by id: continue after the cursor's event.
    const sorted = order === "newest" ? [...events].reverse() : events;
    const at = after === undefined ? -1 : sorted.findIndex((event) => event.id === after);
    const rest =
      after === undefined || at >= 0
        ? sorted.slice(at + 1)
        : sorted.filter((event) => (order === "newest" ? event.id < after : event.id > after));
    const shown = rest.slice(0, limit).map((event) => ({ ...event, summary: describeEvent(event) }));
    return { events: shown, ...(rest.length > limit ? { cursor: await encode(shown[shown.length - 1]!.id) } : {}) };
  }
}

/** A time given as ISO 8601 text (a date, or a date and time), as milliseconds; a ValidationError otherwise. */
export function parseTime(text: string, field: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) throw new ValidationError(`${field} '${text.slice(0, 100)}' is not an ISO 8601 time, e.g. 2026-01-31T12:00:00Z.`);
  return ms;
}

function checkKinds(kinds: readonly string[]): Set<ChangeKind> {
  checkCount(kinds, "kinds", CHANGE_KINDS.length);
  const known = new Set<string>(CHANGE_KINDS);
  const unknown = kinds.filter((kind) => !known.has(kind));
  if (unknown.length > 0) throw new ValidationError(`Unknown kinds: ${unknown.join(", ")}. Known: ${CHANGE_KINDS.join(", ")}.`);
  return new Set(kinds as ChangeKind[]);
}
