import type { TableClient } from "@azure/data-tables";
import { describe, expect, test } from "@jest/globals";

import { entityId, observationId, relationIds } from "../src/domain/model/ids.js";
import { toChangeEvent } from "../src/storage/rows/events.js";
import { keyRange } from "../src/storage/rows/keys.js";
import type { StoredRow } from "../src/storage/rows/rows.js";
import { failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import { partitionRows, type RawRow, rawTable } from "./support/rawRows.js";

/**
 * set_expiry and sweep_expired through the real MCP Client, checked against the rows storage holds
 * (docs/history.md#expiry-and-pinning).
 */
let server: TestServer;
let mcp: McpTestClient;
let table: TableClient;
withServerAndClient((started, client) => {
  server = started;
  mcp = client;
  table = rawTable();
});

type Args = Record<string, unknown>;
const call = (ws: string, name: string, args: Args = {}) => mcp.call(name, { workspaceName: ws, ...args });
const HOUR = 3_600_000;
const later = (ms = HOUR) => new Date(Date.now() + ms).toISOString();

/** Waits (not a timed assertion: a condition) until the wall clock is past `iso`. */
async function until(iso: string): Promise<void> {
  while (Date.now() <= Date.parse(iso)) await new Promise((resolve) => setTimeout(resolve, Math.max(10, Date.parse(iso) - Date.now() + 5)));
}

/** The workspace's events as stored, oldest first. */
async function rawEvents(ws: string) {
  const rows = await partitionRows(table, ws, { range: keyRange.events() });
  return rows.map(
    (stored) => toChangeEvent(stored as unknown as StoredRow) as unknown as { tool: string; principal: string; changes: Args[] },
  );
}

async function graphRows(ws: string): Promise<RawRow[]> {
  return partitionRows(table, ws, ["event", "workspace"]);
}

const row = (rows: readonly RawRow[], key: string) => rows.find((candidate) => candidate.rowKey === key);

async function seed(ws: string): Promise<void> {
  ok(
    await call(ws, "create_entities", {
      entities: [
        { name: "A", entityType: "t", observations: ["a1", "a2"] },
        { name: "B", entityType: "t", observations: ["b1"] },
      ],
    }),
  );
  ok(await call(ws, "create_relations", { relations: [{ from: "A", to: "B", relationType: "knows" }] }));
}

describe("set_expiry", () => {
  test("sets, pins and clears the expiry of an entity, an observation and a relation, on the rows", async () => {
    const ws = uniqueWorkspace("expiry");
    await seed(ws);
    const a = entityId(ws, "A");
    const rel = relationIds(ws, { from: "A", to: "B", relationType: "knows" });
    const obsKey = `${a}~o~${observationId(a, "a1")}`;
    const when = later();

    const entity = ok<Args>(await call(ws, "set_expiry", { entityName: "A", expiresAt: when }));
    expect(entity).toMatchObject({ entityName: "A", expiresAt: new Date(when).toISOString(), pinned: false });
    const observation = ok<Args>(await call(ws, "set_expiry", { entityName: "A", observation: "a1", expiresAt: when, pinned: true }));
    expect(observation).toMatchObject({ observation: "a1", expiresAt: when, pinned: true });
    const relation = ok<Args>(
      await call(ws, "set_expiry", { entityName: "A", relation: { to: "B", relationType: "knows" }, expiresAt: when }),
    );
    expect(relation).toMatchObject({ relation: { to: "B", relationType: "knows" }, expiresAt: when });

    let rows = await graphRows(ws);
    expect(row(rows, a)).toMatchObject({ expiresAt: when });
    expect(row(rows, obsKey)).toMatchObject({ expiresAt: when, pinned: true });
    expect(row(rows, `${a}~o~${observationId(a, "a2")}`)?.expiresAt).toBeUndefined();
    for (const key of [rel.id, `${a}~r~out~${rel.id}`, `${rel.toEntityId}~r~in~${rel.id}`])
      expect(row(rows, key)).toMatchObject({ expiresAt: when });

    // Pin the entity, then clear its expiry; unpin the observation.
    expect(ok<Args>(await call(ws, "set_expiry", { entityName: "A", pinned: true }))).toMatchObject({ expiresAt: when, pinned: true });
    expect(ok<Args>(await call(ws, "set_expiry", { entityName: "A", expiresAt: null }))).toEqual(expect.objectContaining({ pinned: true }));
    expect(ok<Args>(await call(ws, "set_expiry", { entityName: "A", observation: "a1", pinned: false }))).toMatchObject({ pinned: false });
    rows = await graphRows(ws);
    expect(row(rows, a)).toMatchObject({ expiresAt: "", pinned: true });
    expect(row(rows, obsKey)).toMatchObject({ expiresAt: when, pinned: false });

    // Each call is an event with the validity patch it set (read from the event rows: get_changes shows a change's validity
    // once its output shape carries it).
    const changes = (await rawEvents(ws)).filter((event) => event.tool === "set_expiry");
    expect(changes.map((event) => event.changes.map((change) => change.kind))).toEqual([
      ["entity.updated"],
      ["observation.updated"],
      ["relation.updated"],
      ["entity.updated"],
      ["entity.updated"],
      ["observation.updated"],
    ]);
    expect(changes[0]!.changes[0]).toMatchObject({ validity: { expiresAt: when }, after: { name: "A", entityType: "t" } });
    expect(changes[4]!.changes[0]).toMatchObject({ validity: { expiresAt: "" }, validityBefore: { expiresAt: when, pinned: true } });
  });

  test("bad input and missing targets are refused and change nothing", async () => {
    const ws = uniqueWorkspace("expirybad");
    await seed(ws);
    const before = await graphRows(ws);
    const refusals: [Args, string, RegExp][] = [
      [{ entityName: "A", expiresAt: new Date(Date.now() - HOUR).toISOString() }, "ValidationError", /not in the future/],
      [{ entityName: "A", expiresAt: "next tuesday" }, "ValidationError", /ISO 8601/],
      [{ entityName: "A" }, "ValidationError", /expiresAt .*pinned/],
      [
        { entityName: "A", observation: "a1", relation: { to: "B", relationType: "knows" }, expiresAt: later() },
        "ValidationError",
        /not both/,
      ],
      [{ entityName: "Nobody", expiresAt: later() }, "NotFoundError", /Nobody/],
      [{ entityName: "A", observation: "never said", expiresAt: later() }, "NotFoundError", /never said/],
      [{ entityName: "Nobody", observation: "a1", expiresAt: later() }, "NotFoundError", /Entity 'Nobody'/],
      [{ entityName: "A", relation: { to: "B", relationType: "hates" }, expiresAt: later() }, "NotFoundError", /hates/],
    ];
    for (const [args, kind, message] of refusals) {
      const error = failed(await call(ws, "set_expiry", args));
      expect(error.error).toBe(kind);
      expect(error.message).toMatch(message);
    }
    const strip = (rows: RawRow[]) => rows.map(({ etag: _etag, timestamp: _timestamp, ...rest }) => rest);
    expect(strip(await graphRows(ws))).toEqual(strip(before));
  });

  test("an item that has already expired is NotFound: it cannot be renewed", async () => {
    const ws = uniqueWorkspace("expired");
    await seed(ws);
    const soon = later(300);
    ok(await call(ws, "set_expiry", { entityName: "A", observation: "a2", expiresAt: soon }));
    ok(await call(ws, "set_expiry", { entityName: "B", expiresAt: soon }));
    await until(soon);
    const observation = failed(await call(ws, "set_expiry", { entityName: "A", observation: "a2", expiresAt: later() }));
    expect(observation).toMatchObject({ error: "NotFoundError", message: expect.stringContaining(`expired at ${soon}`) });
    const entity = failed(await call(ws, "set_expiry", { entityName: "B", pinned: true }));
    expect(entity).toMatchObject({ error: "NotFoundError", message: expect.stringContaining("expired at") });
    // The rows were not changed by the refused renewals.
    const rows = await graphRows(ws);
    expect(row(rows, entityId(ws, "B"))).toMatchObject({ expiresAt: soon });
    expect(row(rows, entityId(ws, "B"))?.pinned).toBeUndefined();
  });
});

describe("sweep_expired", () => {
  test("dryRun lists the expired items and changes nothing; the sweep deletes them with events; pinned items survive", async () => {
    const ws = uniqueWorkspace("sweep");
    ok(
      await call(ws, "create_entities", {
        entities: [
          { name: "Gone", entityType: "t", observations: ["g1"] },
          { name: "Keeps", entityType: "t", observations: ["stays", "goes"] },
          { name: "Other", entityType: "t", observations: [] },
          { name: "Pinned", entityType: "t", observations: ["p1"] },
        ],
      }),
    );
    ok(
      await call(ws, "create_relations", {
        relations: [
          { from: "Keeps", to: "Other", relationType: "temp" },
          { from: "Keeps", to: "Gone", relationType: "links" },
          { from: "Other", to: "Keeps", relationType: "lasting" },
        ],
      }),
    );
    ok(await call(ws, "tag_observation", { entityName: "Keeps", observationContent: "goes", tagNames: ["sprint"] }));
    const soon = later(400);
    ok(await call(ws, "set_expiry", { entityName: "Gone", expiresAt: soon }));
    ok(await call(ws, "set_expiry", { entityName: "Keeps", observation: "goes", expiresAt: soon }));
    ok(await call(ws, "set_expiry", { entityName: "Keeps", relation: { to: "Other", relationType: "temp" }, expiresAt: soon }));
    ok(await call(ws, "set_expiry", { entityName: "Pinned", expiresAt: soon, pinned: true }));
    ok(await call(ws, "set_expiry", { entityName: "Other", expiresAt: later() })); // not yet
    await until(soon);

    const before = await graphRows(ws);
    const preview = ok<{ entities: number; observations: number; relations: number; items: Args[] }>(
      await call(ws, "sweep_expired", { dryRun: true }),
    );
    expect(preview).toMatchObject({ dryRun: true, entities: 1, observations: 1, relations: 1 });
    expect(preview.items).toEqual(
      expect.arrayContaining([
        { kind: "entity", entityName: "Gone", expiresAt: soon },
        { kind: "observation", entityName: "Keeps", observation: "goes", expiresAt: soon },
        { kind: "relation", from: "Keeps", to: "Other", relationType: "temp", expiresAt: soon },
      ]),
    );
    expect((await graphRows(ws)).length).toBe(before.length);

    const swept = ok<Args>(await call(ws, "sweep_expired"));
    expect(swept).toMatchObject({ dryRun: false, entities: 1, observations: 1, relations: 1, skipped: [] });

    const rows = await graphRows(ws);
    const keeps = entityId(ws, "Keeps");
    const gone = entityId(ws, "Gone");
    // Gone: its range, and the relation into it (canonical row and the edge kept with Keeps), are deleted.
    expect(rows.filter((candidate) => candidate.rowKey.startsWith(gone))).toEqual([]);
    expect(rows.filter((candidate) => candidate.relationType === "links")).toEqual([]);
    // The observation went with its tag link and the tag's index row; the other observation stayed.
    const goes = observationId(keeps, "goes");
    expect(rows.filter((candidate) => candidate.rowKey.includes(goes))).toEqual([]);
    expect(rows.some((candidate) => candidate.kind === "observation" && candidate.content === "stays")).toBe(true);
    // The relation's three rows went; the other relation between the same entities stayed.
    expect(rows.filter((candidate) => candidate.relationType === "temp")).toEqual([]);
    expect(rows.filter((candidate) => candidate.relationType === "lasting")).toHaveLength(3);
    // Pinned survives, and so does Other (its expiry is still ahead).
    expect(row(rows, entityId(ws, "Pinned"))).toMatchObject({ pinned: true, expiresAt: soon });
    expect(row(rows, entityId(ws, "Other"))).toBeDefined();

    const events = ok<{ events: { tool: string; principal: string; changes: Args[] }[] }>(
      await call(ws, "get_changes", { kinds: ["entity.deleted", "observation.deleted", "relation.deleted", "tag.deleted"] }),
    ).events;
    expect(events.every((event) => event.tool === "sweep_expired")).toBe(true);
    const changes = events.flatMap((event) => event.changes);
    expect(changes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "entity.deleted", entityName: "Gone" }),
        expect.objectContaining({ kind: "observation.deleted", entityName: "Keeps", content: "goes" }),
        expect.objectContaining({ kind: "tag.deleted", tagName: "sprint" }),
        expect.objectContaining({ kind: "relation.deleted", before: expect.objectContaining({ relationType: "temp" }) }),
        expect.objectContaining({ kind: "relation.deleted", before: expect.objectContaining({ relationType: "links" }) }),
      ]),
    );

    // Idempotent: nothing is left to sweep.
    expect(ok<Args>(await call(ws, "sweep_expired"))).toMatchObject({ entities: 0, observations: 0, relations: 0, items: [] });
  });

  test("the sweep's storage cost: one query finds the expired items; each is one read and one transaction", async () => {
    const ws = uniqueWorkspace("sweepcost");
    await seed(ws);
    const idle = server.requests();
    ok(await call(ws, "sweep_expired"));
    // Nothing expired: the one filtered query.
    expect(server.requests() - idle).toBe(1);
    const soon = later(300);
    ok(await call(ws, "set_expiry", { entityName: "A", relation: { to: "B", relationType: "knows" }, expiresAt: soon }));
    await until(soon);
    const start = server.requests();
    expect(ok<Args>(await call(ws, "sweep_expired"))).toMatchObject({ relations: 1 });
    // The query, and the relation's transaction (its row as the query read it: no read before the delete).
    expect(server.requests() - start).toBe(2);
  });
});

