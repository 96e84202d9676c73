import type { TableClient } from "@azure/data-tables";
import { describe, expect, test } from "@jest/globals";

import { entityId, observationId, relationId } from "../src/domain/model/ids.js";
import { failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import { partitionRows, type RawRow, rawTable } from "./support/rawRows.js";

/**
 * Valid time on writes, end to end through MCP (docs/history.md#two-times): the validity arguments of the writes, reopening,
 * supersede_observation, end_relation, single-valued fact keys; each checked on the raw rows and in get_entity_history, and
 * bad input refused with the rows unchanged. Request counts of the new writes are asserted as test/budget.test.ts does.
 */
let server: TestServer;
let mcp: McpTestClient;
const table: TableClient = rawTable();
withServerAndClient((started, client) => {
  server = started;
  mcp = client;
});

const HOUR = 3_600_000;
const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

/** The observation row of `content` on entity `name`, straight from storage. */
async function observationRow(ws: string, name: string, content: string): Promise<RawRow | undefined> {
  const id = entityId(ws, name);
  const rows = await partitionRows(table, ws, { only: ["observation"] });
  return rows.find((row) => row.rowKey === `${id}~o~${observationId(id, content)}`);
}

/** Every graph row of the workspace (no events, no registry row), keyed and with its ETag: to prove nothing changed. */
async function graphRows(ws: string): Promise<Record<string, unknown>[]> {
  const rows = await partitionRows(table, ws, ["event", "workspace"]);
  return rows.map((row) => ({ ...row })).sort((a, b) => String(a.rowKey).localeCompare(String(b.rowKey)));
}

interface HistoryChange {
  kind: string;
  content?: string;
  validity?: Record<string, unknown>;
  validityBefore?: Record<string, unknown>;
}
async function history(ws: string, name: string): Promise<{ summary: string; tool: string; changes: HistoryChange[] }[]> {
  return ok<{ events: { summary: string; tool: string; changes: HistoryChange[] }[] }>(
    await mcp.call("get_entity_history", { workspaceName: ws, entityName: name, limit: 1000 }),
  ).events;
}

async function requestsOf(name: string, args: Record<string, unknown>): Promise<number> {
  const before = server.requests();
  ok(await mcp.call(name, args));
  return server.requests() - before;
}

describe("validity arguments on writes", () => {
  test("create_entities: validFrom/validTo on every observation, expiresAt on the entities; recorded in the feed", async () => {
    const ws = uniqueWorkspace("tw");
    const validFrom = "2026-01-01T00:00:00.000Z";
    const validTo = at(30 * 24 * HOUR);
    const expiresAt = at(48 * HOUR);
    ok(
      await mcp.call("create_entities", {
        workspaceName: ws,
        entities: [{ name: "Sprint", entityType: "sprint", observations: ["goal: ship", "team of 4"] }],
        validFrom,
        validTo,
        expiresAt,
      }),
    );
    const entity = (await partitionRows(table, ws, { only: ["entity"] }))[0]!;
    expect(entity.expiresAt).toBe(expiresAt);
    for (const content of ["goal: ship", "team of 4"]) {
      const row = await observationRow(ws, "Sprint", content);
      expect(row).toMatchObject({ validFrom, validTo: new Date(validTo).toISOString() });
      expect(row!.expiresAt).toBeUndefined();
    }
    const events = await history(ws, "Sprint");
    const changes = events.flatMap((event) => event.changes);
    expect(changes.find((change) => change.kind === "entity.created")!.validity).toEqual({ expiresAt });
    expect(changes.filter((change) => change.kind === "observation.created").map((change) => change.validity)).toEqual([
      { validFrom, validTo },
      { validFrom, validTo },
    ]);
    expect(events[0]!.summary).toContain(`expires ${expiresAt}`);
  });

  test("add_observations and upsert_entity: validFrom, validTo, ttlSeconds on what they add; a current observation stays as is", async () => {
    const ws = uniqueWorkspace("tw");
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Alice", entityType: "person", observations: ["likes tea"] }));
    const before = Date.now();
    ok(
      await mcp.call("add_observations", {
        workspaceName: ws,
        observations: [{ entityName: "Alice", contents: ["on call this week", "likes tea"] }],
        ttlSeconds: 3600,
      }),
    );
    const onCall = await observationRow(ws, "Alice", "on call this week");
    const expires = Date.parse(String(onCall!.expiresAt));
    expect(expires).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 3600_000 + 1000);
    // Already current: untouched (no expiry added).
    expect((await observationRow(ws, "Alice", "likes tea"))!.expiresAt).toBeUndefined();

    ok(
      await mcp.call("upsert_entity", {
        workspaceName: ws,
        name: "Alice",
        entityType: "person",
        observations: ["joined in 2020"],
        validFrom: "2020-03-01T00:00:00Z",
      }),
    );
    expect((await observationRow(ws, "Alice", "joined in 2020"))!.validFrom).toBe("2020-03-01T00:00:00.000Z");
  });

  test("upsert_relation and create_relations: validFrom, validTo, expiresAt on all three rows; a validFrom alone reopens", async () => {
    const ws = uniqueWorkspace("tw");
    ok(
      await mcp.call("create_entities", {
        workspaceName: ws,
        entities: ["A", "B", "C"].map((name) => ({ name, entityType: "t", observations: [] })),
      }),
    );
    const validFrom = "2025-06-01T00:00:00.000Z";
    const expiresAt = at(24 * HOUR);
    ok(await mcp.call("upsert_relation", { workspaceName: ws, from: "A", to: "B", relationType: "works_at", validFrom, expiresAt }));
    ok(await mcp.call("create_relations", { workspaceName: ws, relations: [{ from: "A", to: "C", relationType: "knows" }], validFrom }));
    const relationRows = (id: string) =>
      partitionRows(table, ws, { only: ["relation", "edge-in", "edge-out"] }).then((rows) => rows.filter((row) => row.relationId === id));
    const worksAt = relationId(ws, entityId(ws, "A"), "works_at", entityId(ws, "B"));
    const rows = await relationRows(worksAt);
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row).toMatchObject({ validFrom, expiresAt });
    for (const row of await relationRows(relationId(ws, entityId(ws, "A"), "knows", entityId(ws, "C")))) {
      expect(row.validFrom).toBe(validFrom);
    }
    // Ended, then upserted with a new validFrom: a new period, validTo cleared.
    ok(await mcp.call("end_relation", { workspaceName: ws, from: "A", to: "B", relationType: "works_at" }));
    for (const row of await relationRows(worksAt)) expect(row.validTo).toEqual(expect.any(String));
    const rejoined = at(-1000);
    ok(await mcp.call("upsert_relation", { workspaceName: ws, from: "A", to: "B", relationType: "works_at", validFrom: rejoined }));
    for (const row of await relationRows(worksAt)) expect(row).toMatchObject({ validFrom: rejoined, validTo: "" });
  });

  test("re-adding a superseded observation reopens it, reported as added", async () => {
    const ws = uniqueWorkspace("tw");
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Svc", entityType: "service", observations: ["runs on VMs"] }));
    ok(
      await mcp.call("supersede_observation", {
        workspaceName: ws,
        entityName: "Svc",
        observation: "runs on VMs",
        replacement: "runs on k8s",
      }),
    );
    const added = ok<{ results: { addedObservations: string[] }[] }>(
      await mcp.call("add_observations", { workspaceName: ws, observations: [{ entityName: "Svc", contents: ["runs on VMs"] }] }),
    );
    expect(added.results[0]!.addedObservations).toEqual(["runs on VMs"]);
    const row = await observationRow(ws, "Svc", "runs on VMs");
    expect(row).toMatchObject({ validTo: "", supersededBy: "" });
    expect(Date.parse(String(row!.validFrom))).toBeGreaterThan(Date.now() - 60_000);
    const events = await history(ws, "Svc");
    const last = events.at(-1)!;
    expect(last.changes).toEqual([expect.objectContaining({ kind: "observation.updated", content: "runs on VMs" })]);
    expect(last.changes[0]!.validityBefore).toMatchObject({ supersededBy: "runs on k8s" });
    expect(last.summary).toContain("reopened observation 'runs on VMs'");
  });
});

