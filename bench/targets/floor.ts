import type { TransactionAction } from "@azure/data-tables";

import type { FeedPosition } from "../../src/domain/feed/history.js";
import { entityId, observationId, relationId } from "../../src/domain/model/ids.js";
import { LIMITS } from "../../src/domain/model/limits.js";
import { TableIndexSource } from "../../src/storage/reads/indexSource.js";
import { keyRange, rowKey } from "../../src/storage/rows/keys.js";
import { entityRelationsFilter } from "../../src/storage/rows/queries.js";
import { type EntityRow, kindOf, type ObservationRow, type RelationRow } from "../../src/storage/rows/rows.js";
import { newObservationRows, storedKeys } from "../../src/storage/rows/rowWrites.js";
import { connectStorage } from "../../src/storage/table/client.js";
import { chunkActions, pack } from "../../src/storage/writes/transactions.js";
import { BENCH_WORKSPACE, type GraphCounts, type Target } from "./types.js";

/**
 * The storage floor: exactly the storage requests each tool makes (same TableClient setup, key
 * module, row shapes and filters as the adapter in src/storage), issued with @azure/data-tables
 * (directly, or through the adapter's gateway, which adds nothing to a request) from this process:
 * no MCP, no HTTP server, no domain code. What ours costs
 * above this is our code; the floor itself is what the store (here Azurite) costs.
 *
 * The filters and column lists are the adapter's own (src/storage/rows/queries.ts), so the floor cannot
 * drift from what ours asks for.
 */
export async function startFloor(connectionString: string, tableName = "benchfloor"): Promise<Target> {
  const storage = connectStorage({ kind: "connectionString", connectionString, tableName, source: "bench floor" });
  await storage.ensureTable();
  const table = storage.table;
  const ws = BENCH_WORKSPACE;
  // Whole-workspace reads are answered from the workspace index: its storage requests are one scan on first use,
  // then one read of the feed's tail per call (docs/search.md). The counts are the snapshot's: the workload writes
  // nothing after its first search.
  const index = new TableIndexSource(storage);
  let current: { position: FeedPosition; counts: GraphCounts } | undefined;
  async function freshen(): Promise<GraphCounts> {
    if (!current) {
      const { nodes, position } = await index.snapshot(ws);
      const counts = {
        entities: nodes.length,
        observations: nodes.reduce((sum, node) => sum + node.entity.observations.length, 0),
        // Each relation once, at its source.
        relations: nodes.reduce((sum, node) => sum + node.relations.filter((r) => r.fromEntityId === node.entity.id).length, 0),
      };
      current = { position, counts };
      return counts;
    }
    const tail = await index.tail(ws, current.position);
    if (tail) current.position = tail.position;
    return current.counts;
  }

  return {
    name: "floor",
    description: "the same storage requests issued directly with @azure/data-tables (no MCP, no HTTP server)",
    ops: {
      // upsert_entity: one range read of the entity and its observations, then one transaction.
      async createEntity(entity) {
        const id = entityId(ws, entity.name);
        const range = keyRange.entityWithObservations(id);
        const rows = await storage.gateway.queryRange(ws, range);
        const exists = rows.some((row) => row.kind === "entity");
        const stored = new Set(rows.map((row) => row.rowKey));
        const now = new Date().toISOString();
        const entityRow: EntityRow = {
          kind: "entity",
          name: entity.name,
          entityType: entity.entityType,
          metadata: "{}",
          createdAt: now,
          updatedAt: now,
        };
        const actions: TransactionAction[] = [
          exists
            ? ["update", { partitionKey: ws, rowKey: rowKey.entity(id), entityType: entity.entityType, updatedAt: now }, "Merge"]
            : ["create", { partitionKey: ws, rowKey: rowKey.entity(id), ...entityRow }],
        ];
        entity.observations.forEach((content, position) => {
          const key = rowKey.observation(id, observationId(id, content));
          if (stored.has(key)) return;
          const row: ObservationRow = {
            kind: "observation",
            entityId: id,
            content,
            order: `${now}#${String(position + 1).padStart(6, "0")}`,
            createdAt: now,
          };
          actions.push(["upsert", { partitionKey: ws, rowKey: key, ...row }, "Merge"]);
        });
        await table.submitTransaction(actions);
      },
      // upsert_relation by names: one transaction creating the relation and both edge rows, guarded by merges of both endpoints.
      async createRelation(relation) {
        const fromId = entityId(ws, relation.from);
        const toId = entityId(ws, relation.to);
        const id = relationId(ws, fromId, relation.relationType, toId);
        const now = new Date().toISOString();
        const fields: Omit<RelationRow, "kind"> = {
          relationId: id,
          relationType: relation.relationType,
          fromId,
          fromName: relation.from,
          toId,
          toName: relation.to,
          metadata: "{}",
          createdAt: now,
          updatedAt: now,
        };
        await table.submitTransaction([
          ["create", { partitionKey: ws, rowKey: rowKey.relation(id), ...fields, kind: "relation" }],
          ["create", { partitionKey: ws, rowKey: rowKey.edgeOut(fromId, id), ...fields, kind: "edge-out" }],
          ["create", { partitionKey: ws, rowKey: rowKey.edgeIn(toId, id), ...fields, kind: "edge-in" }],
          ...[...new Set([fromId, toId])].map((guard): TransactionAction => [
            "update",
            { partitionKey: ws, rowKey: rowKey.entity(guard) },
            "Merge",
          ]),
        ]);
      },
      // add_observations (one entity): one range read of the entity and its observations, then one
      // transaction creating the new observation rows with the entity's guard (the adapter's row builders and packing).
      async addObservations(name, contents) {
        const id = entityId(ws, name);
        const rows = await storage.gateway.queryRange(ws, keyRange.entityWithObservations(id));
        if (!rows.some((row) => kindOf(row) === "entity")) throw new Error(`floor: entity '${name}' not found`);
        const { rows: added } = newObservationRows(ws, id, contents, storedKeys(rows), {
          now: new Date().toISOString(),
          clock: Date.now,
          actor: { principal: "anonymous", tool: "add_observations" },
          call: "bench-floor",
        });
        const units = chunkActions(
          added.map((row): TransactionAction => ["create", row]),
          LIMITS.batchOperations - 1,
        ).map((actions) => ({ actions, guards: [id] }));
        for (const batch of pack(ws, units)) await storage.gateway.transact(batch.actions);
      },
      // open_nodes (one name): one range read of the entity's whole range.
      async openNodes(name) {
        const rows = await storage.gateway.queryRange(ws, keyRange.wholeEntity(entityId(ws, name)));
        return rows.filter((row) => kindOf(row) === "observation").length;
      },
      // get_entity_relations (direction "out", the tool's default): one query bounded by the entity's range.
      async getEntityRelations(name) {
        const id = entityId(ws, name);
        const rows = await storage.gateway.query(entityRelationsFilter(ws, id, "out"));
        if (!rows.some((row) => row.kind === "entity")) throw new Error(`floor: entity '${name}' not found`);
      },
      // The whole-workspace reads: the index's requests (see freshen); matching and paging are our CPU, not storage.
      searchNodes: async () => void (await freshen()),
      readGraph: freshen,
      searchEntities: async () => void (await freshen()),
      searchRelations: async () => void (await freshen()),
      getStats: async () => void (await freshen()),
    },
    storageRequests: async () => storage.counter.total,
    close: async () => {},
  };
}
