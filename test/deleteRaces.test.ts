import type { TableClient } from "@azure/data-tables";
import { describe, expect, test } from "@jest/globals";

import { entityId, observationId } from "../src/domain/model/ids.js";
import { rowKey } from "../src/storage/rows/keys.js";
import { type FaultInjector, injectFaults } from "./support/faultInjector.js";
import type { McpTestClient, TestServer } from "./support/harness.js";
import { failed, ok, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import { partitionRows, type RawRow, rawTable } from "./support/rawRows.js";

/**
 * delete_entities racing writers, and interrupted part-way. What must hold: an acknowledged write is
 * in the store, the final state is one some serial order of the calls gives, and a delete that stops
 * anywhere leaves nothing a reader sees as dangling (a retry then completes it). Checked through the
 * tools and through the raw rows, read with @azure/data-tables directly.
 */
let server: TestServer;
let mcp: McpTestClient;
let table: TableClient;
let faults: FaultInjector;

withServerAndClient(
  (started, client) => {
    server = started;
    mcp = client;
    faults = injectFaults(server.app.storage.table);
    table = rawTable();
  },
  // No SDK retries: an injected failure fails its request at once (retries would only repeat it).
  { server: { storage: { maxRetries: 0 } } },
);

/** Every row of the workspace but its change events (which sit outside every entity range: test/history.events.test.ts covers them) and its registry row (test/workspaces.test.ts). */
const rawRows = (ws: string): Promise<RawRow[]> => partitionRows(table, ws, ["event", "workspace"]);

const names = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("upsert_entity racing delete_entities on the same entity", () => {
  const ROUNDS = 30;
  const stored = names("o", 250); // several delete transactions, so the race has a window to land in

  test(`${ROUNDS} rounds: an acknowledged upsert's observations are all stored, and the end state is a serial order`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const ws = uniqueWorkspace("race");
      ok(await mcp.call("create_entities", { workspaceName: ws, entities: [{ name: "N", entityType: "t", observations: stored }] }));
      // The upsert starts a little later each round, so over the rounds it meets every phase of the delete.
      const [deleted, upserted] = await Promise.all([
        mcp.call("delete_entities", { workspaceName: ws, entityNames: ["N"] }),
        pause(round % 10).then(() =>
          mcp.call("upsert_entity", { workspaceName: ws, name: "N", entityType: "t", observations: ["o5", "fresh"] }),
        ),
      ]);
      ok(deleted);
      const { created } = ok<{ created: boolean }>(upserted);

      const rows = await rawRows(ws);
      const entityRows = rows.filter((row) => row.kind === "entity");
      const observations = rows.filter((row) => row.kind === "observation").map((row) => String(row.content));
      if (entityRows.length > 0) {
        // The upsert was acknowledged, so both its observations are there; and the only serial order that leaves the
        // entity is delete, then upsert, which creates it with exactly these two.
        expect(observations.sort()).toEqual(["fresh", "o5"]);
        expect(rows).toHaveLength(3);
        expect(created).toBe(true);
      } else {
        // Upsert, then delete: nothing of N is left, not even a row without its entity.
        expect(rows).toEqual([]);
        expect(created).toBe(false);
      }
      const graph = ok<{ entities: { name: string; observations: string[] }[] }>(await mcp.call("read_graph", { workspaceName: ws }));
      expect(graph.entities.map((entity) => [entity.name, [...entity.observations].sort()])).toEqual(
        entityRows.length > 0 ? [["N", ["fresh", "o5"]]] : [],
      );
    }
  }, 180_000);
});

