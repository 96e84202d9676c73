import type { Entity, EntityNode, Relation } from "../model/model.js";
import { GraphFold } from "./fold.js";
import type { ChangeEvent } from "./history.js";

/**
 * The graph as it was: the state a set of events leaves, rebuilt from their changes alone (docs/history.md#as-of-reads)
 * by the one fold of the feed (fold.ts), so `read_graph asOf now` answers as the workspace index does
 * (docs/architecture.md#one-fold-of-the-feed). Pure: no storage.
 */
export class GraphReplay {
  private readonly fold = new GraphFold();

  /** Folds the events in, in the feed's order (commit time, then key: docs/architecture.md#the-feeds-order). */
  apply(events: readonly ChangeEvent[]): this {
    this.fold.apply(events);
    return this;
  }

  /** One entity with every relation touching it, or undefined. */
  node(entityId: string): EntityNode | undefined {
    return this.fold.node(entityId);
  }

  /** Every entity, oldest first, and every relation. */
  graph(): { entities: Entity[]; relations: Relation[] } {
    return this.fold.graph();
  }
}
