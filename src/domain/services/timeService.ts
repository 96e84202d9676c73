import type { GraphIndex } from "../ports/graphIndex.js";
import type { GraphStore } from "../ports/store.js";

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
}
