import { ConflictError, MemoryError, ValidationError } from "../model/errors.js";
import { LIMITS } from "../model/limits.js";
import type { Actor } from "../model/model.js";
import type { GraphIndex } from "../ports/graphIndex.js";
import type { GraphStore } from "../ports/store.js";
import { atomicFloor, checkRequestId, MAX_BATCH_OPERATIONS, stepsOf, tooLarge } from "../rules/batch.js";
import type { BatchAnswer, BatchOp, StepResult } from "../rules/batchModel.js";
import type { MergeReport } from "../rules/curationModel.js";
import { idOf } from "../rules/entityRef.js";
import type { CoreService } from "./coreService.js";
import type { GraphService } from "./graphService.js";

/**
 * The single-operation writes a non-atomic batch runs, each with its own tool's rules: the core and
 * graph services', given at composition (services.ts); neither knows this one.
 */
interface BatchWriters {
  core: Pick<CoreService, "upsertEntity" | "upsertRelation">;
  graph: Pick<GraphService, "addObservations" | "deleteEntities" | "deleteRelations" | "deleteObservations">;
}
import { entityId } from "../model/ids.js";
import { checkCount, checkEntityName, checkEntityType, checkLimit } from "../model/validation.js";
import { DEFAULT_DUPLICATE_THRESHOLD, type DuplicateCandidate, type DuplicatePair, findDuplicates, pairKey } from "../rules/duplicates.js";

const DEFAULT_DUPLICATE_LIMIT = 50;
/** Sources one merge takes: each is read whole and merged in turn. */
const MAX_MERGE_SOURCES = 20;

/** The curate toolset's rules (docs/curate.md): batches; duplicate detection and merges live beside them. */
export class CurateService {
  constructor(
    private readonly store: GraphStore,
    private readonly index: Pick<GraphIndex, "scanNodes">,
    private readonly writers: BatchWriters,
  ) {}

  /**
   * Runs the operations in order. Atomic: all in one transaction or none (refused, before any request,
   * when it certainly cannot fit; after the reads, before any write, when it does not). Non-atomic: each
   * operation on its own, reporting its own result. A requestId makes a retry return the first answer.
   */
  async executeBatch(
    workspace: string,
    actor: Actor,
    ops: readonly BatchOp[],
    options: { atomic: boolean; requestId?: string },
  ): Promise<BatchAnswer & { replayed: boolean }> {
    if (ops.length === 0) throw new ValidationError("operations is empty: give at least one operation.");
    checkCount(ops, "operations", MAX_BATCH_OPERATIONS);
    checkRequestId(options.requestId);
    // Every operation's input is checked first, in both modes, so a batch holding one invalid operation writes nothing.
    const steps = stepsOf(workspace, ops, (ref, role) =>
      idOf(workspace, ref, {
        id: `${role}EntityId`,
        name: role,
        role: role === "from" ? "the source entity" : "the target entity",
      }),
    );
    if (options.atomic) {
      const floor = atomicFloor(ops, options.requestId);
      if (floor > LIMITS.batchOperations) throw tooLarge(floor);
      const { answer, replayed } = await this.store.executeAtomicBatch(workspace, actor, steps, options.requestId);
      return { ...answer, replayed };
    }
    if (options.requestId === undefined) return { atomic: false, results: await this.runEach(workspace, actor, ops), replayed: false };
    const claim = await this.store.claimBatch(workspace, options.requestId);
    if (claim.status === "done") return { ...claim.answer, replayed: true };
    if (claim.status === "running") {
      throw new ConflictError("A batch with this requestId is still running (another call sent it). Retry in a moment to get its answer.");
    }
    const answer: BatchAnswer = { atomic: false, results: await this.runEach(workspace, actor, ops) };
    await this.store.completeBatch(workspace, options.requestId, answer);
    return { ...answer, replayed: false };
  }

  /**
   * Candidate duplicate pairs (duplicates.ts), best first, without the pairs a person rejected. The workspace is read in one
   * streamed scan (GraphIndex.scanNodes), one entity held at a time while its candidate is made; the rejected pairs in one
   * range read alongside it, so they add no round trip.
   */
  async detectDuplicates(
    workspace: string,
    options: { entityType?: string; threshold?: number; limit?: number },
  ): Promise<{ pairs: DuplicatePair[]; comparisons: number; entities: number; rejected: number }> {
    const threshold = options.threshold ?? DEFAULT_DUPLICATE_THRESHOLD;
    if (!(threshold >= 0 && threshold <= 1)) throw new ValidationError("threshold must be between 0 and 1 (default 0.8).");
    const limit = options.limit ?? DEFAULT_DUPLICATE_LIMIT;
    checkLimit(limit, "limit");
    if (options.entityType !== undefined) checkEntityType(options.entityType, "entityType");
    const [all, rejections] = await Promise.all([this.candidatesOf(workspace), this.store.rejectedPairs(workspace)]);
    const candidates = all.filter((candidate) => options.entityType === undefined || candidate.entityType === options.entityType);
    // A rejection naming an entity that is gone matches no pair: only entities that exist are candidates.
    const rejected = new Set(rejections.map((pair) => pairKey(pair.a.entityId, pair.b.entityId)));
    return { ...(await findDuplicates(candidates, { threshold, limit, rejected })), entities: candidates.length };
  }

