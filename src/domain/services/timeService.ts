import { checkLimit, checkSearchQuery } from "../model/validation.js";
import type { FactConflict, GraphIndex } from "../ports/graphIndex.js";
import type { GraphStore } from "../ports/store.js";
import { checkFactKey, factKeyName, presentLens } from "../rules/validity.js";

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
}
