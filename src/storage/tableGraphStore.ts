import type { ChangeEvent, FeedPosition } from "../domain/feed/history.js";
import type { Actor, Direction, EntityNode } from "../domain/model/model.js";
import type { Validity } from "../domain/model/model.js";
import type {
  EntitySummary,
  EntityWrite,
  EventQuery,
  GraphStore,
  NewEntity,
  ObservationChange,
  Progress,
  RejectedPair,
  RelationRef,
  RelationWrite,
  ValidityRestore,
} from "../domain/ports/store.js";
import type { ExpiryOutcome, ExpiryTarget, SweepReport } from "../domain/ports/store.js";
import type { BatchAnswer, BatchClaim, BatchStep } from "../domain/rules/batchModel.js";
import type { MergeReport } from "../domain/rules/curationModel.js";
import type { FactKey } from "../domain/rules/validity.js";
import { changesSince, historyStart, readEvents } from "./reads/feed.js";
import { getEntities, getEntityRelations } from "./reads/reads.js";
import { TableTraversal } from "./reads/traversal.js";
import type { StorageConnection } from "./table/client.js";
import type { TableGateway } from "./table/gateway.js";
import { TableTagStore } from "./tableTagStore.js";
import { TableWorkspaceStore } from "./tableWorkspaceStore.js";
import { executeAtomicBatch } from "./writes/atomicBatch.js";
import { deleteEntities } from "./writes/deletion.js";
import { createEntities, getEntitySummary, upsertEntity } from "./writes/entities.js";
import { setExpiry } from "./writes/expiry.js";
import { declareFactKeys, readFactKeys } from "./writes/factKeys.js";
import { claimMarker, completeMarker } from "./writes/markers.js";
import { mergeEntities } from "./writes/merge.js";
import { addObservations, deleteObservations } from "./writes/observations.js";
import { rejectedPairs, rejectPair } from "./writes/rejections.js";
import { createRelations, deleteRelations, upsertRelation } from "./writes/relations.js";
import { type BoundWrites, prunedWrites } from "./writes/retention.js";
import { endRelation, supersedeObservation, type SupersedeRequest } from "./writes/supersession.js";
import { sweepExpired } from "./writes/sweep.js";
import { tagWrites } from "./writes/tagWrites.js";
import { restoreValidity } from "./writes/validityRestore.js";

/** Every write of the stores (the tags' too): bound once, each followed by history pruning (retention.ts). */
const WRITES = {
  upsertEntity,
  upsertRelation,
  createEntities,
  addObservations,
  createRelations,
  deleteEntities,
  deleteObservations,
  deleteRelations,
  executeAtomicBatch,
  mergeEntities,
  supersedeObservation,
  endRelation,
  ...tagWrites,
  setExpiry,
  sweepExpired,
  restoreValidity,
  rejectPair,
};

/**
 * The GraphStore port on Table Storage (key layout in keys.ts, concurrency rules in transactions.ts).
 * Each concern lives in its own module; every request goes through the connection's gateway.
 */
export class TableGraphStore implements GraphStore {
  private readonly gateway: TableGateway;
  private readonly feedLatenessMs: number;
  readonly tags: TableTagStore;
  readonly traversal: TableTraversal;
  readonly workspaces: TableWorkspaceStore;

  private readonly writes: BoundWrites<typeof WRITES>;

  constructor(storage: StorageConnection) {
    this.gateway = storage.gateway;
    this.feedLatenessMs = storage.feedLatenessMs;
    this.writes = prunedWrites(storage, WRITES);
    this.tags = new TableTagStore(storage, this.writes);
    this.traversal = new TableTraversal(storage.gateway);
    this.workspaces = new TableWorkspaceStore(storage.gateway);
  }

  getEntitySummary(workspace: string, entityId: string): Promise<EntitySummary | undefined> {
    return getEntitySummary(this.gateway, workspace, entityId);
  }

  supersedeObservation(workspace: string, actor: Actor, request: SupersedeRequest): Promise<{ validTo: string; validFrom: string }> {
    return this.writes.supersedeObservation(workspace, actor, request);
  }

  endRelation(
    workspace: string,
    actor: Actor,
    request: { relationId: string; label: string; validTo?: string },
  ): Promise<{ validTo: string }> {
    return this.writes.endRelation(workspace, actor, request);
  }

  upsertEntity(
    workspace: string,
    actor: Actor,
    write: EntityWrite,
  ): Promise<{ created: boolean; addedObservations: string[]; version: string }> {
    return this.writes.upsertEntity(workspace, actor, write);
  }

