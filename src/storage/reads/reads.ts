import type { Direction, EntityNode, ReadMode } from "../../domain/model/model.js";
import { byCreation } from "../../domain/model/order.js";
import type { StoredPage } from "../../domain/ports/store.js";
import type { TableGateway } from "../table/gateway.js";
import { keyRange, ownerOf } from "../rows/keys.js";
import { entityRelationsFilter, entityScanFilter, graphFilter, NAMES_COLUMNS, SEARCH_COLUMNS } from "../rows/queries.js";
import { assembleEntity, type StoredRow } from "../rows/rows.js";

/** Reads of entities and the graph. Every one is a range query or a scan in key order (layout in keys.ts). */

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

export async function readGraph(
  gateway: TableGateway,
  workspace: string,
  options: { limit?: number; after?: string; mode?: ReadMode },
): Promise<StoredPage> {
  const range = options.after === undefined ? keyRange.graph : keyRange.after(options.after);
  // Only outgoing edges: each relation then comes with its source entity, so paging returns it exactly once.
  const nodes =
    options.mode === "names"
      ? scan(gateway, graphFilter(workspace, range, "names"), NAMES_COLUMNS)
      : scan(gateway, graphFilter(workspace, range, "full"));
  const page: StoredPage = { entities: [], relations: [] };
  for await (const node of nodes) {
    if (options.limit !== undefined && page.entities.length >= options.limit) {
      page.after = page.entities[page.entities.length - 1]?.id;
      break;
    }
    page.entities.push(node.entity);
    page.relations.push(...node.relations);
  }
  page.entities.sort(byCreation);
  page.relations.sort(byCreation);
  return page;
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
