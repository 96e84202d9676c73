import { randomBytes } from "node:crypto";

import { afterAll, describe, expect, test } from "@jest/globals";

import { CURSOR_KEY_PARTITION, tableCursorKey } from "../src/storage/cursorKey.js";
import { connectStorage, type StorageConnection } from "../src/storage/table/client.js";
import {
  connectClient,
  failed,
  type McpTestClient,
  ok,
  startTestServer,
  testConnectionString,
  type TestServer,
  uniqueWorkspace,
  withTestServers,
} from "./support/harness.js";
import { rawTable } from "./support/rawRows.js";

/**
 * read_graph cursors over real storage and MCP: signed with one key kept in the table, so every
 * instance of a deployment accepts every other's cursors, and a forged or foreign one is refused.
 */
let first: TestServer;
let one: McpTestClient;
let other: McpTestClient;

withTestServers(
  { servers: { first: {}, second: {} }, clients: { one: { on: "first" }, other: { on: "second" } } },
  (started) => void ({ first, one, other } = started),
);

interface Page {
  entities: { name: string }[];
  cursor?: string;
}

async function workspaceOf(count: number): Promise<string> {
  const ws = uniqueWorkspace();
  const entities = Array.from({ length: count }, (_, i) => ({ name: `E${i}`, entityType: "t", observations: [] }));
  ok(await one.call("create_entities", { workspaceName: ws, entities }));
  return ws;
}

const page = async (client: McpTestClient, args: Record<string, unknown>) => ok<Page>(await client.call("read_graph", args));

function expectRefused(result: Awaited<ReturnType<McpTestClient["call"]>>): void {
  const error = failed(result);
  expect(error.error).toBe("ValidationError");
  expect(error.message).toMatch(/^cursor is not one read_graph issued for this workspace and mode/);
  expect(error.message).toMatch(/Omit cursor to start again from the first page/);
}

describe("read_graph cursors through MCP", () => {
  test("a hand-made cursor (the old unsigned format, past every entity) is refused, not an empty last page", async () => {
    const ws = await workspaceOf(3);
    const forged = Buffer.from(JSON.stringify({ v: 1, after: "ffffffff-ffff-ffff-ffff-ffffffffffff" })).toString("base64url");
    expectRefused(await one.call("read_graph", { workspaceName: ws, limit: 2, cursor: forged }));
  });

  test("a cursor issued for another workspace, or for the other mode, is refused", async () => {
    const [ws, elsewhere] = await Promise.all([workspaceOf(3), workspaceOf(3)]);
    const { cursor } = await page(one, { workspaceName: ws, limit: 1 });
    expect(cursor).toBeDefined();
    expectRefused(await one.call("read_graph", { workspaceName: elsewhere, limit: 1, cursor }));
    expectRefused(await one.call("read_graph", { workspaceName: ws, limit: 1, cursor, mode: "names" }));
    // On the bound route too: the cursor is bound to the workspace, not to the route.
    const bound = await connectClient(first.url, `/api/workspaces/${elsewhere}/mcp`);
    try {
      expectRefused(await bound.call("read_graph", { limit: 1, cursor }));
      expect((await page(bound, { limit: 5 })).entities).toHaveLength(3);
    } finally {
      await bound.close();
    }
  });

  test("every instance accepts every other's cursors (one key per deployment): a walk alternating instances sees each entity once", async () => {
    const ws = await workspaceOf(7);
    const seen: string[] = [];
    let cursor: string | undefined;
    let turn = 0;
    do {
      const client = turn++ % 2 === 0 ? one : other;
      const next: Page = await page(client, { workspaceName: ws, limit: 2, mode: "names", ...(cursor ? { cursor } : {}) });
      seen.push(...next.entities.map((entity) => entity.name));
      cursor = next.cursor;
    } while (cursor);
    expect(turn).toBe(4);
    expect(seen.sort()).toEqual(["E0", "E1", "E2", "E3", "E4", "E5", "E6"]);
  });

  test("the key costs one storage request per instance, on its first cursor; none on later calls, none on reads without paging", async () => {
    const ws = await workspaceOf(3);
    await page(one, { workspaceName: ws, limit: 1 }); // the key row exists from here on
    const fresh = await startTestServer();
    const client = await connectClient(fresh.url);
    try {
      const requests = async (args: Record<string, unknown>) => {
        const before = fresh.requests();
        const result = await page(client, { workspaceName: ws, ...args });
        return { requests: fresh.requests() - before, cursor: result.cursor };
      };
      expect((await requests({})).requests).toBe(1); // no cursor issued: the key is not read
      const firstPage = await requests({ limit: 1 });
      expect(firstPage.requests).toBe(2); // the page + the key, once
      const secondPage = await requests({ limit: 1, cursor: firstPage.cursor });
      expect(secondPage.requests).toBe(1);
      expect((await requests({ limit: 1, cursor: secondPage.cursor })).requests).toBe(1);
    } finally {
      await client.close();
      await fresh.close();
    }
  });
});

