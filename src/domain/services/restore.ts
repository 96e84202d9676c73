import { type Change, type ChangeEvent, commitTimeOf, entitiesOf, type EntityState, feedPlace } from "../feed/history.js";
import { GraphReplay } from "../feed/replay.js";
import { ConflictError, NotFoundError, ValidationError } from "../model/errors.js";
import { entityId as entityIdOf, observationId as observationIdOf, relationId, tagId } from "../model/ids.js";
import { LIMITS } from "../model/limits.js";
import type { Actor, EntityNode, Relation, Validity } from "../model/model.js";
import { checkEntityName } from "../model/validation.js";
import type { GraphStore, RelationWrite, ValidityRestore } from "../ports/store.js";
import { entityValidity, relationValidity } from "../rules/validity.js";

/**
 * restore_entity (docs/history.md#restoring-a-deleted-entity): brings back a deleted entity, as it was just before
 * the call that deleted it or at a given time, through the store's writes (so it records events and
 * can be undone like any write). On an entity that exists, with `asOf`, it rolls the entity back to its state then
 * (undo): what supersede_observation, end_relation, set_expiry and later additions changed since is put back.
 */

/**
 * A bound on how far apart one call's events are keyed: its transactions are sent one after another
 * while the call runs, which is seconds, or minutes for the largest. Retention prunes days-old events, so
 * a deleting call whose first kept event is this far after the pruned range cannot have lost any.
 */
const CALL_SPAN_MS = 3_600_000;

/** Whether the change concerns the entity: its own rows, a relation with it at either end, or a merge into it. */
export function touchesEntity(change: Change, entityId: string): boolean {
  return entitiesOf(change).includes(entityId) || change.mergedInto === entityId;
}

const deletionOf = (id: string) => (change: Change) => change.kind === "entity.deleted" && change.entityId === id;

export interface RestoreReport {
  entityName: string;
  entityId: string;
  restoredAsOf: string;
  observations: number;
  relations: number;
  relationsSkipped: number;
  tags: string[];
  observationTags: number;
  /** On an entity that exists (a roll back to asOf): what was put back. */
  rolledBack?: RollBack;
}

/** What rolling an existing entity back to asOf changed. */
interface RollBack {
  /** Observations whose valid time or expiry was put back as it was (a supersession or an ending undone, say). */
  observationsRestored: string[];
  /** Observations added since asOf, deleted (the feed keeps them). */
  observationsRemoved: string[];
  /** Observations deleted since asOf, added back. */
  observationsAddedBack: string[];
  /** Relations whose valid time or expiry was put back (an end_relation undone, say), as "from relationType to". */
  relationsRestored: string[];
  /** Relations created since asOf, deleted. */
  relationsRemoved: string[];
  /** Relations deleted since asOf, created again (to entities that exist now). */
  relationsAddedBack: string[];
  /** The entity's own expiry and pin were put back. */
  expiryRestored: boolean;
}

export class EntityRestore {
  constructor(
    private readonly store: GraphStore,
    /** asOf checked against where the workspace's history starts (AsOfReads), as milliseconds. */
    private readonly checkAsOf: (workspace: string, asOf: string) => Promise<number>,
  ) {}