describe("supersede_observation", () => {
  test("one range read and one transaction: old row closed with supersededBy, replacement current, both in the history", async () => {
    const ws = uniqueWorkspace("tw");
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Payments", entityType: "team", observations: ["led by Alice"] }));
    const validFrom = at(-2 * HOUR);
    const before = server.requests();
    const result = ok<{ superseded: { observation: string; validTo: string }; current: { observation: string; validFrom: string } }>(
      await mcp.call("supersede_observation", {
        workspaceName: ws,
        entityName: "Payments",
        observation: "led by Alice",
        replacement: "led by Bob",
        validFrom,
      }),
    );
    expect(server.requests() - before).toBe(2);
    expect(result.superseded).toEqual({ observation: "led by Alice", validTo: validFrom });
    expect(result.current).toEqual({ observation: "led by Bob", validFrom });
    expect(await observationRow(ws, "Payments", "led by Alice")).toMatchObject({ validTo: validFrom, supersededBy: "led by Bob" });
    const bob = await observationRow(ws, "Payments", "led by Bob");
    expect(bob).toMatchObject({ validFrom });
    expect(bob!.supersededBy).toBeUndefined();
    const events = await history(ws, "Payments");
    const last = events.at(-1)!;
    expect(last.tool).toBe("supersede_observation");
    expect(last.changes).toEqual([
      expect.objectContaining({
        kind: "observation.updated",
        content: "led by Alice",
        validity: { validTo: validFrom, supersededBy: "led by Bob" },
      }),
      expect.objectContaining({ kind: "observation.created", content: "led by Bob", validity: { validFrom } }),
    ]);
    expect(last.summary).toContain("superseded observation 'led by Alice' of 'Payments' by 'led by Bob'");
  });

  test("superseding back to an earlier value reopens its row (one transaction, no new row)", async () => {
    const ws = uniqueWorkspace("tw");
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Db", entityType: "service", observations: ["engine: mysql"] }));
    ok(
      await mcp.call("supersede_observation", {
        workspaceName: ws,
        entityName: "Db",
        observation: "engine: mysql",
        replacement: "engine: pg",
      }),
    );
    ok(
      await mcp.call("supersede_observation", {
        workspaceName: ws,
        entityName: "Db",
        observation: "engine: pg",
        replacement: "engine: mysql",
      }),
    );
    expect(await observationRow(ws, "Db", "engine: pg")).toMatchObject({ supersededBy: "engine: mysql" });
    expect(await observationRow(ws, "Db", "engine: mysql")).toMatchObject({ supersededBy: "", validTo: "", validFrom: expect.any(String) });
    expect((await partitionRows(table, ws, { only: ["observation"] })).length).toBe(2);
    const last = (await history(ws, "Db")).at(-1)!;
    expect(last.changes.map((change) => [change.kind, change.content])).toEqual([
      ["observation.updated", "engine: pg"],
      ["observation.updated", "engine: mysql"],
    ]);
  });

  test("refused, rows unchanged: missing entity or observation (NotFound), already superseded, replacement current (Conflict), validFrom before the old one's", async () => {
    const ws = uniqueWorkspace("tw");
    ok(
      await mcp.call("upsert_entity", {
        workspaceName: ws,
        name: "E",
        entityType: "t",
        observations: ["v1", "other"],
        validFrom: "2026-06-01T00:00:00Z",
      }),
    );
    ok(await mcp.call("supersede_observation", { workspaceName: ws, entityName: "E", observation: "v1", replacement: "v2" }));
    const rows = await graphRows(ws);
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ entityName: "Nobody", observation: "v1", replacement: "x" }, "NotFoundError", /Entity 'Nobody' not found/],
      [{ entityName: "E", observation: "never said", replacement: "x" }, "NotFoundError", /has no observation 'never said'/],
      [{ entityName: "E", observation: "v1", replacement: "v3" }, "ConflictError", /already superseded by 'v2'; supersede that one/],
      [{ entityName: "E", observation: "other", replacement: "v2" }, "ConflictError", /already current/],
      [
        { entityName: "E", observation: "other", replacement: "x", validFrom: "2026-01-01T00:00:00Z" },
        "ValidationError",
        /before the validFrom/,
      ],
      [{ entityName: "E", observation: "other", replacement: "other" }, "ValidationError", /same text/],
      [{ entityName: "E", observation: "other", replacement: "x", validFrom: "yesterday" }, "ValidationError", /not an ISO 8601 time/],
    ];
    for (const [args, kind, message] of cases) {
      const error = failed(await mcp.call("supersede_observation", { workspaceName: ws, ...args }));
      expect(error.error).toBe(kind);
      expect(error.message).toMatch(message);
    }
    expect(await graphRows(ws)).toEqual(rows);
  });
});

