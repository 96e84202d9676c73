import type { Direction, Entity, GraphPage, Metadata, Relation } from "./model.js";

/** What an upsert writes to an entity. Absent fields keep their stored values. */
export interface EntityWrite {
  id: string;
  name: string;
  entityType?: string;
  metadata?: Metadata;
  /** Added if not already present; stored observations are never removed by an upsert. */
  observations: string[];
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
}

export interface EntitySummary {
  id: string;
  name: string;
  entityType: string;
}

/**
 * The storage port. The domain states what must happen; an adapter decides how, and must keep
 * every write safe under concurrent writers on other machines.
 */
export interface GraphStore {
  /** The entity row alone (one point read), or undefined. */
  getEntitySummary(workspace: string, entityId: string): Promise<EntitySummary | undefined>;

  /**
   * Creates or updates an entity and adds observations it does not have yet.
   * Throws NotFoundError only if the entity vanished mid-write and could not be recreated.
   */
  upsertEntity(workspace: string, write: EntityWrite): Promise<{ created: boolean; addedObservations: string[] }>;

  /** Writes a relation atomically with its edge rows. Throws NotFoundError if an endpoint does not exist. */
  upsertRelation(workspace: string, write: RelationWrite): Promise<{ created: boolean }>;

  /** The entity's relations in one direction, or undefined when the entity does not exist. */
  getEntityRelations(workspace: string, entityId: string, direction: Direction): Promise<Relation[] | undefined>;

  /** Entities (with observations) and relations of the workspace, in pages. */
  readGraph(workspace: string, options: { limit?: number; cursor?: string }): Promise<GraphPage>;
}

export type { Entity, Relation };
