import { describe, expect, test } from "@jest/globals";

import { entityId } from "../src/domain/model/ids.js";
import { rowKey } from "../src/storage/rows/keys.js";
import {
  connectClient,
  type McpTestClient,
  ok,
  startTestServer,
  type TestServer,
  uniqueWorkspace,
  withTestServers,
} from "./support/harness.js";
import { injectRaces, type RaceInjector } from "./support/raceInjector.js";
import { rawTable } from "./support/rawRows.js";

/**
 * A write that merges some of an entity's fields without If-Match records only those in its event's after-image
 * (docs/history.md#what-an-event-holds). upsert_entity without metadata, and merge_entities' update of its target, used to
 * record the metadata they had read: a metadata write landing between their read and their commit stayed in storage, but
 * every fold of the feed (the index kept by the feed's tail, asOf, a fresh index's replay of its lateness window) put the
 * stale metadata back. The checker found it (seed 22); here the other write lands in between every time.
 */
let server: TestServer;
let mcp: McpTestClient;
let otherMcp: McpTestClient;
let races: RaceInjector;
withTestServers({ servers: { server: {}, other: {} }, clients: { mcp: {}, otherMcp: { on: "other" } } }, (started) => {
  ({ server, mcp, otherMcp } = started);
  races = injectRaces(server.app.storage.table);
});

type Args = Record<string, unknown>;
type Graph = { entities: { name: string; metadata?: Record<string, unknown> }[] };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The entity's metadata in every view: each instance's kept index, a fresh instance's asOf replay and its own index. */
async function metadataEverywhere(ws: string, name: string, asOf: string): Promise<unknown[]> {
  const fresh = await startTestServer();
  const freshMcp = await connectClient(fresh.url);
  try {
    const graphs: Args[] = [];
    for (const client of [mcp, otherMcp]) graphs.push(ok(await client.call("read_graph", { workspaceName: ws })));
    graphs.push(ok(await freshMcp.call("read_graph", { workspaceName: ws, asOf })));
    graphs.push(ok(await freshMcp.call("read_graph", { workspaceName: ws })));
    return graphs.map((graph) => (graph as Graph).entities.find((e) => e.name === name)?.metadata);
  } finally {
    await freshMcp.close();
    await fresh.close();
  }
}

async function storedMetadata(ws: string, name: string): Promise<unknown> {
  const row = await rawTable().getEntity<Args>(ws, rowKey.entity(entityId(ws, name)));
  return JSON.parse(String(row.metadata)) as unknown;
}

async function now(): Promise<string> {
  await pause(20);
  const at = new Date().toISOString();
  await pause(20);
  return at;
}

describe("an after-image holds only the fields the write wrote", () => {
  test("upsert_entity without metadata, racing one with metadata that commits between its read and its write", async () => {
    const ws = uniqueWorkspace("afterimg");
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "B", entityType: "project", metadata: { v: 0 } }));
    // Both instances hold an index now: what follows reaches them through the feed's tail.
    for (const client of [mcp, otherMcp]) ok(await client.call("read_graph", { workspaceName: ws }));

    races.beforeNextTransaction(async () =>
      ok(await otherMcp.call("upsert_entity", { workspaceName: ws, name: "B", entityType: "person", metadata: { v: 12 } })),
    );
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "B", entityType: "person", observations: [] }));
    const asOf = await now();

    expect(await storedMetadata(ws, "B")).toEqual({ v: 12 });
    expect(await metadataEverywhere(ws, "B", asOf)).toEqual([{ v: 12 }, { v: 12 }, { v: 12 }, { v: 12 }]);
  });

  test("merge_entities' update of its target, racing a metadata write on the target", async () => {
    const ws = uniqueWorkspace("afterimg");
    ok(
      await mcp.call("create_entities", {
        workspaceName: ws,
        entities: [
          { name: "T", entityType: "team", observations: ["t1"] },
          { name: "S", entityType: "team", observations: ["s1"] },
        ],
      }),
    );
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "T", entityType: "team", metadata: { v: 0 } }));
    for (const client of [mcp, otherMcp]) ok(await client.call("read_graph", { workspaceName: ws }));

    // Lands after the merge read the target, before the merge's first transaction.
    races.beforeNextTransaction(async () =>
      ok(await otherMcp.call("upsert_entity", { workspaceName: ws, name: "T", entityType: "team", metadata: { v: 7 } })),
    );
    ok(await mcp.call("merge_entities", { workspaceName: ws, target: "T", sources: ["S"], confirm: true }));
    const asOf = await now();

    expect(await storedMetadata(ws, "T")).toEqual({ v: 7 });
    expect(await metadataEverywhere(ws, "T", asOf)).toEqual([{ v: 7 }, { v: 7 }, { v: 7 }, { v: 7 }]);
  });
});
