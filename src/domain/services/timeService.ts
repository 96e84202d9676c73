import { ValidationError } from "../model/errors.js";
import { entityId, relationIds } from "../model/ids.js";
import type { Actor } from "../model/model.js";
import {
  checkCount,
  checkEntityName,
  checkLimit,
  checkObservation,
  checkRelationType,
  checkSearchQuery,
  parseTime,
} from "../model/validation.js";
import type { FactConflict, GraphIndex } from "../ports/graphIndex.js";
import type { GraphStore } from "../ports/store.js";
import { checkFactKey, type FactKey, factKeyName, iso, presentLens } from "../rules/validity.js";

/** The most fact keys one declare_fact_keys call declares. */
const FACT_KEYS_PER_CALL = 100;
/** list_conflicts' page size when none is asked. */
export const DEFAULT_CONFLICTS_LIMIT = 50;

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
}
