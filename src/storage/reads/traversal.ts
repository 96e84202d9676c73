import { forEachLimited } from "../../domain/model/concurrency.js";
import type { Direction, EntityNode } from "../../domain/model/model.js";
import type { TraversalPort } from "../../domain/rules/navigation.js";
import { keyRange } from "../rows/keys.js";
import { entityRelationsFilter } from "../rows/queries.js";
import { assembleEntity, type StoredRow } from "../rows/rows.js";
import type { TableGateway } from "../table/gateway.js";
import { CONCURRENCY } from "../table/gateway.js";

/** Range reads of one traversal round in flight at once: as for writes (transactions.ts), enough to hide latency, few enough not to be throttled. */
const READS_IN_FLIGHT = CONCURRENCY;

/**
 * The traversal port on Table Storage: one range read per entity (its whole range, or its row and
 * one direction's edges), all of a round in parallel, at most READS_IN_FLIGHT at a time.
 */
export class TableTraversal implements TraversalPort {
  constructor(private readonly gateway: TableGateway) {}

  nodes(workspace: string, entityIds: readonly string[]): Promise<(EntityNode | undefined)[]> {
    return this.round(entityIds, (id) => this.gateway.queryRange(workspace, keyRange.wholeEntity(id)));
  }

  edges(workspace: string, entityIds: readonly string[], direction: Direction): Promise<(EntityNode | undefined)[]> {
    return this.round(entityIds, (id) => this.gateway.query(entityRelationsFilter(workspace, id, direction)));
  }

  private async round(entityIds: readonly string[], read: (id: string) => Promise<StoredRow[]>): Promise<(EntityNode | undefined)[]> {
    const nodes: (EntityNode | undefined)[] = new Array<EntityNode | undefined>(entityIds.length);
    const positions = entityIds.map((id, position) => ({ id, position }));
    await forEachLimited(positions, READS_IN_FLIGHT, async ({ id, position }) => {
      nodes[position] = assembleEntity(await read(id));
    });
    return nodes;
  }
}
