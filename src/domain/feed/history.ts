import type { Metadata, Relation, Validity } from "../model/model.js";

/**
 * The change feed's vocabulary (docs/history.md). Every write records what it changed as events, in
 * the same transaction as the change, so history never disagrees with state. One event is one
 * transaction: it may hold many changes. A call split over several transactions leaves several
 * events that share its `call` id.
 */

/**
 * "rejection" is not graph data: a person's word that two entities are not duplicates (reject_duplicate_pair,
 * docs/curate.md#rejecting-a-pair). It is remembered (rejection.created) or forgotten (rejection.deleted), never updated,
 * and the fold ignores it (fold.ts).
 */
const CHANGE_SUBJECTS = ["entity", "observation", "relation", "tag", "rejection"] as const;
const CHANGE_ACTIONS = ["created", "updated", "deleted"] as const;
type ChangeSubject = (typeof CHANGE_SUBJECTS)[number];
type ChangeAction = (typeof CHANGE_ACTIONS)[number];
export type ChangeKind = Exclude<`${ChangeSubject}.${ChangeAction}`, "rejection.updated">;
export const CHANGE_KINDS: readonly ChangeKind[] = CHANGE_SUBJECTS.flatMap((subject) =>
  CHANGE_ACTIONS.map((action) => `${subject}.${action}`).filter((kind): kind is ChangeKind => kind !== "rejection.updated"),
);

/** One side of a rejected duplicate pair, as a rejection.* change records it. */
export interface PairSide {
  entityId: string;
  entityName: string;
}

/** An entity's own fields, as a change records them. */
export interface EntityState {
  name: string;
  entityType: string;
  metadata: Metadata;
  /** The row's version after (or before) the change; absent on events written before versions. */
  version?: string;
}

/**
 * An entity.updated's after-image where the write merged only some of the entity's fields, without If-Match: the name
 * (the entity's identity) and version, and only the fields it wrote. The others stayed as stored, whatever a concurrent
 * write put there, so an image of them taken from the read could be stale (docs/history.md#what-an-event-holds).
 */
export type EntityUpdate = Pick<EntityState, "name" | "version"> & Partial<Pick<EntityState, "entityType" | "metadata">>;

/** A relation's fields, as a change records them. */
export type RelationState = Pick<Relation, "fromEntityId" | "fromName" | "toEntityId" | "toName" | "relationType" | "metadata" | "version">;

/** A tag definition's fields (define_tag). */
interface TagState {
  category: string;
  description: string;
}

/**
 * One change. `entityId`/`entityName` name the entity it concerns (for a relation: absent, see
 * before/after for both endpoints). `before` is the state the write replaced, `after` the state it
 * left; a creation has no `before`, a deletion no `after`.
 *
 * - entity.*: before/after are EntityState. An update whose before-image was not read has none; an update that merged
 *   some fields without If-Match has an EntityUpdate after-image (the fields it left out stayed as stored).
 * - observation.created|updated|deleted: `observationId` and `content`; an update changes only its validity.
 * - `validity` (any subject but tags): the valid time and expiry the change set, as a patch (Validity: "" clears a field)
 *   on what was held; on a creation, on nothing. Absent: unchanged. `validityBefore` is what was held before, when read.
 * - relation.*: `relationId`, before/after are RelationState. upsert_relation by names does not read
 *   before it writes, so its relation.updated has no `before`: the relation's previous event holds it.
 * - tag.* with `entityId`: a tag link (on the entity, or on `observationId`); tag.* without: a tag
 *   definition (before/after are TagState).
 * - rejection.created|deleted: `pair`, the two entities a person said are not duplicates (remembered, or forgotten); no
 *   `entityId`, so the fold touches neither entity.
 */
export interface Change {
  kind: ChangeKind;
  entityId?: string;
  entityName?: string;
  observationId?: string;
  content?: string;
  relationId?: string;
  tagName?: string;
  /** What the change set of the item's valid time and expiry (see above; docs/history.md#two-times). */
  validity?: Validity;
  validityBefore?: Validity;
  /** On the entity.deleted of a merge's source: the entity it was merged into (merge_entities). */
  mergedInto?: string;
  /** On rejection.*: the two entities of the pair, as the call named them (reject_duplicate_pair). */
  pair?: [PairSide, PairSide];
  before?: EntityState | RelationState | TagState;
  /** A relation.updated without new metadata leaves it out: the stored metadata stayed. */
  after?: EntityState | EntityUpdate | RelationState | Omit<RelationState, "metadata"> | TagState;
}

