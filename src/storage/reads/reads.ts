import type { Direction, EntityNode } from "../../domain/model/model.js";
import { keyRange, ownerOf } from "../rows/keys.js";
import { entityRelationsFilter, entityScanFilter, SEARCH_COLUMNS } from "../rows/queries.js";
import { assembleEntity, type StoredRow } from "../rows/rows.js";
import type { TableGateway } from "../table/gateway.js";

/** Reads of entities. Every one is a range query or a scan in key order (layout in keys.ts). */

export async function getEntityRelations(
  gateway: TableGateway,
  workspace: string,
  entityId: string,
  direction: Direction,
): Promise<EntityNode | undefined> {
  // The entity's own row comes in the same range query: its version rides along at no extra request.
  const rows = await gateway.query(entityRelationsFilter(workspace, entityId, direction));
  return assembleEntity(rows);
}

export function getEntities(gateway: TableGateway, workspace: string, entityIds: readonly string[]): Promise<(EntityNode | undefined)[]> {
  return Promise.all(entityIds.map(async (id) => assembleEntity(await gateway.queryRange(workspace, keyRange.wholeEntity(id)))));
}

export function scanEntities(gateway: TableGateway, workspace: string): AsyncIterable<EntityNode> {
  return scan(gateway, entityScanFilter(workspace), SEARCH_COLUMNS);
}

/**
 * Streams a query in key order, grouping rows by the entity they belong to (one entity's rows are
 * contiguous), and yields each entity as soon as its range is complete, so a scan holds one entity at a time.
 * `visit`, when given, sees every row first; rows it claims (returns true for) are not grouped.
 */
export async function* scan(
  gateway: TableGateway,
  filter: string,
  select?: string[],
  visit?: (row: StoredRow) => boolean,
): AsyncGenerator<EntityNode> {
  let group: StoredRow[] = [];
  let owner: string | undefined;
  for await (const page of gateway.pages(filter, select)) {
    for (const row of page) {
      if (visit?.(row)) continue;
      const rowOwner = ownerOf(String(row.rowKey));
      if (rowOwner !== owner) {
        const node = assembleEntity(group);
        if (node) yield node;
        group = [];
        owner = rowOwner;
      }
      group.push(row);
    }
  }
  const node = assembleEntity(group);
  if (node) yield node;
}