  async restore(workspace: string, actor: Actor, name: string, asOf?: string, rollBack = false): Promise<RestoreReport> {
    checkEntityName(name, "entityName");
    const id = entityIdOf(workspace, name);
    const at = asOf === undefined ? undefined : await this.checkAsOf(workspace, asOf);
    const [current, events] = await Promise.all([
      this.store.getEntitySummary(workspace, id),
      this.store.events(workspace, { entityId: id }),
    ]);
    if (rollBack && at === undefined) {
      throw new ValidationError("rollBack needs asOf: the time to roll the entity back to (get_entity_history shows its changes).");
    }
    // Only when asked: two restores of a deleted entity racing must still make one of them a ConflictError (not a roll back).
    if (current && rollBack) return this.rollBack(workspace, actor, name, id, events, at!);
    if (current) {
      throw new ConflictError(
        `Entity '${name}' exists in workspace '${workspace}': restore_entity brings back a deleted entity. To roll it back to an ` +
          "earlier state instead (undoing supersessions, endings, expiry changes and later additions), call it again with asOf and " +
          "rollBack: true. Or delete it first to replace it with an earlier state.",
      );
    }
    if (events.length === 0) throw new NotFoundError(`Entity '${name}' has no history in workspace '${workspace}'. Names match exactly.`);
    const { node, restoredAsOf } =
      at !== undefined
        ? {
            node: new GraphReplay().apply(events.filter((event) => committedMs(event) <= at)).node(id),
            restoredAsOf: new Date(at).toISOString(),
          }
        : await this.beforeDeletion(workspace, events, id, name);
    if (!node) {
      throw new NotFoundError(
        `Entity '${name}' did not exist at ${asOf ?? "the time before its deletion"}. get_entity_history shows when it did.`,
      );
    }
    return { ...(await this.write(workspace, actor, name, node)), restoredAsOf: restoredAsOf ?? node.entity.updatedAt };
  }

  /**
   * Rolls an existing entity back to its state at `at` (undo): observations and relations closed since are reopened and
   * their valid time and expiry put back (validity patches, observation.updated / relation.updated), those added since are
   * deleted (the feed keeps them), those deleted since are added back, and its own expiry is put back. Its type and metadata
   * are put back too; its tags are left as they are.
   */
  private async rollBack(
    workspace: string,
    actor: Actor,
    name: string,
    id: string,
    events: readonly ChangeEvent[],
    at: number,
  ): Promise<RestoreReport> {
    const restoredAsOf = new Date(at).toISOString();
    const then = new GraphReplay().apply(events.filter((event) => committedMs(event) <= at)).node(id);
    if (!then) {
      throw new NotFoundError(`Entity '${name}' did not exist at ${restoredAsOf}. get_entity_history shows when it did.`);
    }
    const [now] = await this.store.getEntities(workspace, [id]);
    if (!now)
      throw new ConflictError(`Entity '${name}' was deleted while restore_entity read it. Nothing was written. Call restore_entity again.`);
    const was = new Set(then.entity.observations);
    const is = new Set(now.entity.observations);
    const removed = now.entity.observations.filter((content) => !was.has(content));
    const addedBack = then.entity.observations.filter((content) => !is.has(content));
    const thenRelations = new Map(then.relations.map((relation) => [relation.id, relation]));
    const nowRelations = new Map(now.relations.map((relation) => [relation.id, relation]));
    const relationsRemoved = now.relations.filter((relation) => !thenRelations.has(relation.id));
    const relationsMissing = then.relations.filter((relation) => !nowRelations.has(relation.id));

    const { entityType, metadata } = then.entity;
    if (entityType !== now.entity.entityType || JSON.stringify(metadata) !== JSON.stringify(now.entity.metadata)) {
      await this.store.upsertEntity(workspace, actor, { id, name: now.entity.name, entityType, metadata, observations: [] });
    }
    if (removed.length > 0) await this.store.deleteObservations(workspace, actor, [{ entityId: id, contents: removed }]);
    if (addedBack.length > 0) {
      // As they were: a single-valued key must not supersede a value that also held at asOf (its patch below settles it).
      const { missing } = await this.store.addObservations(workspace, actor, [{ entityId: id, contents: addedBack, asRecorded: true }]);
      if (missing.length > 0) throw deletedMeanwhile(name);
    }
    if (relationsRemoved.length > 0) await this.store.deleteRelations(workspace, actor, relationsRemoved);
    const relationsAddedBack = await this.relationsBack(workspace, actor, id, now.entity.name, relationsMissing);

    // Valid time and expiry: every observation and relation held now (or just added back) whose validity differs from then.
    const nowValidity = (content: string) => (addedBack.includes(content) ? undefined : now.entity.observationValidity?.get(content));
    const observations = then.entity.observations.flatMap((content) => {
      const validity = patchTo(nowValidity(content), then.entity.observationValidity?.get(content));
      return validity ? [{ content, validity }] : [];
    });
    const back = new Set(relationsAddedBack.map((relation) => relation.id));
    const relations = then.relations.flatMap((relation) => {
      const held = nowRelations.get(relation.id);
      if (!held && !back.has(relation.id)) return [];
      const validity = patchTo(held && relationValidity(held), relationValidity(relation));
      return validity ? [{ relation: relationsAddedBack.find((r) => r.id === relation.id) ?? held!, validity }] : [];
    });
    const entityPatch = patchTo(entityValidity(now.entity), entityValidity(then.entity));
    if (observations.length > 0 || relations.length > 0 || entityPatch) {
      const restore: ValidityRestore = {
        entity: { id, name: now.entity.name, entityType, metadata },
        ...(entityPatch ? { entityValidity: entityPatch } : {}),
        observations,
        relations,
      };
      try {
        await this.store.restoreValidity(workspace, actor, restore);
      } catch (error) {
        if (error instanceof NotFoundError) throw deletedMeanwhile(name);
        throw error;
      }
    }
    const label = (relation: Relation) => `${relation.fromName} ${relation.relationType} ${relation.toName}`;
    return {
      entityName: now.entity.name,
      entityId: id,
      restoredAsOf,
      observations: then.entity.observations.length,
      relations: then.relations.length - (relationsMissing.length - relationsAddedBack.length),
      relationsSkipped: relationsMissing.length - relationsAddedBack.length,
      tags: [],
      observationTags: 0,
      rolledBack: {
        observationsRestored: observations.filter(({ content }) => !addedBack.includes(content)).map(({ content }) => content),
        observationsRemoved: removed,
        observationsAddedBack: addedBack,
        relationsRestored: relations.filter(({ relation }) => !back.has(relation.id)).map(({ relation }) => label(relation)),
        relationsRemoved: relationsRemoved.map(label),
        relationsAddedBack: relationsAddedBack.map(label),
        expiryRestored: entityPatch !== undefined,
      },
    };
  }

