import { observationId } from "../model/ids.js";
import type { Entity, EntityNode, Relation, TagDefinition, Validity } from "../model/model.js";
import { byCreation, compareText, orderKey } from "../model/order.js";
import { heldValidity, patchValidity } from "../rules/validity.js";
import { type Change, type ChangeEvent, type EntityUpdate, inFeedOrder, type RelationState } from "./history.js";

/**
 * The one fold of the change feed into graph state (docs/architecture.md#one-fold-of-the-feed): entities with their
 * observations and tags, relations with both ends' adjacency, tag definitions, authorship and order. `read_graph asOf`,
 * `open_nodes asOf` and `restore_entity` (GraphReplay, replay.ts) and the workspace index (src/search/workspaceIndex.ts)
 * hold their graph in one of these, so one history gives one answer. A new change kind is folded in `applyChange`, the
 * only switch over change kinds. Pure: no storage, no search.
 *
 * @example
 *   const fold = new GraphFold();
 *   const touched = fold.apply(events); // in the feed's order, whatever order they came in
 *   fold.graph(); // every entity, oldest first, and every relation
 */

/** One entity as the fold holds it: as reads return it (Entity), with its observations by id and its tags as sets. */
export type FoldedEntity = Omit<Entity, "observations" | "observationTags" | "observationValidity" | "tags"> & {
  /**
   * Observation id (the row key: docs/architecture.md#table-layout) -> content, in the order added. An entity as a scan
   * read it is keyed by content until a change names one of its observations (GraphFold.keyedById): an id is its
   * content's UUIDv5 under the entity, so only the entities the feed touches pay for hashing.
   */
  observations: Map<string, string>;
  /** Observation key (as `observations`) -> the tags on it, only for observations that carry one; absent while none does. */
  observationTags: Map<string, Set<string>> | undefined;
  /** Observation key (as `observations`) -> its valid time and expiry, only for observations that have any. */
  observationValidity: Map<string, Validity> | undefined;
  tags: Set<string>;
};

/** What applying events changed (by id; a deleted one too), so a reader keeping more on top updates exactly those. */
export interface Touched {
  entities: Set<string>;
  relations: Set<string>;
  /** A tag definition was created, changed or deleted. */
  definitions: boolean;
}

const untouched = (): Touched => ({ entities: new Set(), relations: new Set(), definitions: false });

export class GraphFold {
  private readonly entityMap = new Map<string, FoldedEntity>();
  private readonly relationMap = new Map<string, Relation>();
  /** Entity id -> the ids of the relations starting or ending there. */
  private readonly adjacency = new Map<string, Set<string>>();
  private readonly definitionMap = new Map<string, TagDefinition>();
  /** The entities put by a scan whose observations are still keyed by content (FoldedEntity.observations). */
  private readonly keyedByContent = new Set<string>();

  get entities(): ReadonlyMap<string, FoldedEntity> {
    return this.entityMap;
  }

  get relations(): ReadonlyMap<string, Relation> {
    return this.relationMap;
  }

  get definitions(): ReadonlyMap<string, TagDefinition> {
    return this.definitionMap;
  }

  /** Puts an entity as a scan read it (its row's times, authors and order stand), replacing any held under its id. */
  putEntity(entity: Entity, version = entity.version): void {
    const observations = new Map<string, string>();
    let observationTags: Map<string, Set<string>> | undefined;
    let observationValidity: Map<string, Validity> | undefined;
    for (const content of entity.observations) {
      observations.set(content, content);
      const tags = entity.observationTags.get(content);
      if (tags && tags.length > 0) (observationTags ??= new Map()).set(content, new Set(tags));
      const validity = heldValidity(entity.observationValidity?.get(content));
      if (validity) (observationValidity ??= new Map()).set(content, validity);
    }
    const folded = ownFieldsOf(entity, version) as FoldedEntity;
    folded.observations = observations;
    folded.observationTags = observationTags;
    folded.observationValidity = observationValidity;
    folded.tags = new Set(entity.tags);
    this.entityMap.set(entity.id, folded);
    this.keyedByContent.add(entity.id);
  }

  /** Puts a relation as a scan read it (kept as given), linked from both ends. */
  putRelation(relation: Relation): void {
    this.dropRelation(relation.id);
    this.relationMap.set(relation.id, relation);
    for (const end of [relation.fromEntityId, relation.toEntityId]) {
      const ids = this.adjacency.get(end) ?? new Set<string>();
      ids.add(relation.id);
      this.adjacency.set(end, ids);
    }
  }

  putDefinition(definition: TagDefinition): void {
    this.definitionMap.set(definition.name, definition);
  }

