import { ValidationError } from "../model/errors.js";
import { entityId, relationIds } from "../model/ids.js";
import type { Actor } from "../model/model.js";
import { checkCount, checkEntityName, checkObservation, checkRelationType, parseTime } from "../model/validation.js";
import type { GraphIndex } from "../ports/graphIndex.js";
import type { GraphStore } from "../ports/store.js";
import { checkFactKey, type FactKey, iso } from "../rules/validity.js";

/** The most fact keys one declare_fact_keys call declares. */
const FACT_KEYS_PER_CALL = 100;

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