  /**
   * Remembers that two entities (by name) are not duplicates, so detection never proposes the pair again; `undo` forgets
   * it (docs/curate.md#rejecting-a-pair). Idempotent: `rejected` is the pair's state after the call, `changed` whether the
   * call changed it.
   */
  async rejectPair(
    workspace: string,
    actor: Actor,
    input: { a: string; b: string; undo?: boolean },
  ): Promise<{ a: string; b: string; rejected: boolean; changed: boolean }> {
    checkEntityName(input.a, "a");
    checkEntityName(input.b, "b");
    if (input.a === input.b) {
      throw new ValidationError(`a and b are both '${input.a}': name two different entities. Nothing was written.`);
    }
    const undo = input.undo ?? false;
    const { changed } = await this.store.rejectPair(
      workspace,
      actor,
      {
        a: { entityId: entityId(workspace, input.a), entityName: input.a },
        b: { entityId: entityId(workspace, input.b), entityName: input.b },
      },
      undo,
    );
    return { a: input.a, b: input.b, rejected: !undo, changed };
  }

  /**
   * Merges `sources` into `target` (by name or id): observations, tags and relations move, self-loops and
   * duplicates this makes are dropped, the sources are deleted. dryRun reports the same without writing.
   */
  async mergeEntities(
    workspace: string,
    actor: Actor,
    input: { target: { id?: string; name?: string }; sources: { id?: string; name?: string }[]; dryRun?: boolean },
  ): Promise<MergeReport & { dryRun: boolean }> {
    if (input.sources.length === 0) throw new ValidationError("sources is empty: name at least one entity to merge into the target.");
    checkCount(input.sources, "sources", MAX_MERGE_SOURCES);
    const targetId = idOf(workspace, input.target, { id: "target.id", name: "target.name", role: "the target" });
    const sources = input.sources.map((ref, i) => ({
      id: idOf(workspace, ref, { id: `sources[${i}].id`, name: `sources[${i}].name`, role: `source ${i}` }),
      label: ref.name ?? ref.id ?? "",
    }));
    const self = sources.find((source) => source.id === targetId);
    if (self)
      throw new ValidationError(`'${self.label}' is the target itself: an entity cannot be merged into itself. Nothing was merged.`);
    const distinct = [...new Map(sources.map((source) => [source.id, source])).values()];
    const dryRun = input.dryRun ?? false;
    const report = await this.store.mergeEntities(workspace, actor, {
      targetId,
      targetLabel: input.target.name ?? input.target.id ?? "",
      sources: distinct,
      dryRun,
    });
    return { ...report, dryRun };
  }

  private async candidatesOf(workspace: string): Promise<DuplicateCandidate[]> {
    const candidates: DuplicateCandidate[] = [];
    for await (const { entity, relations } of this.index.scanNodes(workspace)) {
      const neighbours = relations.flatMap((relation) => [relation.fromEntityId, relation.toEntityId]).filter((id) => id !== entity.id);
      candidates.push({ id: entity.id, name: entity.name, entityType: entity.entityType, observations: entity.observations, neighbours });
    }
    return candidates;
  }

  /** Non-atomic: each operation through its own tool's rules, in order; a failure is reported and the next one runs. */
  private async runEach(workspace: string, actor: Actor, ops: readonly BatchOp[]): Promise<StepResult[]> {
    const results: StepResult[] = [];
    for (const [index, op] of ops.entries()) {
      try {
        results.push({ index, op: op.op, success: true, ...(await this.runOne(workspace, actor, op)) });
      } catch (error) {
        if (!(error instanceof MemoryError)) throw error;
        results.push({ index, op: op.op, success: false, error: error.kind, message: error.message });
      }
    }
    return results;
  }

  private async runOne(workspace: string, actor: Actor, op: BatchOp): Promise<StepResult> {
    const { core, graph } = this.writers;
    switch (op.op) {
      case "upsert_entity": {
        const { id, created, version, addedObservations } = await core.upsertEntity(workspace, actor, op.args);
        return { id, name: op.args.name, created, version, addedObservations };
      }
      case "add_observations":
        return { results: await graph.addObservations(workspace, actor, op.args.observations) };
      case "upsert_relation": {
        const { relationId, fromEntityId, toEntityId, created, version } = await core.upsertRelation(workspace, actor, op.args);
        return { relationId, fromEntityId, toEntityId, created, version };
      }
      case "delete_entities":
        await graph.deleteEntities(workspace, actor, op.args.entityNames);
        return {};
      case "delete_relations":
        await graph.deleteRelations(workspace, actor, op.args.relations);
        return {};
      case "delete_observations":
        await graph.deleteObservations(workspace, actor, op.args.deletions);
        return {};
    }
  }
}