  /**
   * Applies events in the feed's order (docs/architecture.md#the-feeds-order). Every change sets state (creates, replaces
   * or removes), so applying an event whose effect is already held changes nothing.
   */
  apply(events: readonly ChangeEvent[]): Touched {
    const touched = untouched();
    for (const event of inFeedOrder(events)) event.changes.forEach((change, i) => this.applyChange(event, change, i + 1, touched));
    return touched;
  }

  /** Every relation touching the entity, oldest first. */
  relationsOf(entityId: string): Relation[] {
    const ids = this.adjacency.get(entityId);
    if (!ids) return [];
    return [...ids].map((id) => this.relationMap.get(id)!).sort(byCreation);
  }

  /** How many relations touch the entity. */
  degree(entityId: string): number {
    return this.adjacency.get(entityId)?.size ?? 0;
  }

  /** One entity with every relation touching it, or undefined. */
  node(entityId: string): EntityNode | undefined {
    const entity = this.entityMap.get(entityId);
    return entity && { entity: entityOf(entity), relations: this.relationsOf(entityId) };
  }

  /** Every entity, oldest first, and every relation. */
  graph(): { entities: Entity[]; relations: Relation[] } {
    return {
      entities: [...this.entityMap.values()].map((entity) => entityOf(entity)).sort(byCreation),
      relations: [...this.relationMap.values()].sort(byCreation),
    };
  }

  /**
   * The one switch over change kinds. `position` is the change's place in its event (from 1): with the event's `at`, the
   * order key of what it creates, the same wherever a fold started (docs/architecture.md#one-fold-of-the-feed).
   */
  private applyChange(event: ChangeEvent, change: Change, position: number, touched: Touched): void {
    const entity = change.entityId === undefined ? undefined : this.entityMap.get(change.entityId);
    if (entity) touched.entities.add(entity.id);
    switch (change.kind) {
      case "entity.created":
      case "entity.updated": {
        const after = change.after as EntityUpdate | undefined;
        if (change.entityId === undefined) return;
        if (!after) {
          // A change of validity alone (restoreValidity): the entity's own fields stay as held.
          if (entity && change.validity && change.kind === "entity.updated") {
            setEntityValidity(entity, change.validity);
            Object.assign(entity, { updatedAt: event.at, updatedBy: event.principal });
          }
          return;
        }
        touched.entities.add(change.entityId);
        if (!entity) {
          const created = createdEntity(change.entityId, after, event, position);
          setEntityValidity(created, change.validity);
          this.entityMap.set(change.entityId, created);
          this.keyedByContent.delete(change.entityId);
          return;
        }
        // A field the after-image leaves out was not written: it stays as held (EntityUpdate).
        Object.assign(entity, {
          name: after.name,
          ...(after.entityType !== undefined ? { entityType: after.entityType } : {}),
          ...(after.metadata !== undefined ? { metadata: after.metadata } : {}),
        });
        setEntityValidity(entity, change.validity);
        if (after.version !== undefined) entity.version = after.version;
        // A creation of an entity held already is one a scan saw (or an event applied again): its row's times stand.
        if (change.kind === "entity.updated") Object.assign(entity, { updatedAt: event.at, updatedBy: event.principal });
        return;
      }
      case "entity.deleted":
        if (change.entityId === undefined) return;
        touched.entities.add(change.entityId);
        this.entityMap.delete(change.entityId);
        this.keyedByContent.delete(change.entityId);
        // Its relations went before it (deletes remove dependents first); drop any an incomplete history left.
        for (const relationId of [...(this.adjacency.get(change.entityId) ?? [])]) {
          this.dropRelation(relationId);
          touched.relations.add(relationId);
        }
        this.adjacency.delete(change.entityId);
        return;
      case "observation.created": {
        const id = observationKeyOf(change);
        if (!entity || id === undefined) return;
        if (!this.keyedById(entity).observations.has(id)) {
          entity.observations.set(id, change.content ?? "");
          setObservationValidity(entity, id, heldValidity(change.validity));
        } else if (change.validity) setObservationValidity(entity, id, patchValidity(entity.observationValidity?.get(id), change.validity));
        return;
      }
      case "observation.updated": {
        const id = observationKeyOf(change);
        if (entity && id !== undefined && this.keyedById(entity).observations.has(id)) {
          setObservationValidity(entity, id, patchValidity(entity.observationValidity?.get(id), change.validity));
        }
        return;
      }
      case "observation.deleted": {
        const id = observationKeyOf(change);
        if (entity && id !== undefined && this.keyedById(entity).observations.delete(id)) {
          untagObservation(entity, id);
          setObservationValidity(entity, id, undefined);
        }
        return;
      }
      case "relation.created":
      case "relation.updated": {
        const after = change.after as Partial<RelationState> | undefined;
        if (!after || change.relationId === undefined) return;
        touched.relations.add(change.relationId);
        const existing = this.relationMap.get(change.relationId);
        if (existing) {
          this.putRelation(
            withValidity(updatedRelation(existing, after, change.kind === "relation.updated" ? event : undefined), change.validity),
          );
        } else if (after.fromEntityId !== undefined && after.toEntityId !== undefined) {
          this.putRelation(withValidity(createdRelation(change.relationId, after, event, position), change.validity));
        }
        return;
      }
      case "relation.deleted":
        if (change.relationId === undefined) return;
        touched.relations.add(change.relationId);
        this.dropRelation(change.relationId);
        return;
      case "tag.created":
      case "tag.updated":
      case "tag.deleted":
        if (change.tagName === undefined) return;
        if (change.entityId === undefined) this.foldDefinition(change.kind, change.tagName, change.after, touched);
        else if (entity) this.foldTagLink(entity, change, change.tagName, touched);
        return;
      case "rejection.created":
      case "rejection.deleted":
        // Not graph state: a rejected duplicate pair lives in its own row (docs/curate.md#rejecting-a-pair).
        return;
    }
  }

