import { CHANGE_KINDS, type ChangeEvent, type ChangeKind, describeEvent } from "../feed/history.js";
import type { CursorCodec } from "../model/cursor.js";
import { NotFoundError, ValidationError } from "../model/errors.js";
import { entityId as entityIdOf } from "../model/ids.js";
import type { Actor } from "../model/model.js";
import { checkCount, checkEntityName, checkLimit, checkPrincipal, parseTime } from "../model/validation.js";
import type { GraphStore } from "../ports/store.js";
import { type EntityRef, idOf } from "../rules/entityRef.js";
import type { AsOfReads } from "./asOf.js";
import { EntityRestore, type RestoreReport, touchesEntity } from "./restore.js";

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
    private readonly asOf: AsOfReads,
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

  /** The events of one entity (by id or name), oldest first, also after it was deleted. */
  async entityHistory(workspace: string, entity: EntityRef, options: { limit?: number; cursor?: string }): Promise<ChangesPage> {
    const id = idOf(workspace, entity, { id: "entityId", name: "entityName" });
    const ref = { id, label: entity.name ?? id };
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

  /**
   * Brings back a deleted entity (docs/history.md#restoring-a-deleted-entity; restore.ts), or, with `rollBack`, rolls one
   * that exists back to its state at asOf (the undo of supersessions, endings and expiry changes).
   */
  restoreEntity(workspace: string, actor: Actor, name: string, asOf?: string, rollBack = false): Promise<RestoreReport> {
    return new EntityRestore(this.store, (ws, time) => this.asOf.at(ws, time)).restore(workspace, actor, name, asOf, rollBack);
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

function checkKinds(kinds: readonly string[]): Set<ChangeKind> {
  checkCount(kinds, "kinds", CHANGE_KINDS.length);
  const known = new Set<string>(CHANGE_KINDS);
  const unknown = kinds.filter((kind) => !known.has(kind));
  if (unknown.length > 0) throw new ValidationError(`Unknown kinds: ${unknown.join(", ")}. Known: ${CHANGE_KINDS.join(", ")}.`);
  return new Set(kinds as ChangeKind[]);
}
