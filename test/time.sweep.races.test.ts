import type { TableClient } from "@azure/data-tables";
import { describe, expect, test } from "@jest/globals";

import { entityId, observationId, relationIds } from "../src/domain/model/ids.js";
import type { GraphStore } from "../src/domain/ports/store.js";
import { TableGraphStore } from "../src/storage/tableGraphStore.js";
import { failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import { injectRaces, type RaceInjector } from "./support/raceInjector.js";
import { partitionRows, type RawRow, rawTable } from "./support/rawRows.js";

/**
 * A sweep racing a renewal (docs/history.md#expiry-and-pinning): the renewal wins. The sweep here judges expiry ten
 * minutes ahead of the renewing server's clock (an instance whose clock is ahead, or simply a sweep that runs just after
 * the expiry), so the item is expired for the sweep and not yet for the renewal: a real race on real rows.
 *
 * - Injected: the renewal (set_expiry through MCP) commits between the sweep's read and its delete. The delete holds
 *   If-Match on the ETag it read, fails, and the sweep reads again and skips the item: it survives, renewed.
 * - Concurrent: the two run at once. Either the sweep deleted the item first (the renewal answers NotFound and no row is
 *   left), or the renewal committed first (it answers success and every row is there, renewed). Never a renewal answered
 *   success while the item is gone.
 */
let server: TestServer;
let mcp: McpTestClient;
let table: TableClient;
let store: GraphStore;
let races: RaceInjector;
withServerAndClient((started, client) => {
  server = started;
  mcp = client;
  table = rawTable();
  store = new TableGraphStore(server.app.storage);
  races = injectRaces(server.app.storage.table);
});

type Kind = "entity" | "observation" | "relation";
const MINUTE = 60_000;
const ROUNDS = 24;
const sweeper = { principal: "system:sweep", tool: "sweep_expired" };
const call = (ws: string, name: string, args: Record<string, unknown> = {}) => mcp.call(name, { workspaceName: ws, ...args });

/** set_expiry's arguments naming the item of this kind. */
function target(kind: Kind): Record<string, unknown> {
  if (kind === "entity") return { entityName: "Item" };
  if (kind === "observation") return { entityName: "Item", observation: "temporary" };
  return { entityName: "Item", relation: { to: "Anchor", relationType: "uses" } };
}

/** The rows that make up the item, as storage holds them. */
async function itemRows(ws: string, kind: Kind): Promise<RawRow[]> {
  const rows = await partitionRows(table, ws, ["event", "workspace"]);
  const item = entityId(ws, "Item");
  if (kind === "entity") return rows.filter((row) => row.rowKey.startsWith(item) || row.relationType === "uses");
  if (kind === "observation") return rows.filter((row) => row.rowKey === `${item}~o~${observationId(item, "temporary")}`);
  const { id } = relationIds(ws, { from: "Item", to: "Anchor", relationType: "uses" });
  return rows.filter((row) => row.relationId === id);
}

/** A workspace holding the item, expiring in five minutes (past for a sweep ten minutes ahead). */
async function seed(kind: Kind): Promise<{ ws: string; rowCount: number }> {
  const ws = uniqueWorkspace("sweeprace");
  ok(
    await call(ws, "create_entities", {
      entities: [
        { name: "Item", entityType: "t", observations: ["temporary", "kept"] },
        { name: "Anchor", entityType: "t", observations: [] },
      ],
    }),
  );
  ok(await call(ws, "create_relations", { relations: [{ from: "Item", to: "Anchor", relationType: "uses" }] }));
  ok(await call(ws, "set_expiry", { ...target(kind), expiresAt: new Date(Date.now() + 5 * MINUTE).toISOString() }));
  return { ws, rowCount: (await itemRows(ws, kind)).length };
}

const sweepAhead = (ws: string) => store.sweepExpired(ws, sweeper, { dryRun: false, nowMs: Date.now() + 10 * MINUTE });

describe("sweep_expired racing a renewal", () => {
  test(`a renewal committed between the sweep's read and its delete wins (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const kind = (["entity", "observation", "relation"] as const)[round % 3]!;
      const { ws, rowCount } = await seed(kind);
      const renewed = new Date(Date.now() + 60 * MINUTE).toISOString();
      let renewal: Awaited<ReturnType<typeof call>> | undefined;
      races.beforeNextTransaction(async () => {
        renewal = await call(ws, "set_expiry", { ...target(kind), expiresAt: renewed });
      });
      const report = await sweepAhead(ws);
      expect(renewal).toBeDefined(); // the race ran
      expect(ok(renewal!)).toMatchObject({ expiresAt: renewed });
      expect(report.items).toEqual([]);
      expect(report.skipped).toEqual([expect.objectContaining({ kind, reason: "renewed meanwhile" })]);
      const rows = await itemRows(ws, kind);
      expect(rows).toHaveLength(rowCount);
      // The rows that carry the expiry (the entity row, the observation row, or the relation's three) carry the renewal.
      const expiring = rows.filter((row) => row.expiresAt !== undefined);
      expect(expiring.map((row) => row.expiresAt)).toEqual(Array(kind === "relation" ? 3 : 1).fill(renewed));
    }
  }, 120_000);

  test(`run at once, the sweep deletes the item whole or the renewal keeps it whole, never a renewal answered success on a deleted item (${ROUNDS} rounds)`, async () => {
    const outcomes = { renewed: 0, swept: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const kind = (["entity", "observation", "relation"] as const)[round % 3]!;
      const { ws, rowCount } = await seed(kind);
      const renewed = new Date(Date.now() + 60 * MINUTE).toISOString();
      const [report, renewal] = await Promise.all([sweepAhead(ws), call(ws, "set_expiry", { ...target(kind), expiresAt: renewed })]);
      const rows = await itemRows(ws, kind);
      if (renewal.isError) {
        expect(failed(renewal).error).toBe("NotFoundError");
        expect(report.items).toEqual([expect.objectContaining({ kind })]);
        // Deleted whole: an entity leaves nothing of its range nor its relation; an observation or relation no row.
        expect(rows).toEqual([]);
        outcomes.swept += 1;
      } else {
        expect(ok(renewal)).toMatchObject({ expiresAt: renewed });
        expect(report.items).toEqual([]);
        expect(rows).toHaveLength(rowCount);
        expect(rows.filter((row) => row.expiresAt !== undefined).every((row) => row.expiresAt === renewed)).toBe(true);
        outcomes.renewed += 1;
      }
    }
    expect(outcomes.renewed + outcomes.swept).toBe(ROUNDS);
  }, 120_000);

  test("an entity too big for one transaction: a renewal before the sweep's first transaction keeps it whole; unrenewed, it goes whole", async () => {
    for (const renew of [true, false]) {
      const ws = uniqueWorkspace("sweepbig");
      const observations = Array.from({ length: 150 }, (_, k) => `fact ${k}`);
      ok(await call(ws, "create_entities", { entities: [{ name: "Big", entityType: "t", observations }] }));
      ok(await call(ws, "set_expiry", { entityName: "Big", expiresAt: new Date(Date.now() + 5 * MINUTE).toISOString() }));
      const renewed = new Date(Date.now() + 60 * MINUTE).toISOString();
      if (renew) races.beforeNextTransaction(() => call(ws, "set_expiry", { entityName: "Big", expiresAt: renewed }));
      const report = await sweepAhead(ws);
      const rows = (await partitionRows(table, ws, ["event", "workspace"])).filter((row) => row.rowKey.startsWith(entityId(ws, "Big")));
      if (renew) {
        expect(report.skipped).toEqual([expect.objectContaining({ kind: "entity", reason: "renewed meanwhile" })]);
        expect(rows).toHaveLength(151);
        expect(rows.find((row) => row.kind === "entity")?.expiresAt).toBe(renewed);
      } else {
        expect(report.items).toEqual([expect.objectContaining({ kind: "entity", name: "Big" })]);
        expect(rows).toEqual([]);
      }
    }
  }, 60_000);
});