describe("end_relation", () => {
  test("one point read and one transaction: validTo on all three rows; relation.updated in the history; then Conflict", async () => {
    const ws = uniqueWorkspace("tw");
    ok(
      await mcp.call("create_entities", {
        workspaceName: ws,
        entities: ["Ann", "Acme"].map((name) => ({ name, entityType: "t", observations: [] })),
      }),
    );
    ok(
      await mcp.call("create_relations", {
        workspaceName: ws,
        relations: [{ from: "Ann", to: "Acme", relationType: "works_at" }],
        validFrom: "2024-01-01T00:00:00Z",
      }),
    );
    // Backdated: before the relation was written, after its validFrom.
    const validTo = at(-24 * HOUR);
    expect(await requestsOf("end_relation", { workspaceName: ws, from: "Ann", to: "Acme", relationType: "works_at", validTo })).toBe(2);
    const rows = await partitionRows(table, ws, { only: ["relation", "edge-in", "edge-out"] });
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row.validTo).toBe(validTo);
    const last = (await history(ws, "Ann")).at(-1)!;
    expect(last.changes).toEqual([expect.objectContaining({ kind: "relation.updated", validity: { validTo } })]);
    expect(last.summary).toContain(`ended relation 'Ann' works_at 'Acme' (valid to ${validTo})`);

    const unchanged = await graphRows(ws);
    const again = failed(await mcp.call("end_relation", { workspaceName: ws, from: "Ann", to: "Acme", relationType: "works_at" }));
    expect(again.error).toBe("ConflictError");
    const missing = failed(await mcp.call("end_relation", { workspaceName: ws, from: "Ann", to: "Acme", relationType: "owns" }));
    expect(missing.error).toBe("NotFoundError");
    expect(await graphRows(ws)).toEqual(unchanged);
  });

  test("validTo before the relation's creation is refused", async () => {
    const ws = uniqueWorkspace("tw");
    ok(
      await mcp.call("create_entities", {
        workspaceName: ws,
        entities: ["P", "Q"].map((name) => ({ name, entityType: "t", observations: [] })),
      }),
    );
    ok(await mcp.call("upsert_relation", { workspaceName: ws, from: "P", to: "Q", relationType: "r" }));
    const rows = await graphRows(ws);
    const error = failed(
      await mcp.call("end_relation", { workspaceName: ws, from: "P", to: "Q", relationType: "r", validTo: "2000-01-01T00:00:00Z" }),
    );
    expect(error.error).toBe("ValidationError");
    expect(await graphRows(ws)).toEqual(rows);
  });
});

