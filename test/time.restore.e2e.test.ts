import { describe, expect, test } from "@jest/globals";

import { entityId } from "../src/domain/model/ids.js";
import { toChangeEvent } from "../src/storage/rows/events.js";
import type { StoredRow } from "../src/storage/rows/rows.js";
import { failed, type McpTestClient, ok, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import { partitionRows, rawTable } from "./support/rawRows.js";

/**
 * restore_entity on an entity that exists, with asOf: the roll back that undoes supersede_observation, end_relation,
 * set_expiry and later additions (docs/history.md#two-times), end to end through MCP, raw rows and events checked.
 * Closures are written onto the rows with a raw table client, as those tools leave them; the roll back compares the
 * rows with the entity's replayed history, so it reopens them all the same.
 */

let mcp: McpTestClient;
withServerAndClient((_server, client) => {
  mcp = client;
});

const table = rawTable();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A time strictly between what was written before it and what is written after it. */
async function instant(): Promise<string> {
  await pause(20);
  const at = new Date().toISOString();
  await pause(20);
  return at;
}

interface Graph {
  entities: { name: string; observations: string[]; observationValidity?: Record<string, { status?: string }> }[];
  relations: { from: string; to: string; relationType: string; status?: string }[];
}
interface Restored {
  entityName: string;
  restoredAsOf: string;
  rolledBack?: {
    observationsRestored: string[];
    observationsRemoved: string[];
    observationsAddedBack: string[];
    relationsRestored: string[];
    relationsRemoved: string[];
    relationsAddedBack: string[];
    expiryRestored: boolean;
  };
}

describe("restore_entity on an entity that exists", () => {
  test("without rollBack it is refused, saying how to roll back; nothing is written", async () => {
    const ws = uniqueWorkspace("trestore");
    ok(await mcp.call("create_entities", { workspaceName: ws, entities: [{ name: "Alice", entityType: "person", observations: ["a"] }] }));
    const before = await partitionRows(table, ws, ["workspace"]);
    const refused = failed(await mcp.call("restore_entity", { workspaceName: ws, entityName: "Alice", asOf: new Date().toISOString() }));
    expect(refused.error).toBe("ConflictError");
    expect(refused.message).toContain("rollBack: true");
    const noTime = failed(await mcp.call("restore_entity", { workspaceName: ws, entityName: "Alice", rollBack: true }));
    expect(noTime.error).toBe("ValidationError");
    expect(await partitionRows(table, ws, ["workspace"])).toEqual(before);
  });

  test("with asOf, additions and deletions since are rolled back", async () => {
    const ws = uniqueWorkspace("trestore");
    ok(
      await mcp.call("create_entities", {
        workspaceName: ws,
        entities: [
          { name: "Alice", entityType: "person", observations: ["a", "keep"] },
          { name: "Bob", entityType: "person", observations: [] },
          { name: "Carol", entityType: "person", observations: [] },
        ],
      }),
    );
    ok(await mcp.call("create_relations", { workspaceName: ws, relations: [{ from: "Alice", to: "Bob", relationType: "knows" }] }));
    const asOf = await instant();
    ok(await mcp.call("add_observations", { workspaceName: ws, observations: [{ entityName: "Alice", contents: ["b"] }] }));
    ok(await mcp.call("delete_observations", { workspaceName: ws, deletions: [{ entityName: "Alice", observations: ["a"] }] }));
    ok(await mcp.call("create_relations", { workspaceName: ws, relations: [{ from: "Carol", to: "Alice", relationType: "likes" }] }));
    ok(await mcp.call("delete_relations", { workspaceName: ws, relations: [{ from: "Alice", to: "Bob", relationType: "knows" }] }));

    const restored = ok<Restored>(await mcp.call("restore_entity", { workspaceName: ws, entityName: "Alice", asOf, rollBack: true }));
    expect(restored.rolledBack).toEqual({
      observationsRestored: [],
      observationsRemoved: ["b"],
      observationsAddedBack: ["a"],
      relationsRestored: [],
      relationsRemoved: ["Carol likes Alice"],
      relationsAddedBack: ["Alice knows Bob"],
      expiryRestored: false,
    });
    const graph = ok<Graph>(await mcp.call("open_nodes", { workspaceName: ws, names: ["Alice"] }));
    expect([...graph.entities[0]!.observations].sort()).toEqual(["a", "keep"]);
    expect(graph.relations.map((r) => `${r.from} ${r.relationType} ${r.to}`)).toEqual(["Alice knows Bob"]);
    // Rolling back again to the same time changes nothing more.
    const again = ok<Restored>(await mcp.call("restore_entity", { workspaceName: ws, entityName: "Alice", asOf, rollBack: true }));
    expect(Object.values(again.rolledBack!).every((value) => value === false || (Array.isArray(value) && value.length === 0))).toBe(true);
  });

  test("with asOf, supersession, ending and expiry since are undone: rows reopened, each recorded as an update", async () => {
    const ws = uniqueWorkspace("trestore");
    ok(
      await mcp.call("create_entities", {
        workspaceName: ws,
        entities: [
          { name: "Alice", entityType: "person", observations: ["lead: payments", "likes tea"] },
          { name: "Acme", entityType: "company", observations: [] },
        ],
      }),
    );
    ok(await mcp.call("create_relations", { workspaceName: ws, relations: [{ from: "Alice", to: "Acme", relationType: "works_at" }] }));
    const asOf = await instant();
    const closedAt = new Date().toISOString();
    // What supersede_observation, end_relation and set_expiry leave on the rows.
    ok(await mcp.call("add_observations", { workspaceName: ws, observations: [{ entityName: "Alice", contents: ["lead: billing"] }] }));
    const rows = await partitionRows(table, ws, ["event", "workspace"]);
    const payments = rows.find((r) => r.kind === "observation" && r.content === "lead: payments")!;
    await table.updateEntity({ partitionKey: ws, rowKey: payments.rowKey, validTo: closedAt, supersededBy: "lead: billing" }, "Merge");
    const worksAt = rows.filter((r) => r.relationType === "works_at");
    expect(worksAt).toHaveLength(3);
    for (const row of worksAt) await table.updateEntity({ partitionKey: ws, rowKey: row.rowKey, validTo: closedAt }, "Merge");
    const later = new Date(Date.now() + 3_600_000).toISOString();
    await table.updateEntity({ partitionKey: ws, rowKey: entityId(ws, "Alice"), expiresAt: later, pinned: false }, "Merge");

    const closed = ok<Graph>(await mcp.call("read_graph", { workspaceName: ws }));
    expect(closed.entities.find((e) => e.name === "Alice")!.observations).toEqual(["likes tea", "lead: billing"]);
    expect(closed.relations).toEqual([]);

    const restored = ok<Restored>(await mcp.call("restore_entity", { workspaceName: ws, entityName: "Alice", asOf, rollBack: true }));
    expect(restored.restoredAsOf).toBe(asOf);
    expect(restored.rolledBack).toEqual({
      observationsRestored: ["lead: payments"],
      observationsRemoved: ["lead: billing"],
      observationsAddedBack: [],
      relationsRestored: ["Alice works_at Acme"],
      relationsRemoved: [],
      relationsAddedBack: [],
      expiryRestored: true,
    });

    // Raw rows: the closures cleared on the observation, on all three relation rows, and the entity's expiry.
    const after = await partitionRows(table, ws, ["event", "workspace"]);
    const reopened = after.find((r) => r.kind === "observation" && r.content === "lead: payments")!;
    expect([reopened.validTo ?? "", reopened.supersededBy ?? ""]).toEqual(["", ""]);
    expect(after.find((r) => r.kind === "observation" && r.content === "lead: billing")).toBeUndefined();
    expect(after.filter((r) => r.relationType === "works_at").map((r) => r.validTo ?? "")).toEqual(["", "", ""]);
    expect(after.find((r) => r.rowKey === entityId(ws, "Alice"))!.expiresAt ?? "").toBe("");

    // The index, brought current by the restore's events, reads the state of asOf.
    const graph = ok<Graph>(await mcp.call("read_graph", { workspaceName: ws }));
    expect(graph.entities.find((e) => e.name === "Alice")!.observations).toEqual(["lead: payments", "likes tea"]);
    expect(graph.relations.map((r) => `${r.from} ${r.relationType} ${r.to}`)).toEqual(["Alice works_at Acme"]);

    // The feed records the roll back: updates carrying the validity patches, and the deletion (read raw: the history
    // tools' shapes learn `validity` with the writes of supersession).
    const events = (await partitionRows(table, ws, { only: ["event"] })).map((row) => toChangeEvent(row as unknown as StoredRow));
    const changes = events.filter((event) => event.tool === "restore_entity").flatMap((event) => event.changes);
    expect(changes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "observation.deleted", content: "lead: billing" }),
        expect.objectContaining({ kind: "observation.updated", content: "lead: payments", validity: { validTo: "", supersededBy: "" } }),
        expect.objectContaining({ kind: "relation.updated", validity: { validTo: "" } }),
        expect.objectContaining({ kind: "entity.updated", validity: { expiresAt: "" } }),
      ]),
    );
  });

  test("an asOf before the entity existed is NotFound and writes nothing", async () => {
    const ws = uniqueWorkspace("trestore");
    ok(await mcp.call("create_entities", { workspaceName: ws, entities: [{ name: "First", entityType: "t", observations: [] }] }));
    const asOf = await instant();
    ok(await mcp.call("create_entities", { workspaceName: ws, entities: [{ name: "Alice", entityType: "person", observations: ["a"] }] }));
    const before = await partitionRows(table, ws, ["workspace"]);
    const refused = failed(await mcp.call("restore_entity", { workspaceName: ws, entityName: "Alice", asOf, rollBack: true }));
    expect(refused.error).toBe("NotFoundError");
    expect(await partitionRows(table, ws, ["workspace"])).toEqual(before);
  });

  test("undoes supersede_observation, a single-valued supersession and end_relation; the undo is history itself", async () => {
    const ws = uniqueWorkspace("trestore");
    const call = (name: string, args: Record<string, unknown> = {}) => mcp.call(name, { workspaceName: ws, ...args });
    ok(await call("declare_fact_keys", { keys: [{ key: "lead", singleValued: true }] }));
    ok(
      await call("create_entities", {
        entities: [
          { name: "payments", entityType: "team", observations: ["lead: Alice", "budget: 100"] },
          { name: "Alice", entityType: "person", observations: [] },
        ],
      }),
    );
    ok(await call("upsert_relation", { from: "Alice", to: "payments", relationType: "works_at", validFrom: "2024-01-01" }));
    const asOf = await instant();
    ok(await call("supersede_observation", { entityName: "payments", observation: "budget: 100", replacement: "budget: 120" }));
    ok(await call("add_observations", { observations: [{ entityName: "payments", contents: ["lead: Bob"] }] }));
    ok(await call("end_relation", { from: "Alice", to: "payments", relationType: "works_at" }));
    const changed = await instant();
    const open = async (args: Record<string, unknown> = {}) =>
      ok<Graph>(await call("open_nodes", { names: ["payments", "Alice"], ...args }));
    const state = (graph: Graph) => ({
      observations: [...(graph.entities.find((e) => e.name === "payments")?.observations ?? [])].sort(),
      relations: graph.relations.map((r) => `${r.from} ${r.relationType} ${r.to}`),
    });
    expect(state(await open())).toEqual({ observations: ["budget: 120", "lead: Bob"], relations: [] });

    const restored = ok<Restored>(await call("restore_entity", { entityName: "payments", asOf, rollBack: true }));
    expect(restored.rolledBack).toMatchObject({
      observationsRestored: expect.arrayContaining(["lead: Alice", "budget: 100"]),
      observationsRemoved: expect.arrayContaining(["budget: 120", "lead: Bob"]),
      relationsRestored: ["Alice works_at payments"],
    });
    expect(state(await open())).toEqual({ observations: ["budget: 100", "lead: Alice"], relations: ["Alice works_at payments"] });
    // Nothing is left marked: the reopened rows are current again, the removed ones gone.
    const all = await open({ includeSuperseded: true });
    expect(state(all)).toEqual({ observations: ["budget: 100", "lead: Alice"], relations: ["Alice works_at payments"] });
    expect(all.entities.find((e) => e.name === "payments")!.observationValidity ?? {}).toEqual({});
    // The undo is history: as held before it, the supersessions and the ending stand.
    expect(state(await open({ asOf: changed }))).toEqual({ observations: ["budget: 120", "lead: Bob"], relations: [] });
    expect(state(await open({ asOf: changed, includeSuperseded: true })).observations).toEqual([
      "budget: 100",
      "budget: 120",
      "lead: Alice",
      "lead: Bob",
    ]);
    // And the single-valued key still holds one value after the undo: writing a new lead supersedes the restored one.
    ok(await call("add_observations", { observations: [{ entityName: "payments", contents: ["lead: Carol"] }] }));
    expect(state(await open()).observations).toEqual(["budget: 100", "lead: Carol"]);
  });
});

