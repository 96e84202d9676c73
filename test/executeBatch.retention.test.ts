import { createHash } from "node:crypto";

import { describe, expect, test } from "@jest/globals";

import { rowKey } from "../src/storage/rows/keys.js";
import { type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import type { BatchAnswer } from "./support/outputs.js";
import { partitionRows } from "./support/rawRows.js";

/** Batch markers expire after 24 hours: a later batch with the same requestId applies again, and retention prunes them. */
let server: TestServer;
let mcp: McpTestClient;
withServerAndClient(
  (started, client) => {
    server = started;
    mcp = client;
  },
  { server: { storage: { historyRetentionDays: 1 } } },
);

const markerKeyOf = (requestId: string) => rowKey.batchMarker(createHash("sha256").update(requestId).digest("hex").slice(0, 32));
const DAY_MS = 86_400_000;

const markers = (ws: string): Promise<Record<string, unknown>[]> => partitionRows(server.app.storage.table, ws, { only: ["batch-marker"] });

describe("batch markers over time", () => {
  test("an expired marker no longer replays: the batch applies again and replaces it", async () => {
    const ws = uniqueWorkspace();
    const old = new Date(Date.now() - 2 * DAY_MS).toISOString();
    const answer = JSON.stringify({ atomic: true, results: [] });
    await server.app.storage.table.createEntity({
      partitionKey: ws,
      rowKey: markerKeyOf("r"),
      kind: "batch-marker",
      createdAt: old,
      state: "done",
      answer,
    });
    const args = {
      workspaceName: ws,
      atomic: true,
      requestId: "r",
      operations: [{ op: "upsert_entity", args: { name: "A", entityType: "t" } }],
    };
    expect(ok<BatchAnswer>(await mcp.call("execute_batch", args)).replayed).toBe(false);
    const [marker] = await markers(ws);
    expect(Date.parse(String(marker!.createdAt))).toBeGreaterThan(Date.now() - DAY_MS);
    expect(ok<BatchAnswer>(await mcp.call("execute_batch", args)).replayed).toBe(true);
  });

  test("retention prunes expired markers in its usual step (no extra request), and keeps fresh ones", async () => {
    const ws = uniqueWorkspace("retention");
    const old = new Date(Date.now() - 2 * DAY_MS).toISOString();
    for (const id of ["old-1", "old-2"]) {
      await server.app.storage.table.createEntity({
        partitionKey: ws,
        rowKey: markerKeyOf(id),
        kind: "batch-marker",
        createdAt: old,
        state: "done",
      });
    }
    ok(
      await mcp.call("execute_batch", {
        workspaceName: ws,
        atomic: true,
        requestId: "fresh",
        operations: [{ op: "upsert_entity", args: { name: "A", entityType: "t" } }],
      }),
    );
    const requestsOf = async () => {
      const before = server.requests();
      ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "B", entityType: "t" }));
      return server.requests() - before;
    };
    // The batch above took this instance's first pruning step (it read the expired markers); this write deletes them.
    expect(await requestsOf()).toBe(2 + 1);
    expect((await markers(ws)).map((row) => row.rowKey)).toEqual([markerKeyOf("fresh")]);
    expect(await requestsOf()).toBe(2);
  });
});
