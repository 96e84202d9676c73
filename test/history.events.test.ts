import { describe, expect, test } from "@jest/globals";

import type { Change, ChangeEvent } from "../src/domain/feed/history.js";
import { entityId, relationId } from "../src/domain/model/ids.js";
import { toChangeEvent } from "../src/storage/rows/events.js";
import { keyRange, rowKey } from "../src/storage/rows/keys.js";
import { stampOf } from "../src/storage/rows/rowWrites.js";
import { commit } from "../src/storage/writes/transactions.js";
import { failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import { partitionRows } from "./support/rawRows.js";

/**
 * Change events (docs/history.md), read as raw rows through @azure/data-tables: every write tool and
 * the import leave events that match what they wrote, one for one, in the same transactions.
 */
let server: TestServer;
let mcp: McpTestClient;
withServerAndClient((started, client) => {
  server = started;
  mcp = client;
});

/** The workspace's event rows after `after` (a row key), oldest first, straight from the table. */
async function rawEvents(ws: string, after = ""): Promise<ChangeEvent[]> {
  const rows = await partitionRows(server.app.storage.table, ws, { range: keyRange.events(), after });
  return rows.map((row) => toChangeEvent(row as never));
}

/** A compact, order-independent view of changes: kind and what it names. */
const brief = (change: Change): string => [change.kind, change.entityName, change.content, change.tagName].filter(Boolean).join("|");

/** Calls a tool and returns the events its call left, which must all name this tool and the caller. */
async function eventsOf(ws: string, tool: string, args: Record<string, unknown>): Promise<Change[]> {
  const before = (await rawEvents(ws)).at(-1)?.id ?? "";
  ok(await mcp.call(tool, { workspaceName: ws, ...args }));
  const events = await rawEvents(ws, before);
  expect(events.length).toBeGreaterThan(0);
  for (const event of events) expect({ tool: event.tool, principal: event.principal }).toEqual({ tool, principal: "anonymous" });
  // The events of one call share its call id.
  expect(new Set(events.map((event) => event.call)).size).toBe(1);
  return events.flatMap((event) => event.changes);
}

describe("events match writes one for one", () => {
  test("every write tool records what it changed, with ids, names, before and after, principal and tool", async () => {
    const ws = uniqueWorkspace("hist");
    const a = entityId(ws, "Alice");
    const b = entityId(ws, "Bob");

    const created = await eventsOf(ws, "create_entities", {
      entities: [
        { name: "Alice", entityType: "person", observations: ["likes tea", "works at Acme"] },
        { name: "Bob", entityType: "person", observations: [] },
      ],
    });
    expect(created.map(brief).sort()).toEqual(
      [
        "entity.created|Alice",
        "entity.created|Bob",
        "observation.created|Alice|likes tea",
        "observation.created|Alice|works at Acme",
      ].sort(),
    );
    expect(created.find((change) => change.kind === "entity.created" && change.entityId === a)?.after).toEqual({
      name: "Alice",
      entityType: "person",
      metadata: {},
      version: VERSION,
    });

    const knows = relationId(ws, a, "knows", b);
    expect(await eventsOf(ws, "create_relations", { relations: [{ from: "Alice", to: "Bob", relationType: "knows" }] })).toEqual([
      {
        kind: "relation.created",
        relationId: knows,
        after: { fromEntityId: a, fromName: "Alice", toEntityId: b, toName: "Bob", relationType: "knows", metadata: {}, version: VERSION },
      },
    ]);

    expect(
      (await eventsOf(ws, "add_observations", { observations: [{ entityName: "Bob", contents: ["plays chess"] }] })).map(brief),
    ).toEqual(["observation.created|Bob|plays chess"]);

    const upserted = await eventsOf(ws, "upsert_entity", {
      name: "Alice",
      entityType: "engineer",
      metadata: { team: "core" },
      observations: ["new"],
    });
    expect(upserted.map(brief).sort()).toEqual(["entity.updated|Alice", "observation.created|Alice|new"]);
    expect(upserted.find((change) => change.kind === "entity.updated")).toMatchObject({
      entityId: a,
      before: { name: "Alice", entityType: "person", metadata: {}, version: VERSION },
      after: { name: "Alice", entityType: "engineer", metadata: { team: "core" }, version: VERSION },
    });

    // By names, the relation's create transaction fails (it exists) and the merge carries no before-image.
    expect(await eventsOf(ws, "upsert_relation", { from: "Alice", to: "Bob", relationType: "knows", metadata: { since: 2020 } })).toEqual([
      {
        kind: "relation.updated",
        relationId: knows,
        after: {
          fromEntityId: a,
          fromName: "Alice",
          toEntityId: b,
          toName: "Bob",
          relationType: "knows",
          metadata: { since: 2020 },
          version: VERSION,
        },
      },
    ]);

    expect((await eventsOf(ws, "tag_entity", { entityName: "Alice", tagNames: ["vip"] })).map(brief)).toEqual(["tag.created|Alice|vip"]);
    const tagged = await eventsOf(ws, "tag_observation", { entityName: "Alice", observationContent: "likes tea", tagNames: ["source"] });
    expect(tagged).toEqual([
      { kind: "tag.created", entityId: a, entityName: "Alice", observationId: expect.any(String), tagName: "source" },
    ]);
    expect(await eventsOf(ws, "untag_observation", { entityName: "Alice", observationContent: "likes tea", tagNames: ["source"] })).toEqual(
      [{ ...tagged[0]!, kind: "tag.deleted" }],
    );
    expect(await eventsOf(ws, "define_tag", { name: "vip", category: "priority", description: "Answer first." })).toEqual([
      {
        kind: "tag.updated",
        tagName: "vip",
        before: { category: "", description: "" },
        after: { category: "priority", description: "Answer first." },
      },
    ]);
    expect((await eventsOf(ws, "remove_tags_from_entity", { entityName: "Alice", tagNames: ["vip"] })).map(brief)).toEqual([
      "tag.deleted|Alice|vip",
    ]);
    expect((await eventsOf(ws, "delete_observations", { deletions: [{ entityName: "Alice", observations: ["new"] }] })).map(brief)).toEqual(
      ["observation.deleted|Alice|new"],
    );
    expect(await eventsOf(ws, "delete_relations", { relations: [{ from: "Alice", to: "Bob", relationType: "knows" }] })).toEqual([
      {
        kind: "relation.deleted",
        relationId: knows,
        before: {
          fromEntityId: a,
          fromName: "Alice",
          toEntityId: b,
          toName: "Bob",
          relationType: "knows",
          metadata: { since: 2020 },
          version: VERSION,
        },
      },
    ]);
    ok(await mcp.call("tag_entity", { workspaceName: ws, entityName: "Bob", tagNames: ["vip"] }));
    expect((await eventsOf(ws, "delete_tags", { tagNames: ["vip"] })).map(brief).sort()).toEqual([
      "tag.deleted|Bob|vip",
      "tag.deleted|vip",
    ]);

    const deleted = await eventsOf(ws, "delete_entities", { entityNames: ["Bob"] });
    expect(deleted.map(brief).sort()).toEqual(["entity.deleted|Bob", "observation.deleted|Bob|plays chess"]);
    expect(deleted.find((change) => change.kind === "entity.deleted")).toEqual({
      kind: "entity.deleted",
      entityId: b,
      entityName: "Bob",
      before: { name: "Bob", entityType: "person", metadata: {}, version: VERSION },
    });
  });

  test("the import records its writes as the principal cli through the tool import", async () => {
    const ws = uniqueWorkspace("hist-import");
    await server.app.services.graph.importGraph(
      ws,
      { principal: "cli", tool: "import" },
      {
        entities: [{ name: "X", entityType: "t", observations: ["x1"], line: 1 }],
        relations: [{ from: "X", to: "X", relationType: "self", line: 2 }],
        tags: [{ name: "t1", category: "c", description: "d", line: 3 }],
        taggings: [{ entityName: "X", tagNames: ["t1"], line: 4 }],
      },
    );
    const events = await rawEvents(ws);
    expect(new Set(events.map((event) => `${event.principal} ${event.tool}`))).toEqual(new Set(["cli import"]));
    expect(
      events
        .flatMap((event) => event.changes)
        .map((change) => change.kind)
        .sort(),
    ).toEqual(["entity.created", "observation.created", "relation.created", "tag.created", "tag.created"]);
  });

  /** Every entity and relation state an event records carries the row's version (docs/curate.md#versions). */
  const VERSION = expect.stringMatching(/^[0-9a-f]{16}$/);

  test("reads write no events, and a write that changes nothing writes none", async () => {
    const ws = uniqueWorkspace("hist-read");
    ok(await mcp.call("create_entities", { workspaceName: ws, entities: [{ name: "A", entityType: "t", observations: [] }] }));
    const count = (await rawEvents(ws)).length;
    ok(await mcp.call("read_graph", { workspaceName: ws }));
    ok(await mcp.call("open_nodes", { workspaceName: ws, names: ["A"] }));
    ok(await mcp.call("create_entities", { workspaceName: ws, entities: [{ name: "A", entityType: "t", observations: [] }] }));
    ok(await mcp.call("delete_entities", { workspaceName: ws, entityNames: ["Nobody"] }));
    expect(await rawEvents(ws)).toHaveLength(count);
  });
});

describe("atomicity: an event commits with its change or not at all", () => {
  test("a relation whose endpoint is missing fails its guard: neither the relation nor an event is stored", async () => {
    const ws = uniqueWorkspace("hist-atomic");
    ok(await mcp.call("create_entities", { workspaceName: ws, entities: [{ name: "A", entityType: "t", observations: [] }] }));
    const count = (await rawEvents(ws)).length;
    expect(failed(await mcp.call("upsert_relation", { workspaceName: ws, from: "A", to: "Nobody", relationType: "r" })).error).toBe(
      "NotFoundError",
    );
    expect(await rawEvents(ws)).toHaveLength(count);
  });

  test("an entity row deleted on a stale ETag fails with 412 inside its transaction, and its event is not stored", async () => {
    const ws = uniqueWorkspace("hist-etag");
    ok(await mcp.call("create_entities", { workspaceName: ws, entities: [{ name: "A", entityType: "t", observations: [] }] }));
    const key = rowKey.entity(entityId(ws, "A"));
    const read = await server.app.storage.table.getEntity(ws, key);
    // A concurrent writer hangs a tag on it: its guard changes the row's ETag.
    ok(await mcp.call("tag_entity", { workspaceName: ws, entityName: "A", tagNames: ["late"] }));
    const count = (await rawEvents(ws)).length;
    const stamp = stampOf({ principal: "test", tool: "test" }, Date.now);
    const stale = commit(server.app.storage.gateway, ws, stamp, [
      {
        actions: [["delete", { partitionKey: ws, rowKey: key }]],
        conditions: new Map([[key, read.etag]]),
        changes: [{ kind: "entity.deleted", entityId: key, entityName: "A" }],
      },
    ]);
    await expect(stale).rejects.toMatchObject({ statusCode: 412 });
    expect(await rawEvents(ws)).toHaveLength(count);
    expect((await server.app.storage.table.getEntity(ws, key)).rowKey).toBe(key);
    // On the current ETag the same transaction commits, event and delete together.
    const fresh = await server.app.storage.table.getEntity(ws, key);
    await commit(server.app.storage.gateway, ws, stamp, [
      {
        actions: [["delete", { partitionKey: ws, rowKey: key }]],
        conditions: new Map([[key, fresh.etag]]),
        changes: [{ kind: "entity.deleted", entityId: key, entityName: "A" }],
      },
    ]);
    expect((await rawEvents(ws)).at(-1)?.tool).toBe("test");
    await expect(server.app.storage.table.getEntity(ws, key)).rejects.toMatchObject({ statusCode: 404 });
  });
});