describe("single-valued fact keys", () => {
  test("declare_fact_keys returns every declared key; add_observations and upsert_entity supersede the current value in the same transaction", async () => {
    const ws = uniqueWorkspace("tw");
    expect(
      ok<{ keys: unknown[] }>(await mcp.call("declare_fact_keys", { workspaceName: ws, keys: [{ key: "Owner", singleValued: true }] }))
        .keys,
    ).toEqual([{ key: "owner", singleValued: true }]);
    expect(
      ok<{ keys: unknown[] }>(await mcp.call("declare_fact_keys", { workspaceName: ws, keys: [{ key: "tag", singleValued: false }] })).keys,
    ).toEqual([
      { key: "owner", singleValued: true },
      { key: "tag", singleValued: false },
    ]);
    ok(
      await mcp.call("upsert_entity", {
        workspaceName: ws,
        name: "Billing",
        entityType: "service",
        observations: ["owner: Alice", "tag: a"],
      }),
    );
    // Costs: the fact-keys row is read beside the range read (one more request, no more round trips); none without `key: value`.
    const withFact = await requestsOf("add_observations", {
      workspaceName: ws,
      observations: [{ entityName: "Billing", contents: ["owner: Bob"] }],
    });
    const without = await requestsOf("add_observations", {
      workspaceName: ws,
      observations: [{ entityName: "Billing", contents: ["plain fact"] }],
    });
    expect(without).toBe(2);
    expect(withFact).toBe(without + 1);
    expect(await observationRow(ws, "Billing", "owner: Alice")).toMatchObject({ supersededBy: "owner: Bob", validTo: expect.any(String) });
    expect((await observationRow(ws, "Billing", "owner: Bob"))!.supersededBy).toBeUndefined();
    const events = await history(ws, "Billing");
    const bobEvent = events.at(-2)!;
    expect(bobEvent.changes.map((change) => [change.kind, change.content])).toEqual([
      ["observation.created", "owner: Bob"],
      ["observation.updated", "owner: Alice"],
    ]);
    expect(bobEvent.summary).toContain("superseded observation 'owner: Alice' of 'Billing' by 'owner: Bob'");

    // The same value again: a no-op. A non-single-valued key piles up as before. Back to Alice: reopened, Bob superseded.
    const noop = ok<{ results: { addedObservations: string[] }[] }>(
      await mcp.call("add_observations", {
        workspaceName: ws,
        observations: [{ entityName: "Billing", contents: ["owner: Bob", "tag: b"] }],
      }),
    );
    expect(noop.results[0]!.addedObservations).toEqual(["tag: b"]);
    expect((await observationRow(ws, "Billing", "tag: a"))!.supersededBy).toBeUndefined();
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Billing", entityType: "service", observations: ["OWNER: Alice"] }));
    expect(await observationRow(ws, "Billing", "owner: Bob")).toMatchObject({ supersededBy: "OWNER: Alice" });
    expect((await observationRow(ws, "Billing", "OWNER: Alice"))!.supersededBy).toBeUndefined();
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Billing", entityType: "service", observations: ["owner: Alice"] }));
    expect(await observationRow(ws, "Billing", "OWNER: Alice")).toMatchObject({ supersededBy: "owner: Alice" });
    expect(await observationRow(ws, "Billing", "owner: Alice")).toMatchObject({ supersededBy: "", validTo: "" });
    const current = (await partitionRows(table, ws, { only: ["observation"] })).filter(
      (row) => /^owner:/i.test(String(row.content)) && !row.supersededBy,
    );
    expect(current.map((row) => row.content)).toEqual(["owner: Alice"]);
  });

  test("bad input on a single-valued key changes nothing: malformed `owner:`, two values in one call, also on create_entities", async () => {
    const ws = uniqueWorkspace("tw");
    ok(await mcp.call("declare_fact_keys", { workspaceName: ws, keys: [{ key: "owner", singleValued: true }] }));
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Svc", entityType: "service", observations: ["owner: Ann"] }));
    const rows = await graphRows(ws);
    const malformed = failed(
      await mcp.call("add_observations", { workspaceName: ws, observations: [{ entityName: "Svc", contents: ["owner:  "] }] }),
    );
    expect(malformed.error).toBe("ValidationError");
    expect(malformed.message).toMatch(/single-valued key 'owner' without a value/);
    const two = failed(
      await mcp.call("upsert_entity", { workspaceName: ws, name: "Svc", entityType: "service", observations: ["owner: Bo", "owner: Cy"] }),
    );
    expect(two.error).toBe("ValidationError");
    const created = failed(
      await mcp.call("create_entities", {
        workspaceName: ws,
        entities: [{ name: "New", entityType: "t", observations: ["owner: Bo", "owner: Cy"] }],
      }),
    );
    expect(created.error).toBe("ValidationError");
    const createdMalformed = failed(
      await mcp.call("create_entities", { workspaceName: ws, entities: [{ name: "New", entityType: "t", observations: ["owner:"] }] }),
    );
    expect(createdMalformed.error).toBe("ValidationError");
    expect(await graphRows(ws)).toEqual(rows);
  });
});

