import { createHash } from "node:crypto";

import type { TagTarget } from "../../domain/ports/store.js";

/**
 * The one place that knows the row-key layout (docs/architecture.md). PartitionKey is the workspace name.
 * Every key is built from GUIDs and fixed markers, never from user text, so characters Table
 * Storage forbids in keys can never reach one.
 *
 *   {entityId}                                   entity
 *   {entityId}~o~{observationId}                 observation
 *   {entityId}~o~{observationId}~t~{tagId}       observation tag link (kept under its observation)
 *   {entityId}~r~in~{relationId}                 incoming edge (a copy of the relation, kept with its target)
 *   {entityId}~r~out~{relationId}                outgoing edge (a copy of the relation, kept with its source)
 *   {entityId}~t~{tagId}                         entity tag link
 *   {relationId}                                 relation (canonical row, addressable by relation id)
 *   tag~{tagId}                                  tag definition
 *   tagidx~{tagId}~{entityId}                    tag index: this entity carries the tag
 *   tagidx~{tagId}~{entityId}~o~{observationId}  tag index: this observation carries the tag
 *   ~ev~{13-digit ms}~{random}                   change event (the feed, docs/history.md)
 *   ~evpruned                                    how far retention pruned the events
 *   ~batch~{requestHash}                         an idempotent batch's marker (its first result)
 *   ~config~factkeys                             the workspace's declared fact keys (writes/factKeys.ts)
 *   ~dup~{entityId}~{entityId}                   a rejected duplicate pair, its two ids in text order (writes/rejections.ts)
 *   ~workspace                                   the workspace's registry row (registration, the index generation)
 *
 * Outside every workspace: ADMIN_PARTITION (workspace deletions), CONFIRMATION_PARTITION (used confirmations), and one
 * partition of kept vectors per workspace (vectorPartition):
 *
 *   PartitionKey ~vectors~{workspace}, RowKey {modelKey}~{textKey}    a remote model's vector of one text (vectorStore.ts)
 *
 * where modelKey is 16 hex characters of the model id's SHA-256 (model ids may hold "/", which keys forbid) and textKey the 32
 * hex characters the index gives (src/search/vectors.ts textKey). Workspace names are [A-Za-z0-9._-] and never start with "~",
 * so no workspace partition, nor ~admin or ~confirmations, is ever a vectors partition; one model's vectors are one range.
 *
 * "~" sorts after every GUID character, and "~o~" before "~r~" before "~t~", so one entity is one
 * contiguous range: the entity row, then its observations (each followed by its tag links), then its
 * edges, then its tag links. Tag definitions and the tag index start with "tag", after every GUID, so
 * they sit together at the end of the partition, outside every entity's range: all definitions are
 * one range, and so are the entities and observations carrying one tag. Event keys start with "~",
 * after "tag" and every GUID, so no entity range, graph page, scan or tag range ever reaches them;
 * they sort by the time the writer chose the key.
 */
const SEPARATOR = "~";
const OBSERVATION = "~o~";
const EDGES = "~r~";
const EDGE_IN = "~r~in~";
const EDGE_OUT = "~r~out~";
const TAG_LINK = "~t~";
const TAG_ROWS = "tag";
const TAG_DEFINITION = "tag~";
const TAG_INDEX = "tagidx~";
const EVENT = "~ev~";
const REJECTION = "~dup~";
/** Milliseconds since 1970 fit 13 digits until the year 2286, so keys sort by time. */
const EVENT_TIME_DIGITS = 13;

/** Stored in each row's `kind` property, because entity and relation keys are both bare GUIDs. */
export type RowKind =
  | "entity"
  | "observation"
  | "edge-in"
  | "edge-out"
  | "relation"
  | "entity-tag"
  | "observation-tag"
  | "tag"
  | "tag-index"
  | "event"
  | "history-pruned"
  | "batch-marker"
  | "workspace"
  | "workspace-deletion"
  | "confirmation"
  | "vector"
  | "fact-keys"
  | "duplicate-rejection";

