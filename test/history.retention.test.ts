import { describe, expect, test } from "@jest/globals";

import { rowKey } from "../src/storage/rows/keys.js";
import { failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import { eventRowKeys } from "./support/rawRows.js";

/** MEMORY_HISTORY_RETENTION_DAYS: lazy pruning, at most one extra request per call, and as-of reads that refuse a pruned past. */
let server: TestServer;
let mcp: McpTestClient;
withServerAndClient(
  (started, client) => {
    server = started;
    mcp = client;
  },
  { server: { storage: { historyRetentionDays: 1 } } },
);

const eventKeys = (ws: string): Promise<string[]> => eventRowKeys(server.app.storage.table, ws);

async function requestsOf(args: Record<string, unknown>): Promise<number> {
  const before = server.requests();
  ok(await mcp.call("upsert_entity", args));
  return server.requests() - before;
}

describe("retention", () => {
  test("events older than the retention are pruned by later writes, one extra request per call at most", async () => {
    const ws = uniqueWorkspace("retention");
    // Two old events (ten days ago), written as raw rows: what a workspace's history holds after ten days.
    const old = Date.now() - 10 * 86_400_000;
    const oldKeys = [rowKey.event(old, "000000000001"), rowKey.event(old + 1, "000000000002")];
    for (const key of oldKeys) await server.app.storage.table.createEntity({ partitionKey: ws, rowKey: key, kind: "event", chunks: 0 });

    const args = { workspaceName: ws, name: "A", entityType: "t" };
    expect(await requestsOf(args)).toBe(2 + 1); // the write, then reading the expired keys
    expect(await requestsOf(args)).toBe(2 + 1); // the write, then deleting them in one transaction
    expect(await requestsOf(args)).toBe(2); // nothing due: at most one step a minute
    const kept = await eventKeys(ws);
    expect(kept.filter((key) => oldKeys.includes(key))).toEqual([]);
    expect(kept).toHaveLength(3); // the three upserts' own events

    const asOf = failed(await mcp.call("read_graph", { workspaceName: ws, asOf: new Date().toISOString() }));
    expect(asOf.message).toMatch(/^No complete history: events before .* were pruned \(MEMORY_HISTORY_RETENTION_DAYS\)/);
    // The kept history is still listed.
    expect(ok<{ events: unknown[] }>(await mcp.call("get_changes", { workspaceName: ws })).events).toHaveLength(3);
  });
});
