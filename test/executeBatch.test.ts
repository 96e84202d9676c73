import { describe, expect, test } from "@jest/globals";

import { entityId } from "../src/domain/model/ids.js";
import { failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import type { BatchAnswer } from "./support/outputs.js";
import { injectRaces, type RaceInjector } from "./support/raceInjector.js";
import { partitionRows, rawTable } from "./support/rawRows.js";

/** execute_batch (docs/curate.md#execute_batch) through MCP, checked on the raw rows and the request counts. */
let server: TestServer;
let mcp: McpTestClient;
withServerAndClient((started, client) => {
  server = started;
  mcp = client;
});

const rawRows = (ws: string) => partitionRows(server.app.storage.table, ws);
const graphRows = async (ws: string) => (await rawRows(ws)).filter((row) => row.kind !== "event" && row.kind !== "batch-marker");
const batchEvents = async (ws: string) => (await rawRows(ws)).filter((row) => row.kind === "event" && row.tool === "execute_batch");

let races: RaceInjector | undefined;

const entity = (name: string, observations: string[] = []) => ({ op: "upsert_entity", args: { name, entityType: "person", observations } });
const relation = (from: string, to: string, relationType = "knows") => ({ op: "upsert_relation", args: { from, to, relationType } });

async function requestsOf<T>(work: () => Promise<T>): Promise<{ value: T; requests: number }> {
  const before = server.requests();
  const value = await work();
  return { value, requests: server.requests() - before };
}

describe("atomic batches", () => {
  test("apply whole, in one transaction after one parallel read per entity named", async () => {
    const ws = uniqueWorkspace();
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Old", entityType: "t", observations: ["gone soon"] }));
    const operations = [
      entity("Alice", ["likes tea"]),
      entity("Bob"),
      relation("Alice", "Bob"),
      { op: "add_observations", args: { observations: [{ entityName: "Bob", contents: ["plays chess", "likes tea"] }] } },
      relation("Bob", "Old"),
      { op: "delete_observations", args: { deletions: [{ entityName: "Old", observations: ["gone soon"] }] } },
      { op: "delete_relations", args: { relations: [{ from: "Bob", to: "Old", relationType: "knows" }] } },
      entity("Carol"),
      relation("Carol", "Alice", "reports_to"),
      { op: "delete_entities", args: { entityNames: ["Old"] } },
    ];
    const { value, requests } = await requestsOf(() => mcp.call("execute_batch", { workspaceName: ws, atomic: true, operations }));
    const answer = ok<BatchAnswer>(value);
    // 4 entities named (Alice, Bob, Old, Carol): 4 range reads in parallel, then one transaction.
    expect(requests).toBe(5);
    expect(answer.results.map((r) => r.success)).toEqual(Array(10).fill(true));
    expect(answer.results[0]).toMatchObject({ op: "upsert_entity", created: true, addedObservations: ["likes tea"] });
    expect(answer.results[3]).toMatchObject({ results: [{ entityName: "Bob", addedObservations: ["plays chess", "likes tea"] }] });
    const rows = await graphRows(ws);
    expect(
      rows
        .filter((row) => row.kind === "entity")
        .map((row) => row.name)
        .sort(),
    ).toEqual(["Alice", "Bob", "Carol"]);
    expect(
      rows
        .filter((row) => row.kind === "relation")
        .map((row) => `${row.fromName}>${row.toName}`)
        .sort(),
    ).toEqual(["Alice>Bob", "Carol>Alice"]);
    expect(rows.filter((row) => row.kind === "edge-in" || row.kind === "edge-out")).toHaveLength(4);
    expect(rows.filter((row) => row.kind === "observation")).toHaveLength(3);
    expect(await batchEvents(ws)).toHaveLength(1);
  });

  test("one failing operation (a relation to a missing entity) leaves the raw table unchanged", async () => {
    const ws = uniqueWorkspace();
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Alice", entityType: "t", observations: ["a"] }));
    const before = await rawRows(ws);
    const error = failed(
      await mcp.call("execute_batch", {
        workspaceName: ws,
        atomic: true,
        operations: [
          entity("Bob", ["b"]),
          relation("Alice", "Bob"),
          relation("Alice", "Nobody"),
          { op: "delete_entities", args: { entityNames: ["Alice"] } },
        ],
      }),
    );
    expect(error.error).toBe("NotFoundError");
    expect(error.message).toMatch(/Operation 2 \(upsert_relation\).*'Nobody'.*Nothing in this atomic batch was written/);
    expect(await rawRows(ws)).toEqual(before);
  });

  test("a version conflict inside an atomic batch writes nothing and carries the current version", async () => {
    const ws = uniqueWorkspace();
    const { version } = ok<{ version: string }>(await mcp.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "t" }));
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "u" }));
    const before = await rawRows(ws);
    const result = await mcp.call("execute_batch", {
      workspaceName: ws,
      atomic: true,
      operations: [entity("B"), { op: "upsert_entity", args: { name: "A", entityType: "v", expectedVersion: version } }],
    });
    const error = failed(result) as ReturnType<typeof failed> & { currentVersion?: string };
    expect(error.error).toBe("ConflictError");
    expect(error.currentVersion).toMatch(/^[0-9a-f]{16}$/);
    expect(error.currentVersion).not.toBe(version);
    expect(await rawRows(ws)).toEqual(before);
  });

  test("a write landing on an entity between the batch's reads and its transaction makes it re-plan (If-Match): here, a conflict", async () => {
    const ws = uniqueWorkspace();
    const { version } = ok<{ version: string }>(await mcp.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "t" }));
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "B", entityType: "t" }));
    races ??= injectRaces(server.app.storage.table);
    const other = rawTable();
    races.beforeNextTransaction(() =>
      other.updateEntity({ partitionKey: ws, rowKey: entityId(ws, "A"), version: "2222222222222222" }, "Merge"),
    );
    const before = await rawRows(ws);
    const error = failed(
      await mcp.call("execute_batch", {
        workspaceName: ws,
        atomic: true,
        operations: [{ op: "upsert_entity", args: { name: "A", entityType: "u", expectedVersion: version } }, relation("A", "B")],
      }),
    ) as ReturnType<typeof failed> & { currentVersion?: string };
    expect([error.error, error.currentVersion]).toEqual(["ConflictError", "2222222222222222"]);
    expect((await rawRows(ws)).filter((row) => row.kind !== "entity")).toEqual(before.filter((row) => row.kind !== "entity"));
  });

  test("an oversized batch is refused: before any request when it certainly cannot fit, else before any write", async () => {
    const ws = uniqueWorkspace();
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Hub", entityType: "t" }));
    // 34 relations write at least 3 rows each: 102 rows plus the event row, over the 100 of one transaction.
    const certain = Array.from({ length: 34 }, (_, i) => relation("Hub", "Hub", `r${i}`));
    const refused = await requestsOf(() => mcp.call("execute_batch", { workspaceName: ws, atomic: true, operations: certain }));
    expect(refused.requests).toBe(0);
    expect(failed(refused.value).message).toMatch(/needs 103 rows .* the limit is 100/);
    // 40 entities with one observation each: 80 rows + the event fit; 60 need 121 rows, known only once read.
    const before = await rawRows(ws);
    const big = Array.from({ length: 60 }, (_, i) => entity(`E${i}`, [`fact ${i}`]));
    const error = failed(await mcp.call("execute_batch", { workspaceName: ws, atomic: true, operations: big }));
    expect(error.error).toBe("ValidationError");
    expect(error.message).toMatch(/needs 121 rows .* the limit is 100/);
    expect(await rawRows(ws)).toEqual(before);
    ok(await mcp.call("execute_batch", { workspaceName: ws, atomic: true, operations: big.slice(0, 40) }));
  });
});