describe("delete_entities interrupted part-way by storage failures", () => {
  test("leaves no relation whose endpoint is gone, and a retry completes the delete", async () => {
    const ws = uniqueWorkspace("cut");
    const others = names("P", 150);
    ok(
      await mcp.call("create_entities", {
        workspaceName: ws,
        entities: ["Hub", ...others].map((name) => ({ name, entityType: "t", observations: [] })),
      }),
    );
    // 300 relations in both directions: 900 rows besides Hub's own, about ten transactions.
    const relations = others.flatMap((name) => [
      { from: "Hub", to: name, relationType: "out" },
      { from: name, to: "Hub", relationType: "in" },
    ]);
    ok(await mcp.call("create_relations", { workspaceName: ws, relations }));
    const hubId = entityId(ws, "Hub");

    // The range read and the first few requests after it go through; then storage fails every request.
    faults.failAfter(4);
    let interrupted;
    try {
      interrupted = await mcp.call("delete_entities", { workspaceName: ws, entityNames: ["Hub"] });
    } finally {
      faults.heal();
    }
    expect(failed(interrupted).error).toBe("StorageError");
    expect(faults.failed).toBeGreaterThan(0);

    const expectNothingDangling = async () => {
      const rows = await rawRows(ws);
      const entities = new Set(rows.filter((row) => row.kind === "entity").map((row) => row.rowKey));
      const dangling = rows.filter(
        (row) =>
          ["relation", "edge-in", "edge-out"].includes(String(row.kind)) &&
          !(entities.has(String(row.fromId)) && entities.has(String(row.toId))),
      );
      expect(dangling.map((row) => `${String(row.kind)} ${row.rowKey}`)).toEqual([]);
      // Nor a row of an entity's range without its entity row.
      expect(rows.filter((row) => row.kind !== "relation" && !entities.has(row.rowKey.slice(0, 36))).map((row) => row.rowKey)).toEqual([]);
      const graph = ok<{ entities: { name: string }[]; relations: { from: string; to: string }[] }>(
        await mcp.call("read_graph", { workspaceName: ws }),
      );
      const shown = new Set(graph.entities.map((entity) => entity.name));
      expect(graph.relations.filter((relation) => !shown.has(relation.from) || !shown.has(relation.to))).toEqual([]);
      return rows;
    };
    const afterCut = await expectNothingDangling();
    // The interruption really was part-way: some of Hub's relations were deleted, and some remain.
    const hubRelations = (rows: RawRow[]) => rows.filter((row) => row.kind === "relation" && (row.fromId === hubId || row.toId === hubId));
    expect(hubRelations(afterCut).length).toBeGreaterThan(0);
    expect(hubRelations(afterCut).length).toBeLessThan(relations.length);

    ok(await mcp.call("delete_entities", { workspaceName: ws, entityNames: ["Hub"] }));
    const afterRetry = await expectNothingDangling();
    expect(afterRetry.filter((row) => row.rowKey.startsWith(hubId))).toEqual([]);
    expect(hubRelations(afterRetry)).toEqual([]);
    expect(afterRetry.filter((row) => row.kind === "entity")).toHaveLength(others.length);
    expect(afterRetry.filter((row) => row.fromId === hubId || row.toId === hubId)).toEqual([]);
  }, 60_000);
});

describe("rows a delete of an earlier version left without their entity row", () => {
  /** That version deleted the entity row first; a delete interrupted after it left observation rows behind. */
  async function leaveObservation(ws: string, name: string, content: string): Promise<void> {
    const id = entityId(ws, name);
    await table.createEntity({
      partitionKey: ws,
      rowKey: rowKey.observation(id, observationId(id, content)),
      kind: "observation",
      entityId: id,
      content,
      order: "2000-01-01T00:00:00.000Z#000001",
      createdAt: "2000-01-01T00:00:00.000Z",
    });
  }

  test("are not an entity, and create_entities creates the entity over them, alone or in a batch with others", async () => {
    const ws = uniqueWorkspace("left");
    await leaveObservation(ws, "Alone", "kept");
    await leaveObservation(ws, "Batched", "kept");
    expect(ok<{ entities: unknown[] }>(await mcp.call("read_graph", { workspaceName: ws })).entities).toEqual([]);

    // One entity with more observations than one transaction holds goes alone; the others share a transaction.
    const many = names("fact ", 120);
    const created = ok<{ entities: { name: string }[] }>(
      await mcp.call("create_entities", {
        workspaceName: ws,
        entities: [
          { name: "Alone", entityType: "t", observations: ["kept", ...many] },
          { name: "Batched", entityType: "t", observations: ["kept", "new"] },
          { name: "Bystander", entityType: "t", observations: ["b"] },
        ],
      }),
    );
    expect(created.entities.map((entity) => entity.name).sort()).toEqual(["Alone", "Batched", "Bystander"]);
    const graph = ok<{ entities: { name: string; observations: string[] }[] }>(await mcp.call("read_graph", { workspaceName: ws }));
    const stored = new Map(graph.entities.map((entity) => [entity.name, [...entity.observations].sort()]));
    expect(stored.get("Alone")).toEqual(["kept", ...many].sort());
    expect(stored.get("Batched")).toEqual(["kept", "new"]);
    expect(stored.get("Bystander")).toEqual(["b"]);
    // Created once: a second call finds them all and leaves them untouched.
    expect(
      ok<{ entities: unknown[] }>(
        await mcp.call("create_entities", { workspaceName: ws, entities: [{ name: "Batched", entityType: "other", observations: ["x"] }] }),
      ).entities,
    ).toEqual([]);
    expect((await rawRows(ws)).filter((row) => row.kind === "entity")).toHaveLength(3);
  });

  test("in a later transaction of a large entity: create_entities still creates it whole and says so", async () => {
    const ws = uniqueWorkspace("left");
    // The left-over row is the last observation, so it meets the second transaction, after the entity row committed.
    const many = names("fact ", 150);
    await leaveObservation(ws, "Large", many[149]!);
    const created = ok<{ entities: { name: string }[] }>(
      await mcp.call("create_entities", { workspaceName: ws, entities: [{ name: "Large", entityType: "t", observations: many }] }),
    );
    expect(created.entities.map((entity) => entity.name)).toEqual(["Large"]);
    const graph = ok<{ entities: { name: string; observations: string[] }[] }>(await mcp.call("read_graph", { workspaceName: ws }));
    expect([...graph.entities[0]!.observations].sort()).toEqual([...many].sort());
  });
});