describe("bad validity input changes nothing", () => {
  test("validTo before validFrom, an expiry in the past, both expiresAt and ttlSeconds", async () => {
    const ws = uniqueWorkspace("tw");
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "X", entityType: "t", observations: ["a"] }));
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Y", entityType: "t" }));
    const rows = await graphRows(ws);
    const calls: [string, Record<string, unknown>, RegExp][] = [
      [
        "add_observations",
        { observations: [{ entityName: "X", contents: ["b"] }], validFrom: "2026-02-01T00:00:00Z", validTo: "2026-01-01T00:00:00Z" },
        /validTo .* must be after validFrom/,
      ],
      [
        "add_observations",
        { observations: [{ entityName: "X", contents: ["b"] }], expiresAt: "2020-01-01T00:00:00Z" },
        /is not in the future/,
      ],
      ["upsert_entity", { name: "X", entityType: "t", observations: ["b"], expiresAt: at(HOUR), ttlSeconds: 60 }, /not both/],
      [
        "create_entities",
        { entities: [{ name: "Z", entityType: "t", observations: [] }], expiresAt: "2020-01-01T00:00:00Z" },
        /is not in the future/,
      ],
      [
        "upsert_relation",
        { from: "X", to: "Y", relationType: "r", validFrom: "2026-02-01T00:00:00Z", validTo: "2026-01-01T00:00:00Z" },
        /must be after/,
      ],
      ["create_relations", { relations: [{ from: "X", to: "Y", relationType: "r" }], ttlSeconds: 0 }, /ttlSeconds must be/],
    ];
    for (const [tool, args, message] of calls) {
      const error = failed(await mcp.call(tool, { workspaceName: ws, ...args }));
      expect(error.error).toBe("ValidationError");
      expect(error.message).toMatch(message);
    }
    expect(await graphRows(ws)).toEqual(rows);
  });
});

