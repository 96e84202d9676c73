import { RestError } from "@azure/core-rest-pipeline";
import { describe, expect, test } from "@jest/globals";

import type { McpTestClient, TestServer } from "./support/harness.js";
import { connectClient, failed, ok, startTestServer, uniqueWorkspace, withTestServers } from "./support/harness.js";
import { partitionRows } from "./support/rawRows.js";

/**
 * Issue #21, defect 2: an instance that built a workspace's index while the workspace had no registry row (a read before
 * its first write, or between delete_workspace and re-creation) must still notice the deletion: its index-served reads
 * (search_entities, read_graph, get_stats) equal the stored rows on every later read, with no ghost and no mixing of the
 * deleted workspace's data with the re-created one's. Two instances, each with its own index registry, on one Azurite.
 */

let writer: TestServer;
let r: McpTestClient;
let w: McpTestClient;

withTestServers(
  { servers: { reader: {}, writer: {} }, clients: { r: { on: "reader" }, w: { on: "writer" } } },
  (started) => void ({ writer, r, w } = started),
);

/** The entity names stored in the workspace (raw rows), sorted. */
async function storedNames(ws: string): Promise<string[]> {
  const rows = await partitionRows(writer.app.storage.table, ws, ["event", "workspace"]);
  return rows
    .filter((row) => row.kind === "entity")
    .map((row) => String(row.name))
    .sort();
}

/** What the reader's index-served reads show: the same names from each, or the test fails. */
async function indexedNames(ws: string): Promise<string[]> {
  const search = ok<{ hits: { entity: { name: string } }[] }>(await r.call("search_entities", { workspaceName: ws, entityType: "thing" }));
  const graph = ok<{ entities: { name: string }[] }>(await r.call("read_graph", { workspaceName: ws }));
  const stats = ok<{ entities: number }>(await r.call("get_stats", { workspaceName: ws }));
  const fromSearch = search.hits.map((hit) => hit.entity.name).sort();
  const fromGraph = graph.entities.map((entity) => entity.name).sort();
  expect(fromGraph).toEqual(fromSearch);
  expect(stats.entities).toBe(fromGraph.length);
  return fromGraph;
}

async function upsert(ws: string, name: string): Promise<void> {
  ok(await w.call("upsert_entity", { workspaceName: ws, name, entityType: "thing", observations: [`${name} fact`] }));
}

async function deleteWorkspace(ws: string): Promise<void> {
  ok(await w.call("delete_workspace", { workspaceName: ws, confirm: ws }));
}

describe("an index built while the workspace had no registry row", () => {
  test("read before the first write: a later delete_workspace and re-creation show no ghost and no mixing (20 rounds)", async () => {
    const failures: string[] = [];
    for (let round = 0; round < 20; round++) {
      const ws = uniqueWorkspace("idxdel");
      expect(await indexedNames(ws)).toEqual([]); // the reader builds its index before the first write
      await upsert(ws, `old-${round}`);
      expect(await indexedNames(ws)).toEqual(await storedNames(ws));
      await deleteWorkspace(ws);
      const afterDelete = await indexedNames(ws);
      const openOld = ok<{ entities: unknown[] }>(await r.call("open_nodes", { workspaceName: ws, names: [`old-${round}`] }));
      expect(openOld.entities).toEqual([]);
      if (afterDelete.length !== 0) failures.push(`round ${round}: after delete_workspace the index still shows ${afterDelete.join(",")}`);
      await upsert(ws, `new-${round}`);
      const afterRecreate = await indexedNames(ws);
      const stored = await storedNames(ws);
      if (JSON.stringify(afterRecreate) !== JSON.stringify(stored)) {
        failures.push(`round ${round}: after re-creation the index shows ${afterRecreate.join(",")}, storage holds ${stored.join(",")}`);
      }
    }
    expect(failures).toEqual([]);
  });

  test("read between delete_workspace and re-creation: the re-created workspace's reads equal storage (20 rounds)", async () => {
    const failures: string[] = [];
    for (let round = 0; round < 20; round++) {
      const ws = uniqueWorkspace("idxgap");
      await upsert(ws, `first-${round}`);
      expect(await indexedNames(ws)).toEqual([`first-${round}`]);
      await deleteWorkspace(ws);
      expect(await indexedNames(ws)).toEqual([]); // built again with no registry row
      await upsert(ws, `second-${round}`);
      expect(await indexedNames(ws)).toEqual(await storedNames(ws));
      await deleteWorkspace(ws);
      const afterSecondDelete = await indexedNames(ws);
      if (afterSecondDelete.length !== 0)
        failures.push(`round ${round}: after the second delete the index shows ${afterSecondDelete.join(",")}`);
      await upsert(ws, `third-${round}`);
      const shown = await indexedNames(ws);
      const stored = await storedNames(ws);
      if (JSON.stringify(shown) !== JSON.stringify(stored))
        failures.push(`round ${round}: index ${shown.join(",")} vs storage ${stored.join(",")}`);
    }
    expect(failures).toEqual([]);
  });
});

describe("a delete_workspace that stops part-way", () => {
  test("leaves no index trusting the workspace's generation: another instance's reads equal storage (20 rounds)", async () => {
    // The deleting instance cannot delete the registry row (the connection drops), so the call stops after emptying the
    // partition: without the registry row's mark, the reader's index kept its generation and, seeing no event, the entities.
    const deleter = await startTestServer();
    deleter.app.storage.table.pipeline.addPolicy({
      name: "testRegistryDeleteDrops",
      sendRequest: (request, next) =>
        request.method === "DELETE" && decodeURIComponent(request.url).includes("RowKey='~workspace'")
          ? Promise.reject(new RestError("Injected fault: the connection was reset.", { code: "ECONNRESET", request }))
          : next(request),
    });
    const d = await connectClient(deleter.url);
    try {
      const failures: string[] = [];
      for (let round = 0; round < 20; round++) {
        const ws = uniqueWorkspace("idxstop");
        const names = [0, 1, 2, 3].map((i) => `e${i}-${round}`);
        ok(
          await w.call("create_entities", {
            workspaceName: ws,
            entities: names.map((name) => ({ name, entityType: "thing", observations: [`${name} fact`] })),
          }),
        );
        expect(await indexedNames(ws)).toEqual(names.sort()); // the reader's index, at the registry row's generation
        failed(await d.call("delete_workspace", { workspaceName: ws, confirm: ws }));
        const shown = await indexedNames(ws);
        const stored = await storedNames(ws);
        if (JSON.stringify(shown) !== JSON.stringify(stored))
          failures.push(`round ${round}: index ${shown.join(",")} vs storage ${stored.join(",")}`);
      }
      expect(failures).toEqual([]);
    } finally {
      await d.close();
      await deleter.close();
    }
  });
});
