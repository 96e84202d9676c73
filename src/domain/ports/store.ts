import type { ChangeEvent, FeedPosition, PairSide } from "../feed/history.js";
import type { Actor, Direction, EntityNode, Metadata, Relation, TagDefinition, Validity } from "../model/model.js";
import type { BatchAnswer, BatchClaim, BatchStep } from "../rules/batchModel.js";
import type { MergeReport } from "../rules/curationModel.js";
import type { TraversalPort } from "../rules/navigation.js";
import type { FactKey } from "../rules/validity.js";
import type { WorkspaceStore } from "./workspaceStore.js";

/** A pair a person said are not duplicates (reject_duplicate_pair, docs/curate.md#rejecting-a-pair). */
export interface RejectedPair {
  a: PairSide;
  b: PairSide;
}

/** What an upsert writes to an entity. Absent fields keep their stored values. */
export interface EntityWrite {
  id: string;
  name: string;
  entityType?: string;
  metadata?: Metadata;
  /** Added if not already present; stored observations are never removed by an upsert. */
  observations: string[];
  /** Write only while the stored version is this one (docs/curate.md#versions). */
  expectedVersion?: string;
  /** The valid time and expiry of the observations it adds (checked: checkValidityInput). */
  observationTimes?: Validity;
}

/** A new entity: created with these observations, or left untouched if it exists. */
export interface NewEntity {
  id: string;
  name: string;
  entityType: string;
  metadata?: Metadata;
  /** Distinct, in the order to keep. */
  observations: string[];
  /** The valid time of its observations (validFrom, validTo; checked). */
  observationTimes?: Validity;
  /** When the entity expires (ISO 8601, checked). */
  expiresAt?: string;
}

export interface RelationWrite {
  id: string;
  fromEntityId: string;
  fromName: string;
  toEntityId: string;
  toName: string;
  relationType: string;
  /** Replaces the stored metadata when given. */
  metadata?: Metadata;
  /** Write only while the stored relation's version is this one (docs/curate.md#versions). */
  expectedVersion?: string;
  /**
   * Its valid time and expiry (checked). On a relation that exists, the fields given are merged; a validFrom without a
   * validTo starts a new period, so it clears a stored validTo (reopens an ended relation).
   */
  validity?: Validity;
}

/** Identifies a relation's rows: the canonical row and the edge rows kept with each endpoint. */
export interface RelationRef {
  id: string;
  fromEntityId: string;
  toEntityId: string;
}

/** Observations to add to, or remove from, one entity. */
export interface ObservationChange {
  entityId: string;
  contents: string[];
  /** The valid time and expiry of the observations added (checked). */
  times?: Validity;
  /**
   * Written as a file records them (import): no single-valued fact key supersedes anything (docs/history.md#single-valued-facts).
   * Honoured when every change of the call has it.
   */
  asRecorded?: boolean;
}

export interface EntitySummary {
  id: string;
  name: string;
  entityType: string;
}

/** Called as a bulk write commits, with how many of the given items were just settled (written or skipped). */
export type Progress = (settled: number) => void;

/** A tag by id (derived from its name) and name. */
export interface TagRef {
  id: string;
  name: string;
}

/** What a tag is put on: an entity, or one of its observations. */
export interface TagTarget {
  entityId: string;
  observationId?: string;
}

/** The tags a change actually added or removed, or why it could not run. */
export type TagChange = { status: "done"; tags: string[] } | { status: "entity-missing" } | { status: "observation-missing" };

/** The tag part of the storage port (see GraphStore). */
export interface TagStore {
  /**
   * Puts the tags the target does not carry yet on it, and creates the definitions of tags new to the
   * workspace (empty category and description). Returns the names added, in the order given.
   */
  addTags(workspace: string, actor: Actor, target: TagTarget, tags: readonly TagRef[]): Promise<TagChange>;

  /** Takes these tags off the target (its other tags, and the definitions, stay). Returns the names removed. */
  removeTags(workspace: string, actor: Actor, target: TagTarget, tags: readonly TagRef[]): Promise<TagChange>;

  /**
   * The entities carrying the tag, on themselves or on an observation: the first `limit` by name, each
   * with everything attached, and how many there are in all.
   */
  entitiesByTag(workspace: string, tagId: string, limit: number): Promise<{ nodes: EntityNode[]; total: number }>;

  /** Creates the tag, or updates its category and description (an absent one keeps its stored value). */
  defineTag(
    workspace: string,
    actor: Actor,
    tag: TagRef & { category?: string; description?: string },
  ): Promise<{ tag: TagDefinition; created: boolean }>;

  /** Takes the tags off everything that carries them and deletes their definitions. Unknown tags are ignored. */
  deleteTags(
    workspace: string,
    actor: Actor,
    tags: readonly TagRef[],
  ): Promise<{ deleted: string[]; entities: number; observations: number }>;
}

/**
 * The storage port. The domain states what must happen; an adapter decides how, and must keep
 * every write safe under concurrent writers on other machines.
 *
 * Writes take the `actor` and record it: createdBy on the rows they create (never rewritten
 * afterwards), updatedBy with updatedAt on the entity and relation rows they change. Guards (the
 * empty merges that keep the delete invariant) change neither. Every write also records its changes
 * as events in the same transactions (domain/feed/history.ts), with the actor's principal and tool.
 */