describe("writing to an entity that expired and is not swept yet", () => {
  test("upsert_entity brings it back (its expiry cleared, recorded); add_observations says it is gone and how to bring it back", async () => {
    const ws = uniqueWorkspace("tex");
    const call = (name: string, args: Record<string, unknown>) => mcp.call(name, { workspaceName: ws, ...args });
    ok(
      await call("create_entities", { entities: [{ name: "Sprint", entityType: "sprint", observations: ["goal: ship"] }], ttlSeconds: 1 }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(ok<{ entities: unknown[] }>(await call("open_nodes", { names: ["Sprint"] })).entities).toEqual([]);
    const refused = failed(await call("add_observations", { observations: [{ entityName: "Sprint", contents: ["more"] }] }));
    expect(refused.error).toBe("NotFoundError");
    expect(refused.message).toMatch(/upsert_entity brings it back/);
    ok(await call("upsert_entity", { name: "Sprint", entityType: "sprint", observations: ["goal: ship v2"] }));
    const back = ok<{ entities: { name: string; observations: string[] }[] }>(await call("open_nodes", { names: ["Sprint"] }));
    expect(back.entities.map((e) => [e.name, [...e.observations].sort()])).toEqual([["Sprint", ["goal: ship", "goal: ship v2"]]]);
    // Not swept: the sweep finds nothing expired any more.
    ok(await call("sweep_expired", {}));
    expect(ok<{ entities: unknown[] }>(await call("open_nodes", { names: ["Sprint"] })).entities).toHaveLength(1);
    const history = JSON.stringify(ok(await call("get_entity_history", { entityName: "Sprint" })));
    expect(history).toMatch(/expiry cleared/);
  });
});
