import { describe, expect, test } from "@jest/globals";

import { entityId } from "../src/domain/model/ids.js";
import { keyRange, rowKey } from "../src/storage/rows/keys.js";
import { failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import { eventRowKeys, partitionRows, rawTable } from "./support/rawRows.js";

/**
 * reject_duplicate_pair through the real MCP Client (docs/curate.md#rejecting-a-pair): a rejected pair is not proposed
 * again by detect_duplicate_entities, undo brings it back, history shows both, bad inputs write nothing, and the storage
 * requests each call costs, counted exactly.
 */
let server: TestServer;
let mcp: McpTestClient;
withServerAndClient((started, client) => {
  server = started;
  mcp = client;
});

type Args = Record<string, unknown>;
const call = (ws: string, name: string, args: Args = {}) => mcp.call(name, { workspaceName: ws, ...args });
const table = rawTable();

interface Detected {
  pairs: { a: { name: string }; b: { name: string } }[];
  rejected: number;
}
interface Rejected {
  success: true;
  workspaceName: string;
  a: string;
  b: string;
  rejected: boolean;
  changed: boolean;
}
interface Events {
  events: { tool: string; principal: string; summary: string; changes: { kind: string; pair?: { entityName: string }[] }[] }[];
}

const pairsOf = (detected: Detected) => detected.pairs.map((pair) => [pair.a.name, pair.b.name].sort().join(" | ")).sort();
const rejectionRows = (ws: string) => partitionRows(table, ws, { range: keyRange.rejections });

/** A workspace with two probable duplicate pairs (names alike once case and punctuation are ignored). */
async function seeded(): Promise<string> {
  const ws = uniqueWorkspace("reject");
  ok(
    await call(ws, "create_entities", {
      entities: [
        { name: "Alice Smith", entityType: "person", observations: ["works at Acme"] },
        { name: "alice_smith", entityType: "person", observations: ["works at Acme"] },
        { name: "Acme Corp", entityType: "organization", observations: [] },
        { name: "ACME corp", entityType: "organization", observations: [] },
      ],
    }),
  );
  return ws;
}

/** Storage requests one call makes, and its answer. */
async function counted(ws: string, name: string, args: Args): Promise<{ requests: number; result: Awaited<ReturnType<typeof call>> }> {
  const before = server.requests();
  const result = await call(ws, name, args);
  return { requests: server.requests() - before, result };
}

describe("reject_duplicate_pair", () => {
  test("a rejected pair is left out of detection in either order, undo brings it back, and history shows both", async () => {
    const ws = await seeded();
    const all = ok<Detected>(await call(ws, "detect_duplicate_entities"));
    expect(pairsOf(all)).toEqual(["ACME corp | Acme Corp", "Alice Smith | alice_smith"]);
    expect(all.rejected).toBe(0);

    const first = ok<Rejected>(await call(ws, "reject_duplicate_pair", { a: "alice_smith", b: "Alice Smith" }));
    expect(first).toEqual({ success: true, workspaceName: ws, a: "alice_smith", b: "Alice Smith", rejected: true, changed: true });
    const after = ok<Detected>(await call(ws, "detect_duplicate_entities"));
    expect(pairsOf(after)).toEqual(["ACME corp | Acme Corp"]);
    expect(after.rejected).toBe(1);

    // The other order is the same pair: one row, nothing written again.
    const events = (await eventRowKeys(table, ws)).length;
    const again = ok<Rejected>(await call(ws, "reject_duplicate_pair", { a: "Alice Smith", b: "alice_smith" }));
    expect(again).toMatchObject({ rejected: true, changed: false });
    expect(await eventRowKeys(table, ws)).toHaveLength(events);
    const rows = await rejectionRows(ws);
    expect(rows.map((row) => row.rowKey)).toEqual([rowKey.rejection(entityId(ws, "Alice Smith"), entityId(ws, "alice_smith"))]);
    expect(rows[0]).toMatchObject({ kind: "duplicate-rejection" });
    expect([rows[0]!.aName, rows[0]!.bName].sort()).toEqual(["Alice Smith", "alice_smith"]);

    // A limit counts only pairs still proposed: the rejected one never takes a place.
    expect(pairsOf(ok<Detected>(await call(ws, "detect_duplicate_entities", { limit: 1 })))).toEqual(["ACME corp | Acme Corp"]);

    const undone = ok<Rejected>(await call(ws, "reject_duplicate_pair", { a: "Alice Smith", b: "alice_smith", undo: true }));
    expect(undone).toMatchObject({ rejected: false, changed: true });
    expect(await rejectionRows(ws)).toEqual([]);
    const back = ok<Detected>(await call(ws, "detect_duplicate_entities"));
    expect(pairsOf(back)).toEqual(pairsOf(all));
    expect(back.rejected).toBe(0);
    // Undo of a rejection that is not there: a no-op success.
    expect(ok<Rejected>(await call(ws, "reject_duplicate_pair", { a: "Alice Smith", b: "alice_smith", undo: true }))).toMatchObject({
      rejected: false,
      changed: false,
    });

    for (const name of ["Alice Smith", "alice_smith"]) {
      const history = ok<Events>(await call(ws, "get_entity_history", { entityName: name }));
      const lines = history.events.filter((event) => event.tool === "reject_duplicate_pair").map((event) => event.summary);
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/rejected duplicate pair '(Alice Smith|alice_smith)' ≈ '(Alice Smith|alice_smith)'/);
      expect(lines[1]).toMatch(/forgot rejected duplicate pair/);
      expect(history.events.at(-1)!.principal).toBe(history.events[0]!.principal);
    }
    const kinds = ok<Events>(await call(ws, "get_changes", { kinds: ["rejection.created", "rejection.deleted"], order: "oldest" }));
    expect(kinds.events.map((event) => event.changes.map((change) => change.kind))).toEqual([["rejection.created"], ["rejection.deleted"]]);
    expect(kinds.events[0]!.changes[0]!.pair!.map((side) => side.entityName).sort()).toEqual(["Alice Smith", "alice_smith"]);
    // The other entities' history holds none of it.
    const acme = ok<Events>(await call(ws, "get_entity_history", { entityName: "Acme Corp" }));
    expect(acme.events.map((event) => event.tool)).toEqual(["create_entities"]);
  });

  test("bad inputs are clear errors and write nothing", async () => {
    const ws = await seeded();
    const events = (await eventRowKeys(table, ws)).length;
    const same = failed(await call(ws, "reject_duplicate_pair", { a: "Acme Corp", b: "Acme Corp" }));
    expect(same.error).toBe("ValidationError");
    expect(same.message).toMatch(/two different entities/);
    const missing = failed(await call(ws, "reject_duplicate_pair", { a: "Acme Corp", b: "Acme Inc" }));
    expect(missing.error).toBe("NotFoundError");
    expect(missing.message).toMatch(/'Acme Inc' does not exist/);
    expect(missing.message).not.toMatch(/'Acme Corp'/);
    const both = failed(await call(ws, "reject_duplicate_pair", { a: "Nobody", b: "No one" }));
    expect(both.message).toMatch(/'Nobody' and 'No one' do not exist/);
    expect(failed(await call(ws, "reject_duplicate_pair", { a: "", b: "Acme Corp" })).error).toBe("ValidationError");
    expect(failed(await call(ws, "reject_duplicate_pair", { a: "Acme Corp", b: "x".repeat(1025) })).error).toBe("ValidationError");
    // Undo naming an entity that does not exist (and no rejection to forget) says so too.
    expect(failed(await call(ws, "reject_duplicate_pair", { a: "Acme Corp", b: "Acme Inc", undo: true })).error).toBe("NotFoundError");
    expect(await eventRowKeys(table, ws)).toHaveLength(events);
    expect(await rejectionRows(ws)).toEqual([]);
    // The guards changed nothing the graph shows.
    expect(pairsOf(ok<Detected>(await call(ws, "detect_duplicate_entities")))).toHaveLength(2);
  });

  test("storage requests: reject 1, again 1, undo 1, undo of nothing 3 (two point reads in parallel), detection 2 in parallel", async () => {
    const ws = await seeded();
    const pair = { a: "Acme Corp", b: "ACME corp" };
    expect((await counted(ws, "detect_duplicate_entities", {})).requests).toBe(2);
    const rejected = await counted(ws, "reject_duplicate_pair", pair);
    ok(rejected.result);
    expect(rejected.requests).toBe(1);
    expect((await counted(ws, "reject_duplicate_pair", pair)).requests).toBe(1);
    expect((await counted(ws, "detect_duplicate_entities", {})).requests).toBe(2);
    expect((await counted(ws, "reject_duplicate_pair", { ...pair, undo: true })).requests).toBe(1);
    expect((await counted(ws, "reject_duplicate_pair", { ...pair, undo: true })).requests).toBe(3);
    const gone = await counted(ws, "reject_duplicate_pair", { a: "Acme Corp", b: "Acme Inc" });
    expect(failed(gone.result).error).toBe("NotFoundError");
    expect(gone.requests).toBe(3);
  });

  test("asOf reads and restore_entity ignore rejections; a rejection of an entity merged away breaks neither detection nor merges", async () => {
    const ws = await seeded();
    const before = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 15));
    ok(await call(ws, "reject_duplicate_pair", { a: "Alice Smith", b: "alice_smith" }));
    ok(await call(ws, "reject_duplicate_pair", { a: "Acme Corp", b: "alice_smith" }));
    const now = ok<{ entities: unknown[] }>(await call(ws, "read_graph"));
    const asOf = ok<{ entities: unknown[] }>(await call(ws, "read_graph", { asOf: new Date().toISOString() }));
    expect(asOf.entities).toEqual(now.entities);
    // A roll back across a rejection: the entity's history holds it, and it changes nothing of the entity.
    ok(await call(ws, "add_observations", { observations: [{ entityName: "alice_smith", contents: ["later"] }] }));
    ok(await call(ws, "restore_entity", { entityName: "alice_smith", asOf: before, rollBack: true }));
    expect(
      ok<{ entities: { observations: string[] }[] }>(await call(ws, "open_nodes", { names: ["alice_smith"] })).entities[0]!.observations,
    ).toEqual(["works at Acme"]);
    // Merged away: its rejection row stays (docs/curate.md#rejecting-a-pair), matches no pair, and blocks nothing.
    ok(await call(ws, "merge_entities", { target: "Alice Smith", sources: ["alice_smith"], confirm: true }));
    expect(await rejectionRows(ws)).toHaveLength(2);
    const detected = ok<Detected>(await call(ws, "detect_duplicate_entities"));
    expect(pairsOf(detected)).toEqual(["ACME corp | Acme Corp"]);
    expect(detected.rejected).toBe(0);
    ok(await call(ws, "merge_entities", { target: "Acme Corp", sources: ["ACME corp"], confirm: true }));
    // Re-created under the same name, it is the name the person judged: the pair stays rejected until undone.
    ok(await call(ws, "upsert_entity", { name: "alice_smith", entityType: "person" }));
    expect(ok<Detected>(await call(ws, "detect_duplicate_entities")).rejected).toBe(1);
    ok(await call(ws, "reject_duplicate_pair", { a: "Alice Smith", b: "alice_smith", undo: true }));
    expect(pairsOf(ok<Detected>(await call(ws, "detect_duplicate_entities")))).toEqual(["Alice Smith | alice_smith"]);
    // Forgetting the rejection of an entity that is gone works (a clean-up), as the row is there to delete.
    ok(await call(ws, "delete_entities", { entityNames: ["alice_smith"] }));
    expect(ok<Rejected>(await call(ws, "reject_duplicate_pair", { a: "Acme Corp", b: "alice_smith", undo: true })).changed).toBe(true);
    expect(await rejectionRows(ws)).toEqual([]);
  });

  test("delete_workspace removes the rejections with the partition; a re-created workspace proposes the pair again", async () => {
    const ws = await seeded();
    ok(await call(ws, "reject_duplicate_pair", { a: "Acme Corp", b: "ACME corp" }));
    expect(ok<Detected>(await call(ws, "detect_duplicate_entities")).rejected).toBe(1);
    ok(await mcp.call("delete_workspace", { workspaceName: ws, confirm: ws }));
    expect(await rejectionRows(ws)).toEqual([]);
    const entities = ["Acme Corp", "ACME corp"].map((name) => ({ name, entityType: "organization", observations: [] }));
    ok(await call(ws, "create_entities", { entities }));
    const detected = ok<Detected>(await call(ws, "detect_duplicate_entities"));
    expect(pairsOf(detected)).toEqual(["ACME corp | Acme Corp"]);
    expect(detected.rejected).toBe(0);
  });
});