  /** Creates again the relations deleted since, to entities that exist now (named as they are now); returns those created. */
  private async relationsBack(
    workspace: string,
    actor: Actor,
    id: string,
    name: string,
    relations: readonly Relation[],
  ): Promise<Relation[]> {
    if (relations.length === 0) return [];
    const others = [...new Set(relations.map((relation) => (relation.fromEntityId === id ? relation.toEntityId : relation.fromEntityId)))];
    const present = new Map<string, string>([[id, name]]);
    const summaries = await Promise.all(others.map((other) => this.store.getEntitySummary(workspace, other)));
    summaries.forEach((summary, i) => summary && present.set(others[i]!, summary.name));
    const writes = relations
      .filter((relation) => present.has(relation.fromEntityId) && present.has(relation.toEntityId))
      .map((relation) => ({
        ...relation,
        fromName: present.get(relation.fromEntityId)!,
        toName: present.get(relation.toEntityId)!,
      }));
    const { created } = await this.store.createRelations(
      workspace,
      actor,
      writes.map((relation): RelationWrite => ({
        id: relation.id,
        fromEntityId: relation.fromEntityId,
        fromName: relation.fromName,
        toEntityId: relation.toEntityId,
        toName: relation.toName,
        relationType: relation.relationType,
        metadata: relation.metadata,
      })),
      { allOrNothing: false },
    );
    const made = new Set(created);
    return writes.filter((relation) => made.has(relation.id));
  }