  /** A tag definition (define_tag, delete_tags). */
  private foldDefinition(kind: Change["kind"], name: string, after: Change["after"], touched: Touched): void {
    touched.definitions = true;
    if (kind === "tag.deleted") this.definitionMap.delete(name);
    else {
      const state = after as Partial<TagDefinition> | undefined;
      this.definitionMap.set(name, { name, category: state?.category ?? "", description: state?.description ?? "" });
    }
  }

  /** A tag on the entity, or on one of its observations (kept only while that observation is held, as its row guards it). */
  private foldTagLink(entity: FoldedEntity, change: Change, name: string, touched: Touched): void {
    const link = change.kind !== "tag.deleted";
    const observation = change.observationId;
    if (observation === undefined) {
      if (link) entity.tags.add(name);
      else entity.tags.delete(name);
    } else if (!this.keyedById(entity).observations.has(observation)) return;
    else if (link) {
      entity.observationTags ??= new Map();
      const tags = entity.observationTags.get(observation) ?? new Set<string>();
      entity.observationTags.set(observation, tags.add(name));
    } else if (entity.observationTags?.get(observation)?.delete(name) && entity.observationTags.get(observation)!.size === 0) {
      untagObservation(entity, observation);
    }
    // Tagging creates the definition when the workspace has none (empty category and description).
    if (link && !this.definitionMap.has(name)) {
      this.definitionMap.set(name, { name, category: "", description: "" });
      touched.definitions = true;
    }
  }

  /** The entity with its observations keyed by id: a scanned one's keys are made now, once (FoldedEntity.observations). */
  private keyedById(entity: FoldedEntity): FoldedEntity {
    if (!this.keyedByContent.delete(entity.id)) return entity;
    const idOf = new Map([...entity.observations.keys()].map((content) => [content, observationId(entity.id, content)]));
    entity.observations = new Map([...entity.observations].map(([content, text]) => [idOf.get(content)!, text]));
    if (entity.observationTags)
      entity.observationTags = new Map([...entity.observationTags].map(([content, tags]) => [idOf.get(content)!, tags]));
    if (entity.observationValidity)
      entity.observationValidity = new Map([...entity.observationValidity].map(([content, validity]) => [idOf.get(content)!, validity]));
    return entity;
  }

  private dropRelation(relationId: string): void {
    const relation = this.relationMap.get(relationId);
    if (!relation) return;
    this.relationMap.delete(relationId);
    for (const end of [relation.fromEntityId, relation.toEntityId]) this.adjacency.get(end)?.delete(relationId);
  }
}

/** Drops an observation's tag set, and the entity's map of them with its last. */
function untagObservation(entity: FoldedEntity, observation: string): void {
  if (entity.observationTags?.delete(observation) && entity.observationTags.size === 0) entity.observationTags = undefined;
}

/** Holds an observation's validity (or drops it, with the entity's map of them with its last). */
function setObservationValidity(entity: FoldedEntity, observation: string, validity: Validity | undefined): void {
  if (validity) (entity.observationValidity ??= new Map()).set(observation, validity);
  else if (entity.observationValidity?.delete(observation) && entity.observationValidity.size === 0) entity.observationValidity = undefined;
}

