import { odata } from "@azure/data-tables";

import type { Direction } from "../../domain/model/model.js";
import { keyRange } from "./keys.js";
import { VALIDITY_COLUMNS } from "./rows.js";

/**
 * The adapter's read queries, in one place, so the benchmark's storage floor issues exactly these
 * (not copies that could drift). Every value goes through the `odata` template.
 */

/** Columns a read needs, per purpose; fewer columns means smaller pages. */
const NAMES_COLUMNS = [
  "RowKey",
  "kind",
  "name",
  "entityType",
  "createdAt",
  "updatedAt",
  "order",
  "relationId",
  "relationType",
  "fromId",
  "fromName",
  "toId",
  "toName",
  "tagName",
];
export const SEARCH_COLUMNS = [...NAMES_COLUMNS, "content", "observationId", ...VALIDITY_COLUMNS];

/** Bounded by the entity's range (so the service scans only that), then narrowed to the entity row and the edges. */
export function entityRelationsFilter(workspace: string, entityId: string, direction: Direction): string {
  const edges = keyRange.edges(entityId, direction);
  const whole = keyRange.wholeEntity(entityId);
  return odata`PartitionKey eq ${workspace} and RowKey ge ${whole.from} and RowKey lt ${whole.to} and (RowKey eq ${entityId} or (RowKey ge ${edges.from} and RowKey lt ${edges.to}))`;
}

/** Every row of the entities' ranges: not the canonical relation rows (their edges are in those ranges), nor tag definitions and index. */
export function entityScanFilter(workspace: string): string {
  return odata`PartitionKey eq ${workspace} and RowKey lt ${keyRange.graph.to} and kind ne ${"relation"}`;
}