/** One event: the changes of one transaction, who made them, through which tool, and when. */
export interface ChangeEvent {
  /** The event's row key: unique, chosen by the writer (its clock), so it breaks ties of `committed` only. */
  id: string;
  /** When it was written (ISO 8601, the writer's clock, to the millisecond). */
  at: string;
  /**
   * When storage committed it (the row's server-assigned Timestamp, ISO 8601 with 7 fractional digits): the feed's order
   * (docs/architecture.md#the-feeds-order). Absent only on events not read from storage.
   */
  committed?: string;
  principal: string;
  tool: string;
  /** Shared by the events of one call that took several transactions. */
  call: string;
  changes: Change[];
}

/**
 * Where a reader of the feed stands: when it last read (its clock), and the events it was given
 * that are still inside the lateness window (so a re-read of the window returns none twice).
 */
export interface FeedPosition {
  readAt: number;
  seen: string[];
  /**
   * The storage server's commit time (ISO) from which the next read of the tail needs rows: the newest commit the reads so far
   * saw, less a margin. Absent until one was seen. Lets a tail read skip the window's rows it already has (docs/search.md#freshness).
   */
  committedSince?: string;
}

/**
 * An event's place in the feed: its commit time, then its key (docs/architecture.md#the-feeds-order). Fixed width, so
 * places compare as text. An event without a commit time (not read from storage) is placed at its writer's time.
 */
export function feedPlace(event: Pick<ChangeEvent, "id" | "at" | "committed">): string {
  return `${commitTimeOf(event)}|${event.id}`;
}

/** When the event committed, as a fixed-width stamp (commitStamp); the writer's time for an event not read from storage. */
export function commitTimeOf(event: Pick<ChangeEvent, "at" | "committed">): string {
  return commitStamp(event.committed) ?? commitStamp(event.at) ?? "";
}

/** Events in the feed's order (a sorted copy). */
export function inFeedOrder<T extends Pick<ChangeEvent, "id" | "at" | "committed">>(events: readonly T[]): T[] {
  const places = new Map(events.map((event) => [event, feedPlace(event)]));
  return [...events].sort((a, b) => (places.get(a)! < places.get(b)! ? -1 : places.get(a)! > places.get(b)! ? 1 : 0));
}

/**
 * An ISO 8601 UTC time with exactly 7 fractional digits (Table Storage's Timestamp precision; Azurite fills the last 4 from
 * the process's high-resolution clock), so that times compare as text; undefined if it is not such a time.
 */
export function commitStamp(value: unknown): string | undefined {
  const text = value instanceof Date ? value.toISOString() : value;
  if (typeof text !== "string") return undefined;
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(text);
  return match ? `${match[1]}.${(match[2] ?? "").padEnd(7, "0").slice(0, 7)}Z` : undefined;
}

/** The ids of every entity a change concerns (both endpoints of a relation). */
export function entitiesOf(change: Change): string[] {
  if (change.entityId !== undefined) return [change.entityId];
  if (change.pair) return change.pair.map((side) => side.entityId);
  const state = (change.after ?? change.before) as Partial<RelationState> | undefined;
  if (change.relationId === undefined || !state) return [];
  return [...new Set([state.fromEntityId, state.toEntityId].filter((id): id is string => typeof id === "string"))];
}

const quoted = (text: string | undefined, max = 80) =>
  text === undefined ? "''" : `'${text.length > max ? `${text.slice(0, max)}…` : text}'`;

/**
 * One line a person can read per subject of change, given the change and its action. A table, not a switch: the one
 * switch over change kinds is the fold's (fold.ts); a new subject fails to compile here until it has its line.
 */
