import { NotFoundError } from "../model/errors.js";
import { checkExpectedVersion } from "../model/expectedVersion.js";
import { entityId, relationId } from "../model/ids.js";
import { LIMITS } from "../model/limits.js";
import type { Actor, Direction, Entity, Relation } from "../model/model.js";
import {
  checkCount,
  checkEntityName,
  checkEntityType,
  checkObservation,
  checkRelationType,
  normalizeMetadata,
} from "../model/validation.js";
import type { EntitySummary, GraphStore } from "../ports/store.js";
import { type EntityRef, idOf } from "../rules/entityRef.js";
import { checkValidityInput, entityShows, isExpired, lensOf, relationShows, type TimeLens, type ValidityInput } from "../rules/validity.js";
import type { AsOfReads } from "./asOf.js";
import type { LensArgs } from "./graphService.js";

export interface UpsertEntityInput extends ValidityInput {
  name: string;
  entityType: string;
  observations?: string[];
  metadata?: unknown;
  expectedVersion?: string;
}

export interface UpsertRelationInput extends ValidityInput {
  from: EntityRef;
  to: EntityRef;
  relationType: string;
  metadata?: unknown;
  expectedVersion?: string;
}

/**
 * The core toolset (the Central-Memory API): upserts of one entity or one relation, and an entity's
 * relations. Write methods take the actor (the caller's principal id and the tool), which the store
 * records as createdBy/updatedBy and in the write's change events. Every method checks all of its input
 * before it derives an id or calls the store, so invalid input changes nothing.
 */
export class CoreService {
  constructor(
    private readonly store: GraphStore,
    private readonly asOf: AsOfReads,
    /** Now, in ms: what an expiry on write is checked against, and "true now" on reads (docs/history.md#two-times). */
    private readonly clock: () => number = Date.now,
  ) {}

  async upsertEntity(workspace: string, actor: Actor, input: UpsertEntityInput) {
    const observations = input.observations ?? [];
    checkEntityName(input.name, "name");
    checkEntityType(input.entityType, "entityType");
    checkCount(observations, "observations", LIMITS.observationsPerCall);
    observations.forEach((content, i) => checkObservation(content, `observations[${i}]`));
    checkExpectedVersion(input.expectedVersion, "expectedVersion");
    const metadata = normalizeMetadata(input.metadata);
    // The valid time and expiry of the observations it adds.
    const observationTimes = checkValidityInput(input, this.clock());
    const id = entityId(workspace, input.name);
    const result = await this.store.upsertEntity(workspace, actor, {
      id,
      name: input.name,
      entityType: input.entityType,
      observations,
      ...(metadata !== undefined ? { metadata } : {}),
      ...(observationTimes ? { observationTimes } : {}),
      ...(input.expectedVersion !== undefined ? { expectedVersion: input.expectedVersion } : {}),
    });
    return { id, created: result.created, addedObservations: result.addedObservations, version: result.version };
  }

  async upsertRelation(workspace: string, actor: Actor, input: UpsertRelationInput) {
    const fromId = idOf(workspace, input.from, { id: "fromEntityId", name: "from", role: "the source entity" });
    const toId = idOf(workspace, input.to, { id: "toEntityId", name: "to", role: "the target entity" });
    checkRelationType(input.relationType, "relationType");
    checkExpectedVersion(input.expectedVersion, "expectedVersion");
    const metadata = normalizeMetadata(input.metadata);
    const validity = checkValidityInput(input, this.clock());
    const [from, to] = await Promise.all([
      this.resolveEndpoint(workspace, fromId, input.from, "Source"),
      this.resolveEndpoint(workspace, toId, input.to, "Target"),
    ]);
    const id = relationId(workspace, from.id, input.relationType, to.id);
    try {
      const { created, version } = await this.store.upsertRelation(workspace, actor, {
        id,
        fromEntityId: from.id,
        fromName: from.name,
        toEntityId: to.id,
        toName: to.name,
        relationType: input.relationType,
        ...(metadata !== undefined ? { metadata } : {}),
        ...(input.expectedVersion !== undefined ? { expectedVersion: input.expectedVersion } : {}),
        ...(validity ? { validity } : {}),
      });
      return { relationId: id, fromEntityId: from.id, toEntityId: to.id, created, version };
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

  /**
   * The entity's relations in one direction, seen through the time lens (docs/history.md#two-times): an expired entity is
   * not found; ended and not-yet-valid relations show only with includeSuperseded. With asOf, as the feed held them then.
   */
  async getEntityRelations(
    workspace: string,
    ref: EntityRef,
    direction: Direction,
    options: { asOf?: string } & LensArgs = {},
  ): Promise<{ entityId: string; entity?: Entity; relations: Relation[]; lens: TimeLens }> {
    const id = idOf(workspace, ref, { id: "entityId", name: "entityName" });
    const lens = lensOf(options, this.clock());
    const label = ref.name ?? ref.id;
    if (options.asOf !== undefined) {
      const node = await this.asOf.node(workspace, id, label ?? id, options.asOf);
      if (!entityShows(node.entity, lens)) throw expired(label, workspace, node.entity.expiresAt, `at ${options.asOf}`);
      const relations = node.relations.filter(
        (relation) =>
          (direction === "both" || (direction === "out" ? relation.fromEntityId === id : relation.toEntityId === id)) &&
          relationShows(relation, lens),
      );
      return { entityId: id, relations, lens };
    }
    const node = await this.store.getEntityRelations(workspace, id, direction);
    if (!node) throw new NotFoundError(`Entity '${label}' not found in workspace '${workspace}'.`);
    if (isExpired({ expiresAt: node.entity.expiresAt, pinned: node.entity.pinned }, lens.heldAt)) {
      throw expired(label, workspace, node.entity.expiresAt, "");
    }
    return { entityId: id, entity: node.entity, relations: node.relations.filter((relation) => relationShows(relation, lens)), lens };
  }

  /**
   * A name (alone, or with an id it agrees with) needs no read: its id is derived, and the write's
   * guard proves it exists. A GUID alone needs one point read, to learn the name stored in the edge rows.
   */
  private async resolveEndpoint(
    workspace: string,
    id: string,
    ref: EntityRef,
    role: "Source" | "Target",
  ): Promise<EntitySummary | { id: string; name: string }> {
    if (ref.name !== undefined) return { id, name: ref.name };
    const summary = await this.store.getEntitySummary(workspace, id);
    if (!summary) throw endpointMissing(role, ref);
    return summary;
  }
}

/** An expired entity reads as absent (docs/history.md#two-times); the message says why, and how to keep such an entity. */
function expired(label: string | undefined, workspace: string, expiresAt: string | undefined, when: string): NotFoundError {
  return new NotFoundError(
    `Entity '${label}' not found in workspace '${workspace}'${when ? ` ${when}` : ""}: it expired at ${expiresAt}. ` +
      "To keep an entity past its expiry, pin it or move its expiry with set_expiry before it passes.",
  );
}

function endpointMissing(role: "Source" | "Target", ref: EntityRef): NotFoundError {
  return new NotFoundError(`${role} entity '${ref.name ?? ref.id}' not found. Create it with upsert_entity first.`);
}