export const rowKey = {
  entity: (entityId: string) => entityId,
  observation: (entityId: string, observationId: string) => `${entityId}${OBSERVATION}${observationId}`,
  edgeIn: (toId: string, relationId: string) => `${toId}${EDGE_IN}${relationId}`,
  edgeOut: (fromId: string, relationId: string) => `${fromId}${EDGE_OUT}${relationId}`,
  relation: (relationId: string) => relationId,
  tag: (tagId: string) => `${TAG_DEFINITION}${tagId}`,
  /** Where retention records how far it pruned the events ("~evp" sorts before "~ev~", outside their range). */
  historyPruned: "~evpruned",
  /**
   * The registry row: one per workspace. "~w" sorts after every event key ("~ev~…"), and nothing else sorts between them,
   * so a read of the feed's tail can take this row in the same request (keyRange.feedTail).
   */
  workspace: "~workspace",
  /** An idempotent batch's marker. "~b" sorts before "~ev", outside the events and the feed tail. */
  batchMarker: (requestHash: string) => `~batch~${requestHash}`,
  /** The declared fact keys. "~c" sorts before "~ev", outside the events and the feed tail. */
  factKeys: "~config~factkeys",
  /**
   * A rejected duplicate pair: one row per pair whichever order it is named in (the ids sorted), so rejecting (a, b) and
   * (b, a) is one row. "~d" sorts after "~config" and before "~ev", outside the events, the feed tail and every entity range.
   */
  rejection: (entityId: string, otherId: string) => {
    const [low, high] = entityId < otherId ? [entityId, otherId] : [otherId, entityId];
    return `${REJECTION}${low}${SEPARATOR}${high}`;
  },
  /** An event chosen at `ms` (the writer's clock); `unique` (random) tells apart events of one millisecond. */
  event: (ms: number, unique: string) => `${eventTime(ms)}${SEPARATOR}${unique}`,
};

/** The key prefix of events chosen at `ms`: every event key of that millisecond or later sorts at or after it. */
function eventTime(ms: number): string {
  return `${EVENT}${String(Math.max(0, Math.floor(ms))).padStart(EVENT_TIME_DIGITS, "0")}`;
}

/** The time (ms) an event key was chosen at. */
export function eventKeyTime(key: string): number {
  return Number(key.slice(EVENT.length, EVENT.length + EVENT_TIME_DIGITS));
}

export type { TagTarget };

/** The link row (in the entity's range) and the index row of one tag on one target, always written and deleted together. */
export function tagLinkKeys(target: TagTarget, tagId: string): { link: string; index: string } {
  const { entityId, observationId } = target;
  if (observationId === undefined) {
    return { link: `${entityId}${TAG_LINK}${tagId}`, index: `${TAG_INDEX}${tagId}${SEPARATOR}${entityId}` };
  }
  return {
    link: `${rowKey.observation(entityId, observationId)}${TAG_LINK}${tagId}`,
    index: `${TAG_INDEX}${tagId}${SEPARATOR}${rowKey.observation(entityId, observationId)}`,
  };
}

/**
 * The partition of deployment-wide administrative records (workspace deletions). No workspace name
 * can start with "~" (docs/architecture.md#workspaces), so no workspace read, scan or delete reaches it.
 */
export const ADMIN_PARTITION = "~admin";
/** A workspace deletion's record in ADMIN_PARTITION, keyed by time like events (same 13-digit form). */
export const workspaceDeletionKey = (ms: number, unique: string): string => `deleted${rowKey.event(ms, unique)}`;
/** Every workspace deletion record. */
export const workspaceDeletions: KeyRange = { from: "deleted~ev~", to: "deleted~ev~~" };

/**
 * The partition of used confirmations (docs/confirmation.md): one row per confirmed destructive call, so that a sealed
 * request state confirms once. Outside every workspace (no workspace name starts with "~"): deleting a workspace wipes its
 * partition, and a record kept there would vanish with it and let the confirmation be used again.
 */
export const CONFIRMATION_PARTITION = "~confirmations";
/**
 * A used confirmation's row: keyed by its expiry (the same 13-digit form as events), then its nonce, so that the rows no
 * longer worth keeping are one range from the partition's start (expiredConfirmations).
 */
export const confirmationKey = (expiresAtMs: number, nonce: string): string => `${timeDigits(expiresAtMs)}${SEPARATOR}${nonce}`;
/** Every used confirmation whose request state expired before `nowMs`. */
export const expiredConfirmations = (nowMs: number): KeyRange => ({ from: "", to: timeDigits(nowMs) });