const DESCRIBE: Record<ChangeSubject, (change: Change, action: ChangeAction) => string> = {
  entity: (change, action) => {
    const state = (change.after ?? change.before) as EntityState | undefined;
    const named = `entity ${quoted(change.entityName)}`;
    if (action === "updated" && change.validity && !changedFields(change)) return validityLine(change.validity, named);
    return `${action} ${named}${state?.entityType ? ` (${state.entityType})` : ""}${validityNote(change)}`;
  },
  observation: (change, action) => {
    const named = `observation ${quoted(change.content)} of ${quoted(change.entityName)}`;
    if (action === "updated") return validityLine(change.validity ?? {}, named);
    return `${action === "created" ? "added" : "deleted"} observation ${quoted(change.content)} ${action === "created" ? "to" : "from"} ${quoted(change.entityName)}${validityNote(change)}`;
  },
  relation: (change, action) => {
    const state = (change.after ?? change.before) as RelationState | undefined;
    const named = `relation ${quoted(state?.fromName)} ${state?.relationType ?? "?"} ${quoted(state?.toName)}`;
    if (action === "updated" && change.validity && !changedFields(change)) return validityLine(change.validity, named);
    return `${action} ${named}${validityNote(change)}`;
  },
  tag: (change, action) => {
    if (change.entityId === undefined) return `${action} tag definition ${quoted(change.tagName)}`;
    return `${action === "created" ? "tagged" : action === "deleted" ? "untagged" : "retagged"} ${
      change.observationId !== undefined ? `an observation of ${quoted(change.entityName)}` : quoted(change.entityName)
    } ${action === "deleted" ? "from" : "with"} ${quoted(change.tagName)}`;
  },
  rejection: (change, action) => {
    const [a, b] = change.pair ?? [];
    const pair = `${quoted(a?.entityName)} ≈ ${quoted(b?.entityName)}`;
    return action === "deleted" ? `forgot rejected duplicate pair ${pair}` : `rejected duplicate pair ${pair}`;
  },
};

/**
 * Whether an update changed more than validity: its after-image differs from its before-image (an update without a
 * before-image may have).
 */
function changedFields(change: Change): boolean {
  if (!change.after) return false;
  if (!change.before) return true;
  return JSON.stringify(change.before) !== JSON.stringify(change.after);
}

/** What a validity change did to an item, as one line: superseded, ended, reopened, expiry set or cleared, pinned. */
function validityLine(validity: Validity, named: string): string {
  const parts: string[] = [];
  if (validity.supersededBy)
    parts.push(`superseded ${named} by ${quoted(validity.supersededBy)}${validity.validTo ? ` from ${validity.validTo}` : ""}`);
  else if (validity.supersededBy === "" || validity.validTo === "") {
    parts.push(`reopened ${named}${validity.validFrom ? ` (valid from ${validity.validFrom})` : ""}`);
  } else if (validity.validTo) parts.push(`ended ${named} (valid to ${validity.validTo})`);
  else if (validity.validFrom) parts.push(`set ${named} valid from ${validity.validFrom}`);
  const subject = parts.length > 0 ? "it" : named;
  if (validity.expiresAt) parts.push(`expiry set on ${subject} (${validity.expiresAt})`);
  else if (validity.expiresAt === "") parts.push(`expiry cleared on ${subject}`);
  if (validity.pinned === true) parts.push(`pinned ${subject}`);
  else if (validity.pinned === false) parts.push(`unpinned ${subject}`);
  return parts.length > 0 ? parts.join(", ") : `updated ${named}`;
}

/** A creation's (or a field update's) valid time and expiry, as a suffix: " (valid from …, to …, expires …)". */
function validityNote(change: Change): string {
  const held = change.validity;
  if (!held) return "";
  const parts = [
    held.validFrom ? `valid from ${held.validFrom}` : "",
    held.validTo ? `valid to ${held.validTo}` : held.validTo === "" ? "reopened" : "",
    held.expiresAt ? `expires ${held.expiresAt}` : held.expiresAt === "" ? "expiry cleared" : "",
    held.pinned === true ? "pinned" : held.pinned === false ? "unpinned" : "",
  ].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
}

/** One line a person can read: what the change did. */
function describeChange(change: Change): string {
  const [subject, action] = change.kind.split(".") as [ChangeSubject, ChangeAction];
  return DESCRIBE[subject](change, action);
}

/** A readable summary of an event: its changes, the first few in full and a count of the rest. */
export function describeEvent(event: ChangeEvent, shown = 5): string {
  const lines = event.changes.slice(0, shown).map(describeChange);
  const rest = event.changes.length - lines.length;
  return `${event.principal} via ${event.tool}: ${lines.join("; ")}${rest > 0 ? `; and ${rest} more change${rest === 1 ? "" : "s"}` : ""}`;
}