describe("storage requests of the writes with valid time", () => {
  test("validity arguments add none; a `key: value` observation adds the fact-keys point read, in parallel where the write reads", async () => {
    const ws = uniqueWorkspace("tw");
    ok(await mcp.call("declare_fact_keys", { workspaceName: ws, keys: [{ key: "status", singleValued: true }] }));
    const times = { validFrom: "2026-01-01T00:00:00Z", ttlSeconds: 3600 };
    // create_entities: one transaction. A new entity has nothing to supersede, so the keys are read (a request before it)
    // only when a declared key could refuse the call: two values on one key, or a key without a value.
    expect(
      await requestsOf("create_entities", { workspaceName: ws, entities: [{ name: "A", entityType: "t", observations: ["x"] }], ...times }),
    ).toBe(1);
    expect(
      await requestsOf("create_entities", { workspaceName: ws, entities: [{ name: "B", entityType: "t", observations: ["status: new"] }] }),
    ).toBe(1);
    const twoValues = { workspaceName: ws, entities: [{ name: "C", entityType: "t", observations: ["status: a", "status: b"] }] };
    const before = server.requests();
    expect(failed(await mcp.call("create_entities", twoValues)).error).toBe("ValidationError");
    expect(server.requests() - before).toBe(1); // the keys read; refused, nothing written
    // upsert_entity: range read + one transaction; the keys beside the range read.
    expect(await requestsOf("upsert_entity", { workspaceName: ws, name: "A", entityType: "t", observations: ["y"], ...times })).toBe(2);
    expect(await requestsOf("upsert_entity", { workspaceName: ws, name: "B", entityType: "t", observations: ["status: open"] })).toBe(3);
    // upsert_relation by names: 1 (create), with validity too.
    expect(
      await requestsOf("upsert_relation", { workspaceName: ws, from: "A", to: "B", relationType: "r", validFrom: times.validFrom }),
    ).toBe(1);
  });
});
