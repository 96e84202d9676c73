import { describe, expect, test } from "@jest/globals";

import { failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import type { GraphOut } from "./support/outputs.js";
import { partitionRows } from "./support/rawRows.js";

/** The history tools through the real MCP Client: get_changes, get_entity_history, asOf reads, restore_entity. */
let server: TestServer;
let mcp: McpTestClient;
withServerAndClient((started, client) => {
  server = started;
  mcp = client;
});

type Args = Record<string, unknown>;
const call = (ws: string, name: string, args: Args = {}) => mcp.call(name, { workspaceName: ws, ...args });
const pause = () => new Promise((resolve) => setTimeout(resolve, 15));

/** What the three read tools say, made order-independent (ids and authorship included; timestamps are not shown). */
async function capture(ws: string, asOf?: string) {
  const at = asOf === undefined ? {} : { asOf };
  const graph = ok<GraphOut & Args>(await call(ws, "read_graph", at));
  const nodes = ok<GraphOut>(await call(ws, "open_nodes", { names: ["A", "B", "C"], ...at }));
  const relations = ok<{ relations: Args[] }>(await call(ws, "get_entity_relations", { entityName: "A", direction: "both", ...at }));
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
  const byEnds = (a: Args, b: Args) => JSON.stringify(a).localeCompare(JSON.stringify(b));
  return {
    graph: { entities: [...graph.entities].sort(byName), relations: [...graph.relations].sort(byEnds) },
    nodes: { entities: [...nodes.entities].sort(byName), relations: [...nodes.relations].sort(byEnds) },
    relations: [...relations.relations].sort(byEnds),
  };
}

describe("asOf", () => {
  test("states captured after each of several steps are reproduced exactly by asOf reads of read_graph, open_nodes and get_entity_relations", async () => {
    const ws = uniqueWorkspace("asof");
    const states: { at: string; state: Awaited<ReturnType<typeof capture>> }[] = [];
    const step = async (writes: () => Promise<void>) => {
      await writes();
      await pause();
      states.push({ at: new Date().toISOString(), state: await capture(ws) });
      await pause();
    };
    await step(async () => {
      ok(
        await call(ws, "create_entities", {
          entities: [
            { name: "A", entityType: "person", observations: ["a1", "a2"] },
            { name: "B", entityType: "person", observations: ["b1"] },
          ],
        }),
      );
    });
    await step(async () => {
      ok(await call(ws, "upsert_entity", { name: "C", entityType: "team", metadata: { size: 3 }, observations: ["c1"] }));
      ok(await call(ws, "create_relations", { relations: [{ from: "A", to: "B", relationType: "knows" }] }));
      ok(await call(ws, "upsert_relation", { from: "C", to: "A", relationType: "has", metadata: { role: "lead" } }));
      ok(await call(ws, "tag_entity", { entityName: "A", tagNames: ["vip"] }));
      ok(await call(ws, "tag_observation", { entityName: "A", observationContent: "a1", tagNames: ["source:chat"] }));
      ok(await call(ws, "upsert_entity", { name: "A", entityType: "engineer", metadata: { level: 2 }, observations: ["a3"] }));
    });
    await step(async () => {
      ok(await call(ws, "delete_observations", { deletions: [{ entityName: "A", observations: ["a2"] }] }));
      ok(await call(ws, "upsert_relation", { from: "C", to: "A", relationType: "has", metadata: { role: "member" } }));
      ok(await call(ws, "remove_tags_from_entity", { entityName: "A", tagNames: ["vip"] }));
      ok(await call(ws, "delete_entities", { entityNames: ["B"] }));
    });
    for (const { at, state } of states) expect(await capture(ws, at)).toEqual(state);
  });

  test("bad asOf values are refused with a clear error and change nothing", async () => {
    const ws = uniqueWorkspace("asof-bad");
    const before = new Date(Date.now() - 60_000).toISOString();
    ok(await call(ws, "upsert_entity", { name: "A", entityType: "t" }));
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(failed(await call(ws, "read_graph", { asOf: future })).message).toMatch(/in the future/);
    expect(failed(await call(ws, "read_graph", { asOf: "yesterday" })).message).toMatch(/not an ISO 8601 time/);
    expect(failed(await call(ws, "open_nodes", { names: ["A"], asOf: "2026-13-45T99:00:00Z" })).message).toMatch(/not an ISO 8601 time/);
    expect(failed(await call(ws, "get_entity_relations", { entityName: "A", asOf: before })).message).toMatch(/^No history before /);
    expect(failed(await call(ws, "read_graph", { asOf: new Date().toISOString(), limit: 5 })).message).toMatch(/omit limit and cursor/);
    expect(failed(await call(uniqueWorkspace("empty"), "read_graph", { asOf: before })).message).toMatch(/has no history yet/);
  });
});

describe("get_changes and get_entity_history", () => {
  test("newest first by default, filtered by kind, entity and principal, paged with a signed cursor", async () => {
    const ws = uniqueWorkspace("changes");
    ok(await call(ws, "upsert_entity", { name: "A", entityType: "t", observations: ["one"] }));
    ok(await call(ws, "upsert_entity", { name: "B", entityType: "t" }));
    ok(await call(ws, "add_observations", { observations: [{ entityName: "A", contents: ["two"] }] }));
    ok(await call(ws, "delete_entities", { entityNames: ["B"] }));

    const all = ok<{ events: { tool: string; summary: string; principal: string }[] }>(await call(ws, "get_changes"));
    expect(all.events.map((event) => event.tool)).toEqual(["delete_entities", "add_observations", "upsert_entity", "upsert_entity"]);
    expect(all.events[0]!.summary).toBe("anonymous via delete_entities: deleted entity 'B' (t)");
    const oldest = ok<{ events: { tool: string }[] }>(await call(ws, "get_changes", { order: "oldest", entityName: "A" }));
    expect(oldest.events.map((event) => event.tool)).toEqual(["upsert_entity", "add_observations"]);
    const deletions = ok<{ events: { changes: { kind: string; entityName: string }[] }[] }>(
      await call(ws, "get_changes", { kinds: ["entity.deleted"] }),
    );
    expect(deletions.events.flatMap((event) => event.changes)).toEqual([
      expect.objectContaining({ kind: "entity.deleted", entityName: "B" }),
    ]);
    expect(ok<{ events: unknown[] }>(await call(ws, "get_changes", { principal: "key:someone-else" })).events).toEqual([]);

    const first = ok<{ events: { id: string }[]; cursor: string }>(await call(ws, "get_changes", { limit: 3 }));
    expect(first.events).toHaveLength(3);
    const second = ok<{ events: { id: string }[]; cursor?: string }>(await call(ws, "get_changes", { limit: 3, cursor: first.cursor }));
    expect(second.events).toHaveLength(1);
    expect(second.cursor).toBeUndefined();
    expect([...first.events, ...second.events].map((event) => event.id)).toEqual(all.events.map((event) => (event as { id?: string }).id));

    const [payload, mac] = first.cursor.split(".") as [string, string];
    const tampered = `${Buffer.from(JSON.stringify({ v: 2, after: "~ev~9999999999999~000000000000" })).toString("base64url")}.${mac}`;
    expect(failed(await call(ws, "get_changes", { limit: 3, cursor: tampered })).message).toMatch(/^cursor is not one get_changes issued/);
    expect(failed(await call(ws, "get_changes", { limit: 3, cursor: `${payload}.${mac}`, order: "oldest" })).error).toBe("ValidationError");
    expect(failed(await call(ws, "get_changes", { kinds: ["entity.exploded"] })).error).toBe("ValidationError");
    expect(failed(await call(ws, "get_changes", { since: "last week" })).message).toMatch(/not an ISO 8601 time/);
  });

  test("get_entity_history shows a deleted entity's whole life; an unknown entity is a NotFoundError", async () => {
    const ws = uniqueWorkspace("entity-history");
    ok(await call(ws, "upsert_entity", { name: "Gone", entityType: "t", observations: ["was here"] }));
    ok(await call(ws, "tag_entity", { entityName: "Gone", tagNames: ["old"] }));
    ok(await call(ws, "delete_entities", { entityNames: ["Gone"] }));
    const history = ok<{ events: { changes: { kind: string }[] }[] }>(await call(ws, "get_entity_history", { entityName: "Gone" }));
    expect(history.events.flatMap((event) => event.changes.map((change) => change.kind))).toEqual([
      "entity.created",
      "observation.created",
      "tag.created",
      "tag.deleted",
      "observation.deleted",
      "entity.deleted",
    ]);
    expect(failed(await call(ws, "get_entity_history", { entityName: "Never" })).error).toBe("NotFoundError");
  });
});

describe("restore_entity", () => {
  test("brings back a deleted hub: observations, tags, relations to entities that still exist, and no dangling edge", async () => {
    const ws = uniqueWorkspace("restore");
    ok(
      await call(ws, "create_entities", {
        entities: ["Hub", "X", "Y", "Z"].map((name) => ({ name, entityType: "node", observations: [`${name} fact`] })),
      }),
    );
    ok(await call(ws, "upsert_entity", { name: "Hub", entityType: "hub", metadata: { tier: 1 }, observations: ["second fact"] }));
    ok(
      await call(ws, "create_relations", {
        relations: [
          { from: "Hub", to: "X", relationType: "feeds" },
          { from: "Y", to: "Hub", relationType: "reads" },
          { from: "Hub", to: "Z", relationType: "feeds" },
        ],
      }),
    );
    ok(await call(ws, "tag_entity", { entityName: "Hub", tagNames: ["core", "critical"] }));
    ok(await call(ws, "tag_observation", { entityName: "Hub", observationContent: "Hub fact", tagNames: ["verified"] }));
    const before = ok<GraphOut>(await call(ws, "open_nodes", { names: ["Hub"] }));
    ok(await call(ws, "delete_entities", { entityNames: ["Hub"] }));
    ok(await call(ws, "delete_entities", { entityNames: ["Z"] }));

    const restored = ok<Args>(await call(ws, "restore_entity", { entityName: "Hub" }));
    expect(restored).toMatchObject({
      entityName: "Hub",
      observations: 2,
      relations: 2,
      relationsSkipped: 1,
      tags: ["core", "critical"],
      observationTags: 1,
    });
    const after = ok<GraphOut>(await call(ws, "open_nodes", { names: ["Hub"] }));
    expect(after.entities).toEqual(before.entities);
    const sorted = (relations: GraphOut["relations"]) => relations.map((relation) => JSON.stringify(relation)).sort();
    expect(sorted(after.relations)).toEqual(sorted(before.relations.filter((relation) => relation.to !== "Z")));

    // Raw rows: every relation and edge row has both endpoints.
    const rows: Record<string, unknown>[] = await partitionRows(server.app.storage.table, ws, ["event"]);
    const entities = new Set(rows.filter((row) => row.kind === "entity").map((row) => row.rowKey));
    const dangling = rows.filter(
      (row) => ["relation", "edge-in", "edge-out"].includes(String(row.kind)) && !(entities.has(row.fromId) && entities.has(row.toId)),
    );
    expect(dangling).toEqual([]);
    expect(rows.filter((row) => row.kind === "relation")).toHaveLength(2);

    // The restore is a write with events, so it can be undone.
    const changes = ok<{ events: { tool: string }[] }>(await call(ws, "get_changes", { entityName: "Hub", limit: 1 }));
    expect(changes.events[0]!.tool).toBe("restore_entity");
    expect(failed(await call(ws, "restore_entity", { entityName: "Hub" })).error).toBe("ConflictError");
    expect(failed(await call(ws, "restore_entity", { entityName: "Nobody" })).error).toBe("NotFoundError");
  });

  test("with asOf, the entity as it was then; an asOf when it did not exist, or in the future, is refused", async () => {
    const ws = uniqueWorkspace("restore-asof");
    ok(await call(ws, "upsert_entity", { name: "E", entityType: "draft", observations: ["first"] }));
    await pause();
    const early = new Date().toISOString();
    await pause();
    ok(await call(ws, "upsert_entity", { name: "E", entityType: "final", observations: ["second"] }));
    ok(await call(ws, "delete_entities", { entityNames: ["E"] }));
    expect(
      failed(await call(ws, "restore_entity", { entityName: "E", asOf: new Date(Date.now() + 60_000).toISOString() })).message,
    ).toMatch(/in the future/);
    expect(ok<Args>(await call(ws, "restore_entity", { entityName: "E", asOf: early }))).toMatchObject({ observations: 1 });
    const restored = ok<GraphOut>(await call(ws, "open_nodes", { names: ["E"] }));
    expect(restored.entities).toEqual([{ name: "E", entityType: "draft", observations: ["first"] }]);
    ok(await call(ws, "delete_entities", { entityNames: ["E"] }));
    const beforeAnything = ok<{ events: { at: string }[] }>(await call(ws, "get_changes", { order: "oldest", limit: 1 })).events[0]!.at;
    expect(
      failed(await call(ws, "restore_entity", { entityName: "E", asOf: new Date(Date.parse(beforeAnything) - 1).toISOString() })).message,
    ).toMatch(/^No history before /);
  });
});
