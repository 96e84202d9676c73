import { NotFoundError, ValidationError } from "../model/errors.js";
import { entityId, relationIds, relationWrite } from "../model/ids.js";
import type { Actor, Validity } from "../model/model.js";
import {
  checkCount,
  checkEntityName,
  checkLimit,
  checkObservation,
  checkRelationInput,
  checkRelationType,
  checkSearchQuery,
  parseTime,
} from "../model/validation.js";
import type { FactConflict, GraphIndex } from "../ports/graphIndex.js";
import type { ExpiryTarget, GraphStore, SweptItem } from "../ports/store.js";
import { checkFactKey, checkValidityInput, type FactKey, factKeyName, iso, presentLens } from "../rules/validity.js";

/** The most fact keys one declare_fact_keys call declares. */
const FACT_KEYS_PER_CALL = 100;
/** list_conflicts' page size when none is asked. */
export const DEFAULT_CONFLICTS_LIMIT = 50;

/** set_expiry's arguments (docs/history.md#expiry-and-pinning). */
export interface ExpiryRequest {
  entityName: string;
  observation?: string;
  relation?: { to: string; relationType: string };
  /** A future time; null clears the expiry; absent leaves it as it is. */
  expiresAt?: string | null;
  pinned?: boolean;
}

/** What a sweep deleted (or would delete), counted and listed, and what it skipped. */
export interface SweepAnswer {
  dryRun: boolean;
  entities: number;
  observations: number;
  relations: number;
  items: SweptItem[];
  skipped: (SweptItem & { reason: string })[];
}

/** The principal timer sweeps record (docs/history.md#expiry-and-pinning). */
const SWEEP_PRINCIPAL = "system:sweep";

/**
 * Valid time, supersession, fact keys and expiry (docs/history.md#two-times): supersede_observation, end_relation,
 * declare_fact_keys, list_conflicts and set_expiry (toolset history) and sweep_expired (toolset admin). The reads that
 * honour valid time and expiry live with their own tools; the rules are src/domain/rules/validity.ts.
 */