export interface GraphStore {
  /** The entity row alone (one point read), or undefined. */
  getEntitySummary(workspace: string, entityId: string): Promise<EntitySummary | undefined>;

  /**
   * Replaces a current observation with another in one transaction (docs/history.md#two-times): the old one gets validTo
   * (`validFrom`, default now) and supersededBy; the replacement is added, or reopened when stored but no longer current.
   * NotFoundError: the entity or the observation is missing. ConflictError: the observation is already superseded or
   * ended (also when a concurrent call superseded it first), or the replacement is already current. ValidationError:
   * `validFrom` before the old observation's.
   */
  supersedeObservation(
    workspace: string,
    actor: Actor,
    request: { entityId: string; entityName: string; observation: string; replacement: string; validFrom?: string },
  ): Promise<{ validTo: string; validFrom: string }>;

  /**
   * Ends a relation: validTo (default now) on its rows, in one transaction. NotFoundError when absent, ConflictError when
   * already ended, ValidationError when validTo is not after its validFrom (or creation).
   */
  endRelation(
    workspace: string,
    actor: Actor,
    request: { relationId: string; label: string; validTo?: string },
  ): Promise<{ validTo: string }>;

  /**
   * Creates or updates an entity and adds observations it does not have yet.
   * Throws NotFoundError only if the entity vanished mid-write and could not be recreated.
   */
  upsertEntity(
    workspace: string,
    actor: Actor,
    write: EntityWrite,
  ): Promise<{ created: boolean; addedObservations: string[]; version: string }>;

  /** Writes a relation atomically with its edge rows. Throws NotFoundError if an endpoint does not exist. */
  upsertRelation(workspace: string, actor: Actor, write: RelationWrite): Promise<{ created: boolean; version: string }>;

  /**
   * The entity (its own fields, with its version; its observations are not read) and its relations in one direction, or
   * undefined when it does not exist.
   */
  getEntityRelations(workspace: string, entityId: string, direction: Direction): Promise<EntityNode | undefined>;

  /** Each entity with everything attached, in the order asked (undefined where it does not exist). */
  getEntities(workspace: string, entityIds: readonly string[]): Promise<(EntityNode | undefined)[]>;

  /** Creates the entities that do not exist yet; existing ones are left untouched. Returns the ids created. */
  createEntities(workspace: string, actor: Actor, entities: readonly NewEntity[], progress?: Progress): Promise<{ created: string[] }>;

  /**
   * Adds observations the entities do not have yet. If any entity is missing, writes nothing and
   * returns the missing ids. `added` maps each entity id to the contents actually added.
   */
  addObservations(
    workspace: string,
    actor: Actor,
    changes: readonly ObservationChange[],
    progress?: Progress,
  ): Promise<{ missing: string[]; added: Map<string, string[]> }>;

  /**
   * Creates the relations that do not exist yet (existing ones are skipped), each atomically with its
   * edge rows, and only if both endpoints exist. `allOrNothing`: if any endpoint is missing, write
   * nothing and return every missing id; otherwise relations with a missing endpoint are left out
   * and their endpoints reported.
   */
  createRelations(
    workspace: string,
    actor: Actor,
    relations: readonly RelationWrite[],
    options: { allOrNothing: boolean; progress?: Progress },
  ): Promise<{ created: string[]; missingEntityIds: string[] }>;

  /** Deletes entities with their observations and relations (both directions). Missing ones are ignored. */
  deleteEntities(workspace: string, actor: Actor, entityIds: readonly string[]): Promise<void>;

  /** Deletes the named observations; contents an entity does not have, and missing entities, are ignored. */
  deleteObservations(workspace: string, actor: Actor, changes: readonly ObservationChange[]): Promise<void>;

  /** Deletes relations with their edge rows; missing ones are ignored. */
  deleteRelations(workspace: string, actor: Actor, relations: readonly RelationRef[]): Promise<void>;

  /** Tags of entities and observations. Deleting an entity or an observation (above) also removes its tags. */
  readonly tags: TagStore;

  /** Entities with their edges, one round of parallel reads per call: what get_neighbors and find_path walk. */
  readonly traversal: TraversalPort;

  /** The workspace registry, summaries and whole-workspace deletion. */
  readonly workspaces: WorkspaceStore;

  /**
   * The change feed: the events committed after `position` (from the start without one), each exactly
   * once across calls even when writers commit out of order, and the position to continue from. One
   * request when nothing changed (docs/history.md#the-change-feed).
   */
  changesSince(workspace: string, position?: FeedPosition): Promise<{ events: ChangeEvent[]; position: FeedPosition }>;

  /**
   * The events committed in [fromMs, toMs), in the feed's order (docs/architecture.md#the-feeds-order); only those touching
   * `entityId`, or by `principal`, when given.
   */
  events(workspace: string, query: EventQuery): Promise<ChangeEvent[]>;