describe("the cursor key row", () => {
  const tables: StorageConnection[] = [];
  const freshTable = () => `cursorkey${randomBytes(6).toString("hex")}`;
  const connect = (tableName: string) => {
    const connection = connectStorage({ kind: "connectionString", connectionString: testConnectionString(), tableName, source: "test" });
    tables.push(connection);
    return connection;
  };
  afterAll(async () => {
    const names = [...new Set(tables.map((connection) => connection.tableName))];
    await Promise.all(names.map((name) => rawTable(testConnectionString(), name).deleteTable()));
  });

  test("is created once, in a partition no workspace can name, and every later instance reads the same key in one request", async () => {
    const tableName = freshTable();
    const creator = connect(tableName);
    await creator.ensureTable();
    const before = creator.counter.total;
    const key = await tableCursorKey(creator)();
    expect(key).toHaveLength(32);
    expect(creator.counter.total - before).toBe(2); // read (absent) + create: the first instance of a deployment only

    const later = connect(tableName);
    await later.ensureTable();
    const provider = tableCursorKey(later);
    const start = later.counter.total;
    expect(Buffer.from(await provider())).toEqual(Buffer.from(key));
    expect(later.counter.total - start).toBe(1);
    await Promise.all([provider(), provider(), provider()]);
    expect(later.counter.total - start).toBe(1); // cached for the process

    const rows = [];
    for await (const row of later.table.listEntities()) rows.push(row);
    expect(rows.map((row) => [row.partitionKey, row.rowKey])).toEqual([[CURSOR_KEY_PARTITION, "cursor-key"]]);
    expect(CURSOR_KEY_PARTITION.startsWith("~")).toBe(true);
  });

  test("instances starting together on a new table agree on one key", async () => {
    const tableName = freshTable();
    const connections = Array.from({ length: 4 }, () => connect(tableName));
    await connections[0]!.ensureTable();
    const keys = await Promise.all(connections.map((connection) => tableCursorKey(connection)()));
    for (const key of keys) expect(Buffer.from(key)).toEqual(Buffer.from(keys[0]!));
  });

  test("a failure is not cached: the next call tries storage again", async () => {
    const unreachable = testConnectionString().replace(/TableEndpoint=http:\/\/[^/;]+/, "TableEndpoint=http://127.0.0.1:1");
    const connection = connectStorage(
      { kind: "connectionString", connectionString: unreachable, tableName: freshTable(), source: "test" },
      { maxRetries: 0, timeoutMs: 2000 },
    );
    const provider = tableCursorKey(connection);
    await expect(provider()).rejects.toMatchObject({ kind: "StorageError" });
    const afterFirst = connection.counter.total;
    expect(afterFirst).toBeGreaterThan(0);
    await expect(provider()).rejects.toMatchObject({ kind: "StorageError" });
    expect(connection.counter.total).toBeGreaterThan(afterFirst);
  });
});
