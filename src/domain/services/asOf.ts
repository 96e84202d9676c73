import { GraphReplay } from "../feed/replay.js";
import { NotFoundError, ValidationError } from "../model/errors.js";
import type { Entity, EntityNode, Relation } from "../model/model.js";
import { parseTime } from "../model/validation.js";
import type { GraphStore } from "../ports/store.js";
import { subgraph } from "../rules/subgraph.js";

/**
 * Reads as of a past time (docs/history.md), rebuilt from the change feed's events: what read_graph,
 * open_nodes and get_entity_relations answer with `asOf`, and the time check restore_entity shares.
 * One instance serves the core, graph and history services, so the rule is written once.
 */
export class AsOfReads {
  constructor(private readonly store: Pick<GraphStore, "events" | "historyStart">) {}

  /** The whole graph as of `asOf`, rebuilt from every event up to then. */
  async graph(workspace: string, asOf: string): Promise<{ entities: Entity[]; relations: Relation[] }> {
    const at = await this.at(workspace, asOf);
    return new GraphReplay().apply(await this.store.events(workspace, { toMs: at + 1 })).graph();
  }

  /** The named entities as of `asOf` (each rebuilt from its own history) and every relation touching them. */
  async openNodes(workspace: string, entityIds: readonly string[], asOf: string): Promise<{ entities: Entity[]; relations: Relation[] }> {
    const nodes = await this.nodes(workspace, entityIds, asOf);
    return subgraph(nodes.filter((node): node is EntityNode => node !== undefined));
  }

  /** One entity as of `asOf`, with every relation touching it (as the feed held them: the caller applies the time lens). */
  async node(workspace: string, entityId: string, label: string, asOf: string): Promise<EntityNode> {
    const [node] = await this.nodes(workspace, [entityId], asOf);
    if (!node) throw new NotFoundError(`Entity '${label}' did not exist in workspace '${workspace}' at ${asOf}.`);
    return node;
  }

  /**
   * asOf as milliseconds. Refused: text that is not an ISO 8601 time, a time in the future, and a time
   * before the workspace's first event ("no history before X": not a silently partial state).
   */
  async at(workspace: string, asOf: string): Promise<number> {
    const at = parseTime(asOf, "asOf");
    if (at > Date.now()) throw new ValidationError(`asOf ${asOf} is in the future. Give a past time, or omit asOf for the current state.`);
    const { first, prunedBefore } = await this.store.historyStart(workspace);
    if (prunedBefore !== undefined) {
      // A replay without the pruned events would be a partial state: refuse rather than mislead.
      throw new ValidationError(
        `No complete history: events before ${prunedBefore} were pruned (MEMORY_HISTORY_RETENTION_DAYS), and an as-of state ` +
          "needs every event since the workspace began. Use get_changes for the history that is kept.",
      );
    }
    if (!first) {
      throw new ValidationError(
        `Workspace '${workspace}' has no history yet: no change has been recorded. Omit asOf for the current state.`,
      );
    }
    // When the first event was committed (storage's clock), not when its writer says it was written: a writer's clock may
    // be ahead by the allowed skew, and a read right after its write must not be "before history" (docs/architecture.md#the-feeds-order).
    const start = first.committed ?? first.at;
    if (at < Date.parse(start)) {
      throw new ValidationError(`No history before ${start}: the workspace's first recorded change. Give a time at or after it.`);
    }
    return at;
  }

  private async nodes(workspace: string, entityIds: readonly string[], asOf: string): Promise<(EntityNode | undefined)[]> {
    const at = await this.at(workspace, asOf);
    const histories = await Promise.all(entityIds.map((id) => this.store.events(workspace, { entityId: id, toMs: at + 1 })));
    return entityIds.map((id, i) => new GraphReplay().apply(histories[i]!).node(id));
  }
}