  /** Where the workspace's history starts: its first event, and the time before which retention pruned events. */
  historyStart(workspace: string): Promise<{ first?: ChangeEvent; prunedBefore?: string }>;

  /**
   * Applies checked batch steps in one entity-group transaction, with the requestId's marker when given,
   * or not at all; a fresh marker's answer is returned instead (replayed), writing nothing.
   */
  executeAtomicBatch(
    workspace: string,
    actor: Actor,
    steps: readonly BatchStep[],
    requestId?: string,
  ): Promise<{ answer: BatchAnswer; replayed: boolean }>;

  /** Claims a non-atomic batch's requestId before it runs. */
  claimBatch(workspace: string, requestId: string): Promise<BatchClaim>;

  /**
   * Remembers that the two entities are not duplicates (undo: forgets it), in one transaction with its event. Idempotent:
   * `changed` is false when the pair was already rejected (or, undoing, was not). NotFoundError, nothing written: an
   * entity is missing (undo: only when there was no rejection to forget).
   */
  rejectPair(workspace: string, actor: Actor, pair: RejectedPair, undo: boolean): Promise<{ changed: boolean }>;

  /** Every rejected pair of the workspace (one range read); a pair whose entity is gone stays until forgotten. */
  rejectedPairs(workspace: string): Promise<RejectedPair[]>;

  /**
   * Merges the sources into the target (docs/curate.md#merge_entities), or with dryRun only reports what
   * it would do. Throws NotFoundError for a missing target, or a missing source not merged into it before.
   */
  mergeEntities(
    workspace: string,
    actor: Actor,
    request: { targetId: string; targetLabel: string; sources: { id: string; label: string }[]; dryRun: boolean },
  ): Promise<MergeReport>;

  /** Records a claimed non-atomic batch's answer under its requestId. */
  completeBatch(workspace: string, requestId: string, answer: BatchAnswer): Promise<void>;
  /** The workspace's declared fact keys (one point read; none declared: empty). */
  factKeys(workspace: string): Promise<FactKey[]>;
  /** Declares fact keys (merged into those declared); returns every declared key. */
  declareFactKeys(workspace: string, keys: readonly FactKey[]): Promise<FactKey[]>;
  /**
   * Sets or clears expiry and pin (a Validity patch of `expiresAt` and `pinned`) on an entity, one observation or one
   * relation: one read, one transaction holding If-Match on the target row's ETag. `nowMs` judges what has expired.
   */
  setExpiry(workspace: string, actor: Actor, target: ExpiryTarget, patch: Validity, nowMs: number): Promise<ExpiryOutcome>;
  /**
   * Deletes (or with dryRun lists) what expired at `nowMs` and is not pinned, found by one filtered query of the
   * workspace's rows, recording events. Each delete holds If-Match on the ETag read, so a renewal racing it wins.
   */
  sweepExpired(workspace: string, actor: Actor, options: { dryRun: boolean; nowMs: number }): Promise<SweepReport>;
  /**
   * Merges validity patches (Validity: "" and `pinned: false` clear a field) onto an entity's rows as they are: its own
   * expiry, observations', relations' (all three rows), each recorded as its `*.updated` change (restore_entity's undo).
   * Throws NotFoundError when a row went meanwhile.
   */
  restoreValidity(workspace: string, actor: Actor, restore: ValidityRestore): Promise<void>;
}

/** What set_expiry changes: an entity, one of its observations, or a relation. */
export type ExpiryTarget =
  | { kind: "entity"; entityId: string }
  | { kind: "observation"; entityId: string; content: string }
  | { kind: "relation"; relation: RelationRef };

/** set_expiry's outcome: done (with what is held after), or why not (the target is missing or already expired). */
export type ExpiryOutcome =
  | { status: "done"; entityName: string; expiresAt?: string; pinned: boolean }
  | { status: "missing"; entityMissing?: boolean }
  | { status: "expired"; expiresAt: string; entityExpired?: boolean };

/** An expired item the sweep found. */
export type SweptItem =
  | { kind: "entity"; entityId: string; name: string; expiresAt: string }
  | { kind: "observation"; entityId: string; entityName: string; content: string; expiresAt: string }
  | { kind: "relation"; relationId: string; from: string; to: string; relationType: string; expiresAt: string };

/** What a sweep deleted (or, with dryRun, would delete), and what it skipped because it was renewed or changed meanwhile. */
export interface SweepReport {
  items: SweptItem[];
  skipped: (SweptItem & { reason: string })[];
}

/** What restoreValidity patches: rows of one entity that exist. */
export interface ValidityRestore {
  entity: { id: string; name: string; entityType: string; metadata: Metadata };
  /** The entity's own expiry and pin. */
  entityValidity?: Validity;
  observations: readonly { content: string; validity: Validity }[];
  relations: readonly {
    relation: Pick<Relation, "id" | "fromEntityId" | "fromName" | "toEntityId" | "toName" | "relationType">;
    validity: Validity;
  }[];
}

export interface EventQuery {
  fromMs?: number;
  toMs?: number;
  entityId?: string;
  principal?: string;
}