export class TimeService {
  constructor(
    private readonly store: GraphStore,
    private readonly index: GraphIndex,
    /** Now, in ms: what "true now" and an expiry are judged against. */
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * list_conflicts: entities holding two or more current observations on one key (declared or not) whose values differ,
   * by entity name then key, from `offset` (the tool's cursor); and which keys the workspace declared single-valued. Lists
   * without judging. Two requests: the index brought current, and the fact-keys row, read side by side.
   */
  async listConflicts(
    workspace: string,
    input: { key?: string; limit?: number; offset?: number },
  ): Promise<{ conflicts: FactConflict[]; singleValuedKeys: string[]; more: boolean }> {
    if (input.key !== undefined) {
      // The text rules first (the one place: length, well-formed UTF-16), then the shape of a key.
      checkSearchQuery(input.key, "key");
      checkFactKey(input.key, "key");
    }
    const limit = input.limit ?? DEFAULT_CONFLICTS_LIMIT;
    checkLimit(limit, "limit");
    const offset = input.offset ?? 0;
    const lens = presentLens(this.clock());
    const [found, declared] = await Promise.all([
      this.index.conflicts(workspace, { ...(input.key !== undefined ? { key: input.key } : {}), lens }),
      this.store.factKeys(workspace),
    ]);
    return {
      conflicts: found.slice(offset, offset + limit),
      singleValuedKeys: declared
        .filter((key) => key.singleValued)
        .map((key) => factKeyName(key.key))
        .sort(),
      more: offset + limit < found.length,
    };
  }

  /**
   * Replaces a current observation of an entity with another, in one transaction: the old one gets validTo (`validFrom`,
   * default now) and supersededBy, and stays held (auditable, shown with includeSuperseded).
   */
  async supersedeObservation(
    workspace: string,
    actor: Actor,
    input: { entityName: string; observation: string; replacement: string; validFrom?: string },
  ) {
    checkEntityName(input.entityName, "entityName");
    checkObservation(input.observation, "observation");
    checkObservation(input.replacement, "replacement");
    if (input.observation === input.replacement) {
      throw new ValidationError("replacement is the same text as observation: give the new fact that replaces it.");
    }
    const validFrom = input.validFrom === undefined ? undefined : iso(parseTime(input.validFrom, "validFrom"));
    const { validTo, validFrom: from } = await this.store.supersedeObservation(workspace, actor, {
      entityId: entityId(workspace, input.entityName),
      entityName: input.entityName,
      observation: input.observation,
      replacement: input.replacement,
      ...(validFrom !== undefined ? { validFrom } : {}),
    });
    return {
      entityName: input.entityName,
      superseded: { observation: input.observation, validTo },
      current: { observation: input.replacement, validFrom: from },
    };
  }

  /** Ends a relation (validTo, default now): it stays held, and is shown with includeSuperseded. */
  async endRelation(workspace: string, actor: Actor, input: { from: string; to: string; relationType: string; validTo?: string }) {
    checkEntityName(input.from, "from");
    checkEntityName(input.to, "to");
    checkRelationType(input.relationType, "relationType");
    const validTo = input.validTo === undefined ? undefined : iso(parseTime(input.validTo, "validTo"));
    const { id } = relationIds(workspace, input);
    const result = await this.store.endRelation(workspace, actor, {
      relationId: id,
      label: `'${input.from}' ${input.relationType} '${input.to}'`,
      ...(validTo !== undefined ? { validTo } : {}),
    });
    return { from: input.from, to: input.to, relationType: input.relationType, validTo: result.validTo };
  }

  /** Declares fact keys (a key declared again takes its new singleValued); returns every declared key. */
  async declareFactKeys(workspace: string, keys: readonly FactKey[]): Promise<FactKey[]> {
    checkCount(keys, "keys", FACT_KEYS_PER_CALL);
    if (keys.length === 0) throw new ValidationError("keys is empty: give at least one {key, singleValued}.");
    keys.forEach((key, i) => checkFactKey(key.key, `keys[${i}].key`));
    return this.store.declareFactKeys(workspace, keys);
  }

  /**
   * Sets or clears the expiry, and pins or unpins, an entity, one of its observations, or one of its outgoing relations.
   * A missing target, or one that has already expired (hidden from every read), is a NotFoundError.
   */
  async setExpiry(
    workspace: string,
    actor: Actor,
    request: ExpiryRequest,
  ): Promise<{
    entityName: string;
    observation?: string;
    relation?: { to: string; relationType: string };
    expiresAt?: string;
    pinned: boolean;
  }> {
    checkEntityName(request.entityName, "entityName");
    if (request.observation !== undefined && request.relation !== undefined) {
      throw new ValidationError("Give observation or relation, not both: set_expiry changes one item per call.");
    }
    if (request.observation !== undefined) checkObservation(request.observation, "observation");
    if (request.relation !== undefined) {
      checkRelationInput({ from: request.entityName, ...request.relation }, "relation");
    }
    if (request.expiresAt === undefined && request.pinned === undefined) {
      throw new ValidationError("Give expiresAt (a future time, or null to clear it), pinned, or both.");
    }
    const now = this.clock();
    const patch: Validity = {
      ...(request.expiresAt === null ? { expiresAt: "" } : {}),
      ...(typeof request.expiresAt === "string"
        ? { expiresAt: checkValidityInput({ expiresAt: request.expiresAt }, now)!.expiresAt! }
        : {}),
      ...(request.pinned !== undefined ? { pinned: request.pinned } : {}),
    };
    const id = entityId(workspace, request.entityName);
    const target: ExpiryTarget =
      request.observation !== undefined
        ? { kind: "observation", entityId: id, content: request.observation }
        : request.relation !== undefined
          ? { kind: "relation", relation: relationWrite(workspace, { from: request.entityName, ...request.relation }) }
          : { kind: "entity", entityId: id };
    const outcome = await this.store.setExpiry(workspace, actor, target, patch, now);
    const subject = describe(request, workspace);
    if (outcome.status === "missing") {
      const what = outcome.entityMissing
        ? `Entity '${request.entityName}' was not found in workspace '${workspace}'`
        : `${subject} was not found`;
      throw new NotFoundError(`${what}. Check the name with open_nodes or search_nodes.`);
    }
    if (outcome.status === "expired") {
      const what = outcome.entityExpired ? `Entity '${request.entityName}'` : subject;
      throw new NotFoundError(
        `${what} expired at ${outcome.expiresAt}: it is hidden from every read and the sweep deletes it. Bring it back by writing it again: upsert_entity for an entity, add_observations for an observation (it reopens); a relation: delete_relations, then create_relations.`,
      );
    }
    return {
      entityName: request.entityName,
      ...(request.observation !== undefined ? { observation: request.observation } : {}),
      ...(request.relation !== undefined ? { relation: request.relation } : {}),
      ...(outcome.expiresAt ? { expiresAt: outcome.expiresAt } : {}),
      pinned: outcome.pinned,
    };
  }

  /** Deletes what has expired in the workspace (or lists it, with dryRun), recording it in the feed. */
  async sweepExpired(workspace: string, actor: Actor, options: { dryRun?: boolean } = {}): Promise<SweepAnswer> {
    const dryRun = options.dryRun ?? false;
    const { items, skipped } = await this.store.sweepExpired(workspace, actor, { dryRun, nowMs: this.clock() });
    const count = (kind: SweptItem["kind"]) => items.filter((item) => item.kind === kind).length;
    return { dryRun, entities: count("entity"), observations: count("observation"), relations: count("relation"), items, skipped };
  }

  /**
   * The timer's sweep: every registered workspace in turn, as SWEEP_PRINCIPAL. A workspace that fails is reported and the
   * others are still swept.
   */
  async sweepEverywhere(tool = "sweep_expired"): Promise<{ workspace: string; answer?: SweepAnswer; error?: string }[]> {
    const actor: Actor = { principal: SWEEP_PRINCIPAL, tool };
    const results: { workspace: string; answer?: SweepAnswer; error?: string }[] = [];
    for (const { name } of await this.store.workspaces.registered()) {
      try {
        results.push({ workspace: name, answer: await this.sweepExpired(name, actor) });
      } catch (error) {
        results.push({ workspace: name, error: error instanceof Error ? error.message : String(error) });
      }
    }
    return results;
  }
}

function describe(request: ExpiryRequest, workspace: string): string {
  if (request.observation !== undefined) {
    return `Observation '${request.observation.slice(0, 100)}' of entity '${request.entityName}' in workspace '${workspace}'`;
  }
  if (request.relation !== undefined) {
    return `Relation '${request.entityName}' ${request.relation.relationType} '${request.relation.to}' in workspace '${workspace}'`;
  }
  return `Entity '${request.entityName}' in workspace '${workspace}'`;
}