/** The partition of one workspace's kept vectors (see the header). */
export const vectorPartition = (workspace: string): string => `~vectors~${workspace}`;
/** A model's key part: key-safe whatever the model id holds. */
export const modelKey = (model: string): string => createHash("sha256").update(model, "utf8").digest("hex").slice(0, 16);
const TEXT_KEY = /^[0-9a-f]{32}$/;
/** One text's vector under one model. */
export function vectorKey(model: string, textKey: string): string {
  if (!TEXT_KEY.test(textKey)) throw new Error(`'${textKey}' is not a text key (32 lowercase hex characters).`);
  return `${modelKey(model)}${SEPARATOR}${textKey}`;
}
/** Every vector of one model ("~" sorts after every hex character). */
export const modelVectors = (model: string): KeyRange => ({
  from: `${modelKey(model)}${SEPARATOR}`,
  to: `${modelKey(model)}${SEPARATOR}${SEPARATOR}`,
});

function timeDigits(ms: number): string {
  return String(Math.max(0, Math.floor(ms))).padStart(EVENT_TIME_DIGITS, "0");
}

/** Half-open RowKey ranges [from, to). */
export interface KeyRange {
  from: string;
  to: string;
}

const below = (prefix: string): KeyRange => ({ from: prefix, to: `${prefix}${SEPARATOR}` });

export const keyRange = {
  /** Every entity and relation row (all GUID keys): the whole graph without tag definitions and the tag index. */
  graph: { from: "", to: TAG_ROWS } as KeyRange,
  /** The entity row and everything hanging off it. */
  wholeEntity: (entityId: string): KeyRange => ({ from: entityId, to: `${entityId}${SEPARATOR}${SEPARATOR}` }),
  /** The entity row and its observations with their tag links, without edges and entity tag links. */
  entityWithObservations: (entityId: string): KeyRange => ({ from: entityId, to: `${entityId}${OBSERVATION}${SEPARATOR}` }),
  /** Every graph row after the entity's whole range: where a scan continues past this entity. */
  after: (entityId: string): KeyRange => ({ from: `${entityId}${SEPARATOR}${SEPARATOR}`, to: TAG_ROWS }),
  /** Only edges, optionally of one direction. */
  edges: (entityId: string, direction: "in" | "out" | "both"): KeyRange =>
    below(`${entityId}${direction === "in" ? EDGE_IN : direction === "out" ? EDGE_OUT : EDGES}`),
  /** The tag links of a target: the entity's own tags, or one observation row followed by its tags. */
  tagsOf: (target: TagTarget): KeyRange =>
    target.observationId === undefined
      ? below(`${target.entityId}${TAG_LINK}`)
      : {
          from: rowKey.observation(target.entityId, target.observationId),
          to: `${rowKey.observation(target.entityId, target.observationId)}${SEPARATOR}${SEPARATOR}`,
        },
  /** Every tag definition. */
  tagDefinitions: below(TAG_DEFINITION),
  /** The index rows of one tag (every entity and observation carrying it), or of all tags. */
  tagIndex: (tagId?: string): KeyRange => (tagId === undefined ? below(TAG_INDEX) : below(`${TAG_INDEX}${tagId}${SEPARATOR}`)),
  /** The events chosen at `fromMs` or later, and the registry row after them: one request tells what changed and whether the workspace is the same one. */
  feedTail: (fromMs: number): KeyRange => ({ from: eventTime(fromMs), to: `${rowKey.workspace}${SEPARATOR}` }),
  /** Every rejected duplicate pair (rowKey.rejection). */
  rejections: below(REJECTION),
  /** Every idempotent batch marker. */
  batchMarkers: below("~batch"),
  /** Every event, or those chosen in [fromMs, toMs). */
  events: (fromMs?: number, toMs?: number): KeyRange => ({
    from: fromMs === undefined ? EVENT : eventTime(fromMs),
    to: toMs === undefined ? `${EVENT}${SEPARATOR}` : eventTime(toMs),
  }),
};

/** The entity a row belongs to: the GUID its key starts with (an entity row's key is the GUID itself). */
export function ownerOf(key: string): string {
  const end = key.indexOf(SEPARATOR);
  return end < 0 ? key : key.slice(0, end);
}

/** A relation's rows: the canonical row, the outgoing edge (with its source) and the incoming edge (with its target). */
export function relationRowKeys(relation: { id: string; fromEntityId: string; toEntityId: string }): [string, string, string] {
  return [
    rowKey.relation(relation.id),
    rowKey.edgeOut(relation.fromEntityId, relation.id),
    rowKey.edgeIn(relation.toEntityId, relation.id),
  ];
}