describe("restore_entity of a deleted entity keeps valid time and expiry", () => {
  test("a superseded fact comes back superseded, an ended relation ended, an expiry and a pin as they were", async () => {
    const ws = uniqueWorkspace("trd");
    const call = (name: string, args: Record<string, unknown>) => mcp.call(name, { workspaceName: ws, ...args });
    ok(
      await call("create_entities", {
        entities: [{ name: "Team", entityType: "team", observations: ["lead: Alice"] }],
        ttlSeconds: 86_400,
      }),
    );
    ok(await call("create_entities", { entities: [{ name: "Ann", entityType: "person", observations: [] }] }));
    ok(await call("supersede_observation", { entityName: "Team", observation: "lead: Alice", replacement: "lead: Bob" }));
    ok(await call("set_expiry", { entityName: "Team", observation: "lead: Bob", pinned: true }));
    ok(await call("upsert_relation", { from: "Ann", to: "Team", relationType: "works_at", validFrom: "2024-01-01" }));
    ok(await call("end_relation", { from: "Ann", to: "Team", relationType: "works_at", validTo: "2025-01-01" }));
    type Loose = { entities: Record<string, unknown>[]; relations: Graph["relations"] };
    const team = (graph: Loose) => graph.entities.find((e) => e.name === "Team")!;
    const before = ok<Loose>(await call("read_graph", { includeSuperseded: true }));
    ok(await call("delete_entities", { entityNames: ["Team"] }));
    ok(await call("restore_entity", { entityName: "Team" }));
    const after = ok<Loose>(await call("read_graph", { includeSuperseded: true }));
    const { observationValidity, expiresAt, pinned } = team(after);
    expect({ observationValidity, expiresAt, pinned }).toEqual({
      observationValidity: team(before).observationValidity,
      expiresAt: team(before).expiresAt,
      pinned: team(before).pinned,
    });
    expect(observationValidity).toMatchObject({ "lead: Alice": { status: "superseded" }, "lead: Bob": { pinned: true } });
    expect(after.relations.find((r) => r.relationType === "works_at")).toMatchObject({ status: "ended" });
    const now = ok<Graph>(await call("open_nodes", { names: ["Team"] }));
    expect(now.entities[0]!.observations).toEqual(["lead: Bob"]);
  });
});