  /**
   * The entity just before the call that last deleted it. The replay of its history when that history is
   * whole (its creation is kept); otherwise (retention pruned its start, or it predates history) the
   * deleting call's before-images, which hold everything the delete removed, provided that call is kept whole.
   */
  private async beforeDeletion(
    workspace: string,
    events: ChangeEvent[],
    id: string,
    name: string,
  ): Promise<{ node: EntityNode | undefined; restoredAsOf?: string }> {
    const deletion = events.findLast((event) => event.changes.some(deletionOf(id)));
    if (!deletion) return { node: new GraphReplay().apply(events).node(id) };
    // The two reads ran in parallel: history that ends in a creation, while the entity row is absent, missed a deletion that
    // committed between them, and would restore the incarnation before it.
    const lifecycle = events
      .flatMap((event) => event.changes)
      .filter((change) => change.entityId === id && /^entity\.(created|deleted)$/.test(change.kind));
    if (lifecycle.at(-1)?.kind === "entity.created") {
      throw new ConflictError(
        `Entity '${name}' was deleted while restore_entity read its history. Nothing was written. Call restore_entity again.`,
      );
    }
    const deleted = deletion.changes.find(deletionOf(id))!;
    const call = events.filter((event) => event.call === deletion.call);
    // Just before the deleting call, in the feed's order (docs/architecture.md#the-feeds-order): its earlier transactions
    // removed the dependents before the entity row went.
    const callStart = feedPlace(call[0]!);
    const before = events.filter((event) => feedPlace(event) < callStart);
    if (deleted.mergedInto !== undefined) throw mergedAway(name, deleted, deletion, call[0]!);
    const created = before.some((event) => event.changes.some((change) => change.kind === "entity.created" && change.entityId === id));
    // As of just before the deleting call committed: given back as asOf, it reads the state restored.
    const restoredAsOf = new Date(committedMs(call[0]!) - 1).toISOString();
    // Pruning removes the oldest events first: with the last creation kept, everything after it is kept too.
    if (created) return { node: new GraphReplay().apply(before).node(id), restoredAsOf };
    const { prunedBefore } = await this.store.historyStart(workspace);
    const state = deleted.before as EntityState | undefined;
    if (prunedBefore !== undefined && Date.parse(prunedBefore) > Date.parse(call[0]!.at) - CALL_SPAN_MS) {
      throw new ValidationError(
        `Entity '${name}' cannot be restored whole: history before ${prunedBefore} was pruned (MEMORY_HISTORY_RETENTION_DAYS), and ` +
          `with it part of the call that deleted it (${deletion.tool} at ${deletion.at}), so its state before the deletion is no longer ` +
          "known in full. Nothing was written. get_entity_history lists what is kept of it; re-create it from that with upsert_entity.",
      );
    }
    if (!state) {
      throw new ValidationError(
        `Entity '${name}' cannot be restored whole: its history does not reach its creation, and its deletion (${deletion.tool} at ` +
          `${deletion.at}) recorded no before-image. Nothing was written. get_entity_history lists what is kept of it; re-create it ` +
          "from that with upsert_entity.",
      );
    }
    return { node: fromBeforeImages(id, deletion, state, call, before), restoredAsOf };
  }