/** An entity's expiry and pin with a change's patch on top. */
function setEntityValidity(entity: FoldedEntity, patch: Validity | undefined): void {
  if (!patch) return;
  const held = patchValidity(
    { ...(entity.expiresAt ? { expiresAt: entity.expiresAt } : {}), ...(entity.pinned ? { pinned: true } : {}) },
    patch,
  );
  delete entity.expiresAt;
  delete entity.pinned;
  if (held?.expiresAt) entity.expiresAt = held.expiresAt;
  if (held?.pinned) entity.pinned = true;
}

/** A relation with a change's validity patch on top (its valid time, expiry and pin). */
function withValidity(relation: Relation, patch: Validity | undefined): Relation {
  if (!patch) return relation;
  const { validFrom, validTo, expiresAt, pinned, ...rest } = relation;
  const held = patchValidity(heldValidity({ validFrom, validTo, expiresAt, pinned }), patch);
  return {
    ...rest,
    ...(held?.validFrom ? { validFrom: held.validFrom } : {}),
    ...(held?.validTo ? { validTo: held.validTo } : {}),
    ...(held?.expiresAt ? { expiresAt: held.expiresAt } : {}),
    ...(held?.pinned ? { pinned: true } : {}),
  };
}

/** An observation's key: its id (the row key), or for a change written without one, the id its content gives. */
function observationKeyOf(change: Change): string | undefined {
  if (change.observationId !== undefined) return change.observationId;
  return change.entityId !== undefined && change.content !== undefined ? observationId(change.entityId, change.content) : undefined;
}

/** The times, authors and order key of what an event creates, `position` its change's place in the event. */
function creation(event: ChangeEvent, position: number) {
  return {
    createdAt: event.at,
    updatedAt: event.at,
    createdBy: event.principal,
    updatedBy: event.principal,
    order: orderKey(event.at, position),
  };
}

function createdEntity(id: string, state: EntityUpdate, event: ChangeEvent, position: number): FoldedEntity {
  return {
    id,
    name: state.name,
    entityType: state.entityType ?? "",
    metadata: state.metadata ?? {},
    ...creation(event, position),
    ...(state.version !== undefined ? { version: state.version } : {}),
    observations: new Map(),
    observationTags: undefined,
    observationValidity: undefined,
    tags: new Set(),
  };
}

function createdRelation(id: string, state: Partial<RelationState>, event: ChangeEvent, position: number): Relation {
  return {
    id,
    fromEntityId: state.fromEntityId ?? "",
    fromName: state.fromName ?? "",
    toEntityId: state.toEntityId ?? "",
    toName: state.toName ?? "",
    relationType: state.relationType ?? "",
    metadata: state.metadata ?? {},
    ...creation(event, position),
    ...(state.version !== undefined ? { version: state.version } : {}),
  };
}

/**
 * A held relation with a change's fields on top (a relation.updated without metadata keeps the stored metadata). An
 * update (`by` given) stamps who changed it and when; a creation of one held already leaves its times, as for entities.
 */
function updatedRelation(existing: Relation, state: Partial<RelationState>, by: ChangeEvent | undefined): Relation {
  const defined = Object.fromEntries(Object.entries(state).filter(([, value]) => value !== undefined)) as Partial<RelationState>;
  return { ...existing, ...defined, ...(by ? { updatedAt: by.at, updatedBy: by.principal } : {}) };
}

/** The entity as reads return it; `full: false` leaves out its observations and version (read_graph's names mode). */
export function entityOf(entity: FoldedEntity, full = true): Entity {
  const observationTags = new Map<string, string[]>();
  let observationValidity: Map<string, Validity> | undefined;
  if (full) {
    for (const [id, tags] of entity.observationTags ?? []) observationTags.set(entity.observations.get(id)!, [...tags].sort(compareText));
    for (const [id, validity] of entity.observationValidity ?? [])
      (observationValidity ??= new Map()).set(entity.observations.get(id)!, validity);
  }
  return {
    ...ownFieldsOf(entity, full ? entity.version : undefined),
    observations: full ? [...entity.observations.values()] : [],
    tags: [...entity.tags].sort(compareText),
    observationTags,
    ...(observationValidity ? { observationValidity } : {}),
  };
}

/** An entity's own fields (its row's), copied one by one; each author, and the version, present only when recorded. */
function ownFieldsOf(
  entity: Omit<FoldedEntity, "observations" | "observationTags" | "observationValidity" | "tags">,
  version: string | undefined,
) {
  return {
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
    ...(entity.expiresAt ? { expiresAt: entity.expiresAt } : {}),
    ...(entity.pinned ? { pinned: true } : {}),
  };
}