describe("idempotency", () => {
  test("the same requestId twice applies once; the retry returns the first answer", async () => {
    const ws = uniqueWorkspace();
    const args = { workspaceName: ws, atomic: true, requestId: "req-1", operations: [entity("A", ["x"]), entity("B"), relation("A", "B")] };
    const first = ok<BatchAnswer>(await mcp.call("execute_batch", args));
    const rows = await rawRows(ws);
    const retry = await requestsOf(() => mcp.call("execute_batch", args));
    const second = ok<BatchAnswer>(retry.value);
    expect(second.replayed).toBe(true);
    expect(second.results).toEqual(first.results);
    expect(retry.requests).toBe(3); // the marker and the two entity ranges, read in parallel; no write
    expect(await rawRows(ws)).toEqual(rows);
    expect(await batchEvents(ws)).toHaveLength(1);
  });

  test("an atomic batch that changes nothing stores only its marker: no event row (a transaction records no empty event)", async () => {
    const ws = uniqueWorkspace();
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "t", observations: ["x"] }));
    // Adding an observation the entity already has writes nothing.
    const noOp = { op: "add_observations", args: { observations: [{ entityName: "A", contents: ["x"] }] } };
    const args = { workspaceName: ws, atomic: true, requestId: "no-op", operations: [noOp] };
    const { requests } = await requestsOf(() => mcp.call("execute_batch", args));
    expect(requests).toBe(3); // the marker and the entity's range, in parallel; then the marker's transaction
    expect(await batchEvents(ws)).toHaveLength(0);
    expect((await rawRows(ws)).filter((row) => row.kind === "batch-marker")).toHaveLength(1);
    expect(ok<BatchAnswer>(await mcp.call("execute_batch", args)).replayed).toBe(true);
  });

  test("10 concurrent callers with one requestId: exactly one applies, all get its answer", async () => {
    const ws = uniqueWorkspace();
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Counter", entityType: "t" }));
    const args = {
      workspaceName: ws,
      atomic: true,
      requestId: "same-for-all",
      operations: [entity("Counter", ["tick"]), { op: "upsert_entity", args: { name: "Log", entityType: "t", metadata: { n: 1 } } }],
    };
    const answers = (await Promise.all(Array.from({ length: 10 }, () => mcp.call("execute_batch", args)))).map((r) => ok<BatchAnswer>(r));
    expect(answers.filter((answer) => !answer.replayed)).toHaveLength(1);
    for (const answer of answers) expect(answer.results).toEqual(answers[0]!.results);
    expect(await batchEvents(ws)).toHaveLength(1);
    expect((await graphRows(ws)).filter((row) => row.kind === "observation")).toHaveLength(1);
    expect((await rawRows(ws)).filter((row) => row.kind === "batch-marker")).toHaveLength(1);
  });

  test("non-atomic: 10 concurrent callers with one requestId apply once (a claimed marker); the others wait or replay", async () => {
    const ws = uniqueWorkspace();
    const args = { workspaceName: ws, requestId: "non-atomic", operations: [entity("A", ["x"]), entity("B", ["y"])] };
    const results = await Promise.all(Array.from({ length: 10 }, () => mcp.call("execute_batch", args)));
    const applied = results.filter((r) => !r.isError && !ok<BatchAnswer>(r).replayed);
    expect(applied).toHaveLength(1);
    for (const result of results.filter((r) => r.isError)) expect(failed(result).message).toMatch(/still running/);
    const events = (await rawRows(ws)).filter((row) => row.kind === "event");
    expect(events).toHaveLength(2); // one per upsert_entity, once
    const again = ok<BatchAnswer>(await mcp.call("execute_batch", args));
    expect(again.replayed).toBe(true);
    expect(again.results).toEqual(ok<BatchAnswer>(applied[0]!).results);
  });
});