  /**
   * Writes the entity (create-if-absent: a create, upsert or restore that won the race makes this one a
   * conflict that wrote nothing), then its relations to entities that exist now, then its tags.
   */
  private async write(workspace: string, actor: Actor, name: string, node: EntityNode): Promise<Omit<RestoreReport, "restoredAsOf">> {
    const { entity } = node;
    const id = entity.id;
    const { created } = await this.store.createEntities(workspace, actor, [
      {
        id,
        name: entity.name,
        entityType: entity.entityType,
        metadata: entity.metadata,
        observations: entity.observations,
        ...(entity.expiresAt ? { expiresAt: entity.expiresAt } : {}),
      },
    ]);
    if (!created.includes(id)) {
      throw new ConflictError(
        `Entity '${name}' was created by another call (create_entities, upsert_entity or restore_entity) while this restore ran, so ` +
          "this restore wrote nothing. open_nodes shows what it holds now; to replace that with the state restored here, delete it " +
          "with delete_entities and call restore_entity again.",
      );
    }
    // Relations come back only to entities that exist now (named as they are now), so no edge dangles.
    const others = [
      ...new Set(node.relations.map((relation) => (relation.fromEntityId === id ? relation.toEntityId : relation.fromEntityId))),
    ].filter((other) => other !== id);
    const present = new Map<string, string>([[id, entity.name]]);
    const summaries = await Promise.all(others.map((other) => this.store.getEntitySummary(workspace, other)));
    summaries.forEach((summary, i) => summary && present.set(others[i]!, summary.name));
    const writes: RelationWrite[] = node.relations
      .filter((relation) => present.has(relation.fromEntityId) && present.has(relation.toEntityId))
      .map((relation) => ({
        id: relationId(workspace, relation.fromEntityId, relation.relationType, relation.toEntityId),
        fromEntityId: relation.fromEntityId,
        fromName: present.get(relation.fromEntityId)!,
        toEntityId: relation.toEntityId,
        toName: present.get(relation.toEntityId)!,
        relationType: relation.relationType,
        metadata: relation.metadata,
        ...validityOf(relation),
      }));
    const { created: relations } = await this.store.createRelations(workspace, actor, writes, { allOrNothing: false });
    // The observations' valid time and expiry, and the entity's pin, as they were (docs/history.md#two-times): a restored
    // entity's superseded facts come back superseded, not current.
    const observationTimes = [...(entity.observationValidity ?? [])].map(([content, validity]) => ({ content, validity }));
    if (observationTimes.length > 0 || entity.pinned) {
      await this.store.restoreValidity(workspace, actor, {
        entity: { id, name: entity.name, entityType: entity.entityType, metadata: entity.metadata },
        ...(entity.pinned ? { entityValidity: { pinned: true } } : {}),
        observations: observationTimes,
        relations: [],
      });
    }
    const tagRefs = (names: readonly string[]) => names.map((tag) => ({ id: tagId(workspace, tag), name: tag }));
    const tagged: string[] = [];
    for (let start = 0; start < entity.tags.length; start += LIMITS.tagsPerCall) {
      const change = await this.store.tags.addTags(
        workspace,
        actor,
        { entityId: id },
        tagRefs(entity.tags.slice(start, start + LIMITS.tagsPerCall)),
      );
      if (change.status === "done") tagged.push(...change.tags);
    }
    let observationTags = 0;
    for (const [content, names] of entity.observationTags) {
      const target = { entityId: id, observationId: observationIdOf(id, content) };
      for (let start = 0; start < names.length; start += LIMITS.tagsPerCall) {
        const change = await this.store.tags.addTags(workspace, actor, target, tagRefs(names.slice(start, start + LIMITS.tagsPerCall)));
        if (change.status === "done") observationTags += change.tags.length;
      }
    }
    return {
      entityName: entity.name,
      entityId: id,
      observations: entity.observations.length,
      relations: relations.length,
      relationsSkipped: node.relations.length - relations.length,
      tags: tagged,
      observationTags,
    };
  }
}

/**
 * The entity as the deleting call found it: its row, observations, relations and tags, from the
 * before-images that call's events carry (docs/history.md#what-an-event-holds), replayed as creations.
 * Observations whose addition is still in the kept history keep that order, after those whose addition
 * was pruned (in the order the delete listed them).
 */