  upsertRelation(workspace: string, actor: Actor, write: RelationWrite): Promise<{ created: boolean; version: string }> {
    return this.writes.upsertRelation(workspace, actor, write);
  }

  getEntityRelations(workspace: string, entityId: string, direction: Direction): Promise<EntityNode | undefined> {
    return getEntityRelations(this.gateway, workspace, entityId, direction);
  }

  getEntities(workspace: string, entityIds: readonly string[]): Promise<(EntityNode | undefined)[]> {
    return getEntities(this.gateway, workspace, entityIds);
  }

  createEntities(workspace: string, actor: Actor, entities: readonly NewEntity[], progress?: Progress): Promise<{ created: string[] }> {
    return this.writes.createEntities(workspace, actor, entities, progress);
  }

  addObservations(
    workspace: string,
    actor: Actor,
    changes: readonly ObservationChange[],
  ): Promise<{ missing: string[]; added: Map<string, string[]> }> {
    return this.writes.addObservations(workspace, actor, changes);
  }

  createRelations(
    workspace: string,
    actor: Actor,
    relations: readonly RelationWrite[],
    options: { allOrNothing: boolean; progress?: Progress },
  ): Promise<{ created: string[]; missingEntityIds: string[] }> {
    return this.writes.createRelations(workspace, actor, relations, options);
  }

  deleteEntities(workspace: string, actor: Actor, entityIds: readonly string[]): Promise<void> {
    return this.writes.deleteEntities(workspace, actor, entityIds);
  }

  deleteObservations(workspace: string, actor: Actor, changes: readonly ObservationChange[]): Promise<void> {
    return this.writes.deleteObservations(workspace, actor, changes);
  }

  deleteRelations(workspace: string, actor: Actor, relations: readonly RelationRef[]): Promise<void> {
    return this.writes.deleteRelations(workspace, actor, relations);
  }

  changesSince(workspace: string, position?: FeedPosition): Promise<{ events: ChangeEvent[]; position: FeedPosition }> {
    return changesSince(this.gateway, workspace, this.feedLatenessMs, position);
  }

  events(workspace: string, query: EventQuery): Promise<ChangeEvent[]> {
    return readEvents(this.gateway, workspace, query, this.feedLatenessMs);
  }

  historyStart(workspace: string): Promise<{ first?: ChangeEvent; prunedBefore?: string }> {
    return historyStart(this.gateway, workspace);
  }

  executeAtomicBatch(workspace: string, actor: Actor, steps: readonly BatchStep[], requestId?: string) {
    return this.writes.executeAtomicBatch(workspace, actor, steps, requestId);
  }

  mergeEntities(
    workspace: string,
    actor: Actor,
    request: { targetId: string; targetLabel: string; sources: { id: string; label: string }[]; dryRun: boolean },
  ): Promise<MergeReport> {
    return this.writes.mergeEntities(workspace, actor, request);
  }

  rejectPair(workspace: string, actor: Actor, pair: RejectedPair, undo: boolean): Promise<{ changed: boolean }> {
    return this.writes.rejectPair(workspace, actor, pair, undo);
  }

  rejectedPairs(workspace: string): Promise<RejectedPair[]> {
    return rejectedPairs(this.gateway, workspace);
  }

  claimBatch(workspace: string, requestId: string): Promise<BatchClaim> {
    return claimMarker(this.gateway, workspace, requestId);
  }

  completeBatch(workspace: string, requestId: string, answer: BatchAnswer): Promise<void> {
    return completeMarker(this.gateway, workspace, requestId, answer);
  }

  factKeys(workspace: string): Promise<FactKey[]> {
    return readFactKeys(this.gateway, workspace);
  }

  declareFactKeys(workspace: string, keys: readonly FactKey[]): Promise<FactKey[]> {
    return declareFactKeys(this.gateway, workspace, keys);
  }

  setExpiry(workspace: string, actor: Actor, target: ExpiryTarget, patch: Validity, nowMs: number): Promise<ExpiryOutcome> {
    return this.writes.setExpiry(workspace, actor, target, patch, nowMs);
  }

  sweepExpired(workspace: string, actor: Actor, options: { dryRun: boolean; nowMs: number }): Promise<SweepReport> {
    return this.writes.sweepExpired(workspace, actor, options);
  }

  restoreValidity(workspace: string, actor: Actor, restore: ValidityRestore): Promise<void> {
    return this.writes.restoreValidity(workspace, actor, restore);
  }
}