describe("non-atomic batches", () => {
  test("each operation reports its own result, in order, and a failure does not stop the rest", async () => {
    const ws = uniqueWorkspace();
    const answer = ok<BatchAnswer>(
      await mcp.call("execute_batch", {
        workspaceName: ws,
        operations: [
          entity("A"),
          relation("A", "Missing"),
          entity("B"),
          relation("A", "B"),
          { op: "delete_entities", args: { entityNames: ["A"] } },
        ],
      }),
    );
    expect(answer.atomic).toBe(false);
    expect(answer.results.map((r) => [r.index, r.op, r.success])).toEqual([
      [0, "upsert_entity", true],
      [1, "upsert_relation", false],
      [2, "upsert_entity", true],
      [3, "upsert_relation", true],
      [4, "delete_entities", true],
    ]);
    expect(answer.results[1]).toMatchObject({ error: "NotFoundError", message: expect.stringMatching(/Missing/) });
    expect((await graphRows(ws)).map((row) => row.name)).toEqual(["B"]);
  });
});

describe("bad input", () => {
  test("an unknown op, or bad arguments, is a validation error and writes nothing", async () => {
    const ws = uniqueWorkspace();
    for (const operations of [
      [entity("A"), { op: "rename_entity", args: { name: "A" } }],
      [entity("A"), { op: "upsert_entity", args: { name: "B" } }],
      [],
    ]) {
      for (const atomic of [true, false]) {
        const error = failed(await mcp.call("execute_batch", { workspaceName: ws, atomic, operations }));
        expect(error.error).toBe("ValidationError");
      }
    }
    const malformed = failed(
      await mcp.call("execute_batch", {
        workspaceName: ws,
        atomic: true,
        operations: [{ op: "upsert_entity", args: { name: "A", entityType: "t", expectedVersion: "nope" } }],
      }),
    );
    expect(malformed.message).toMatch(/expectedVersion/);
    expect(await rawRows(ws)).toEqual([]);
  });
});
