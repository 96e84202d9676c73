import { NotFoundError, ValidationError } from "./errors.js";
import { entityId, isGuid, relationId } from "./ids.js";
import type { Direction, GraphPage, Relation } from "./model.js";
import type { EntitySummary, GraphStore } from "./store.js";
import { normalizeMetadata } from "./validation.js";

export interface UpsertEntityInput {
  name: string;
  entityType: string;
  observations?: string[];
  metadata?: unknown;
}

export interface EntityRef {
  /** The entity's GUID; takes the place of `name` when given. */
  id?: string;
  name?: string;
}

export interface UpsertRelationInput {
  from: EntityRef;
  to: EntityRef;
  relationType: string;
  metadata?: unknown;
}

/** The graph rules of one workspace-partitioned memory. Storage details stay behind GraphStore. */
export class MemoryService {
  constructor(private readonly store: GraphStore) {}

  async upsertEntity(workspace: string, input: UpsertEntityInput) {
    const id = entityId(workspace, input.name);
    const metadata = normalizeMetadata(input.metadata);
    const result = await this.store.upsertEntity(workspace, {
      id,
      name: input.name,
      entityType: input.entityType,
      observations: input.observations ?? [],
      ...(metadata !== undefined ? { metadata } : {}),
    });
    return { id, created: result.created, addedObservations: result.addedObservations };
  }

  async upsertRelation(workspace: string, input: UpsertRelationInput) {
    const metadata = normalizeMetadata(input.metadata);
    const [from, to] = await Promise.all([
      this.resolveEndpoint(workspace, input.from, "Source"),
      this.resolveEndpoint(workspace, input.to, "Target"),
    ]);
    const id = relationId(workspace, from.id, input.relationType, to.id);
    try {
      const { created } = await this.store.upsertRelation(workspace, {
        id,
        fromEntityId: from.id,
        fromName: from.name,
        toEntityId: to.id,
        toName: to.name,
        relationType: input.relationType,
        ...(metadata !== undefined ? { metadata } : {}),
      });
      return { relationId: id, fromEntityId: from.id, toEntityId: to.id, created };
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      // The transaction's endpoint guard failed: find out which endpoint is missing, and say so.
      const [source, target] = await Promise.all([
        this.store.getEntitySummary(workspace, from.id),
        this.store.getEntitySummary(workspace, to.id),
      ]);
      if (!source) throw endpointMissing("Source", input.from);
      if (!target) throw endpointMissing("Target", input.to);
      throw error;
    }
  }

  async getEntityRelations(workspace: string, ref: EntityRef, direction: Direction): Promise<{ entityId: string; relations: Relation[] }> {
    const id = this.idOf(workspace, ref);
    const relations = await this.store.getEntityRelations(workspace, id, direction);
    if (!relations) throw new NotFoundError(`Entity '${ref.name ?? ref.id}' not found in workspace '${workspace}'.`);
    return { entityId: id, relations };
  }

  readGraph(workspace: string, options: { limit?: number; cursor?: string } = {}): Promise<GraphPage> {
    return this.store.readGraph(workspace, options);
  }

  /**
   * A name needs no read: its id is derived, and the write's guard proves it exists.
   * A GUID needs one point read, to learn the name stored in the edge rows.
   */
  private async resolveEndpoint(workspace: string, ref: EntityRef, role: "Source" | "Target"): Promise<EntitySummary | { id: string; name: string }> {
    const id = this.idOf(workspace, ref);
    if (ref.id === undefined && ref.name !== undefined) return { id, name: ref.name };
    const summary = await this.store.getEntitySummary(workspace, id);
    if (!summary) throw endpointMissing(role, ref);
    if (ref.name !== undefined && summary.name !== ref.name) {
      throw new ValidationError(`${role} entity id '${id}' belongs to '${summary.name}', not '${ref.name}'. Give either the id or the name.`);
    }
    return summary;
  }

  private idOf(workspace: string, ref: EntityRef): string {
    if (ref.id !== undefined) {
      if (!isGuid(ref.id)) throw new ValidationError(`'${ref.id}' is not an entity id (a GUID). Pass the entity's name instead.`);
      return ref.id.toLowerCase();
    }
    if (ref.name !== undefined) return entityId(workspace, ref.name);
    throw new ValidationError("Name the entity: give its id or its name.");
  }
}

function endpointMissing(role: "Source" | "Target", ref: EntityRef): NotFoundError {
  return new NotFoundError(`${role} entity '${ref.name ?? ref.id}' not found. Create it with upsert_entity first.`);
}
