import { inFeedOrder, type Change, type ChangeEvent, type EntityState, type RelationState } from "./history.js";
import type { Entity, EntityNode, Metadata, Relation } from "../model/model.js";
import { byCreation, compareText, orderKey } from "../model/order.js";

/**
 * The graph as it was: the state a set of events leaves, folded in the feed's order (commit time, then
 * key: docs/architecture.md#the-feeds-order), rebuilt from their changes alone (docs/history.md#as-of-reads).
 * Pure: no storage.
 */

interface Authored {
  createdAt: string;
  updatedAt: string;
  createdBy: string;
  updatedBy: string;
  order: string;
}

interface EntityAt extends Authored {
  id: string;
  state: EntityState;
  /** Observation id -> content, in the order added. */
  observations: Map<string, string>;
  tags: Set<string>;
  /** Observation id -> its tags. */
  observationTags: Map<string, Set<string>>;
}

interface RelationAt extends Authored {
  id: string;
  state: RelationState;
}

export class GraphReplay {
  private readonly entities = new Map<string, EntityAt>();
  private readonly relations = new Map<string, RelationAt>();
  private position = 0;

  apply(events: readonly ChangeEvent[]): this {
    for (const event of inFeedOrder(events)) for (const change of event.changes) this.applyChange(event, change);
    return this;
  }

  /** Whether the entity exists in the replayed state. */
  has(entityId: string): boolean {
    return this.entities.has(entityId);
  }

  /** One entity with every relation touching it, or undefined. */
  node(entityId: string): EntityNode | undefined {
    const entity = this.entities.get(entityId);
    if (!entity) return undefined;
    const relations = [...this.relations.values()]
      .filter((relation) => relation.state.fromEntityId === entityId || relation.state.toEntityId === entityId)
      .map(toRelation)
      .sort(byCreation);
    return { entity: toEntity(entity), relations };
  }

  /** Every entity, oldest first, and every relation. */
  graph(): { entities: Entity[]; relations: Relation[] } {
    return {
      entities: [...this.entities.values()].map(toEntity).sort(byCreation),
      relations: [...this.relations.values()].map(toRelation).sort(byCreation),
    };
  }

  private authored(event: ChangeEvent): Authored {
    this.position += 1;
    return {
      createdAt: event.at,
      updatedAt: event.at,
      createdBy: event.principal,
      updatedBy: event.principal,
      order: orderKey(event.at, this.position),
    };
  }

  private touch(target: Authored, event: ChangeEvent): void {
    target.updatedAt = event.at;
    target.updatedBy = event.principal;
  }

  private applyChange(event: ChangeEvent, change: Change): void {
    const entity = change.entityId !== undefined ? this.entities.get(change.entityId) : undefined;
    switch (change.kind) {
      case "entity.created":
      case "entity.updated": {
        const after = change.after as EntityState | undefined;
        if (!after || change.entityId === undefined) return;
        if (entity) {
          entity.state = { ...entity.state, ...after };
          this.touch(entity, event);
        } else {
          const fresh: EntityAt = {
            id: change.entityId,
            state: after,
            observations: new Map(),
            tags: new Set(),
            observationTags: new Map(),
            ...this.authored(event),
          };
          this.entities.set(change.entityId, fresh);
        }
        return;
      }
      case "entity.deleted":
        if (change.entityId === undefined) return;
        this.entities.delete(change.entityId);
        // Its relations went before it (deletes remove dependents first); drop any an incomplete history left.
        for (const [id, relation] of this.relations) {
          if (relation.state.fromEntityId === change.entityId || relation.state.toEntityId === change.entityId) this.relations.delete(id);
        }
        return;
      case "observation.created":
        if (entity && change.observationId !== undefined && !entity.observations.has(change.observationId)) {
          entity.observations.set(change.observationId, change.content ?? "");
        }
        return;
      case "observation.deleted":
        if (entity && change.observationId !== undefined) {
          entity.observations.delete(change.observationId);
          entity.observationTags.delete(change.observationId);
        }
        return;
      case "relation.created":
      case "relation.updated": {
        if (change.relationId === undefined || !change.after) return;
        const stored = this.relations.get(change.relationId);
        const after = change.after as Partial<RelationState>;
        if (stored) {
          stored.state = { ...stored.state, ...after };
          this.touch(stored, event);
        } else if ("fromEntityId" in after) {
          const state = { metadata: {} as Metadata, ...after } as RelationState;
          this.relations.set(change.relationId, { id: change.relationId, state, ...this.authored(event) });
        }
        return;
      }
      case "relation.deleted":
        if (change.relationId !== undefined) this.relations.delete(change.relationId);
        return;
      case "tag.created":
      case "tag.updated":
      case "tag.deleted": {
        // Definitions (no entityId) are not part of the graph's state.
        if (!entity || change.tagName === undefined) return;
        const add = change.kind !== "tag.deleted";
        if (change.observationId === undefined) {
          if (add) entity.tags.add(change.tagName);
          else entity.tags.delete(change.tagName);
          return;
        }
        const tags = entity.observationTags.get(change.observationId) ?? new Set<string>();
        if (add) tags.add(change.tagName);
        else tags.delete(change.tagName);
        entity.observationTags.set(change.observationId, tags);
        return;
      }
    }
  }
}

const sortedNames = (names: Iterable<string>) => [...names].sort(compareText);

function toEntity(entity: EntityAt): Entity {
  const observationTags = new Map<string, string[]>();
  for (const [id, tags] of entity.observationTags) {
    const content = entity.observations.get(id);
    if (content !== undefined && tags.size > 0) observationTags.set(content, sortedNames(tags));
  }
  return {
    id: entity.id,
    name: entity.state.name,
    entityType: entity.state.entityType,
    observations: [...entity.observations.values()],
    tags: sortedNames(entity.tags),
    observationTags,
    metadata: entity.state.metadata,
    createdAt: entity.createdAt,
    updatedAt: entity.updatedAt,
    createdBy: entity.createdBy,
    updatedBy: entity.updatedBy,
    order: entity.order,
    ...(entity.state.version !== undefined ? { version: entity.state.version } : {}),
  };
}

function toRelation(relation: RelationAt): Relation {
  return {
    id: relation.id,
    ...relation.state,
    createdAt: relation.createdAt,
    updatedAt: relation.updatedAt,
    createdBy: relation.createdBy,
    updatedBy: relation.updatedBy,
    order: relation.order,
  };
}