function fromBeforeImages(
  id: string,
  deletion: ChangeEvent,
  state: EntityState,
  call: readonly ChangeEvent[],
  before: readonly ChangeEvent[],
): EntityNode | undefined {
  const images = call.flatMap((event) => event.changes).filter((change) => change.kind.endsWith(".deleted") && touchesEntity(change, id));
  const deletedObservations = new Map(
    images
      .filter((change) => change.kind === "observation.deleted" && change.entityId === id && change.observationId !== undefined)
      .map((change) => [change.observationId!, change]),
  );
  const added = new Set<string>();
  for (const event of before) {
    for (const change of event.changes) {
      if (change.kind !== "observation.created" || change.entityId !== id || change.observationId === undefined) continue;
      added.delete(change.observationId); // added again after a removal: it sorts by its last addition
      added.add(change.observationId);
    }
  }
  const observations = [
    ...[...deletedObservations.keys()].filter((observationId) => !added.has(observationId)),
    ...[...added].filter((observationId) => deletedObservations.has(observationId)),
  ].map((observationId): Change => ({ ...deletedObservations.get(observationId)!, kind: "observation.created" }));
  const changes: Change[] = [
    { kind: "entity.created", entityId: id, entityName: state.name, after: state },
    ...observations,
    ...images
      .filter((change) => change.kind === "relation.deleted")
      .map((change): Change => ({ kind: "relation.created", relationId: change.relationId, after: change.before })),
    ...images
      .filter((change) => change.kind === "tag.deleted" && change.entityId === id)
      .map((change): Change => ({ ...change, kind: "tag.created" })),
  ];
  return new GraphReplay().apply([{ ...deletion, changes }]).node(id);
}

/**
 * The patch that turns a held validity into another (Validity as a patch: "" and `pinned: false` clear a field), or
 * undefined when they agree.
 */
function patchTo(held: Validity | undefined, wanted: Validity | undefined): Validity | undefined {
  const patch: Validity = {};
  for (const field of ["validFrom", "validTo", "supersededBy", "expiresAt"] as const) {
    if ((held?.[field] ?? "") !== (wanted?.[field] ?? "")) patch[field] = wanted?.[field] ?? "";
  }
  if ((held?.pinned ?? false) !== (wanted?.pinned ?? false)) patch.pinned = wanted?.pinned ?? false;
  return Object.keys(patch).length > 0 ? patch : undefined;
}

function deletedMeanwhile(name: string): ConflictError {
  return new ConflictError(
    `Entity '${name}' (or a row of it) was deleted while restore_entity rolled it back; part of the roll back may be written. ` +
      "get_entity_history shows what was; call restore_entity again with the same asOf to finish it.",
  );
}

/** The refusal for an entity a merge took into another: restoring it would hold its data twice. */
function mergedAway(name: string, deleted: Change, deletion: ChangeEvent, first: ChangeEvent): ValidationError {
  const target = deletion.changes.find((change) => change.entityId === deleted.mergedInto && change.entityName)?.entityName;
  const into = `'${target ?? deleted.mergedInto}'`;
  const justBefore = new Date(committedMs(first) - 1).toISOString();
  return new ValidationError(
    `Entity '${name}' was merged into ${into} (merge_entities at ${deletion.at} by ${deletion.principal}): its observations, tags ` +
      `and relations were moved there, so restoring it as it was would hold them twice. Nothing was written. To split it back: take ` +
      `what it brought off ${into} (delete_observations, remove_tags_from_entity, delete_relations; get_entity_history of '${name}' ` +
      `lists what moved), then call restore_entity with asOf ${justBefore}, just before the merge. To undo the whole merge instead: ` +
      `delete_entities ${into}, then restore_entity with asOf ${justBefore} for ${into} and for '${name}' (changes to ${into} since the merge are lost).`,
  );
}

/** When storage committed the event (its place in the feed's order), as milliseconds; the writer's time for an event read before commit times were kept. */
function committedMs(event: ChangeEvent): number {
  return Date.parse(commitTimeOf(event));
}

/** A relation's valid time and expiry as a write carries them, when it has any. */
function validityOf(relation: Relation): { validity?: Validity } {
  const validity = relationValidity(relation);
  return validity ? { validity } : {};
}
