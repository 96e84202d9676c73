import { randomBytes } from "node:crypto";

import { type TableClient } from "@azure/data-tables";
import { beforeAll, describe, expect, test } from "@jest/globals";

import { hashApiKey } from "../src/http/auth/apiKeyVerifier.js";
import { runCliCaptured } from "./support/cli.js";
import { failed, type McpTestClient, ok, testConnectionString, type TestServer, withTestServers } from "./support/harness.js";
import { partitionRows } from "./support/rawRows.js";

/**
 * The workspace registry, list_workspaces and delete_workspace through real SDK clients with API
 * keys (a prefix grant, a read-only key), checked against the raw table; and `central-memory workspaces`.
 */
const prefix = `wsp${randomBytes(4).toString("hex")}`;
const [A, B, C] = [`${prefix}-a`, `${prefix}-b`, `${prefix}-c`];
const KEYS = { admin: "admin-key-0123456789", writer: "writer-key-0123456789", reader: "reader-key-0123456789", one: "one-key-0123456789" };
const ENTRIES = [
  { id: "admin", sha256: hashApiKey(KEYS.admin), workspaces: ["*"], access: "write" },
  { id: "writer", sha256: hashApiKey(KEYS.writer), workspaces: [`${prefix}-*`], access: "write" },
  { id: "reader", sha256: hashApiKey(KEYS.reader), workspaces: [`${prefix}-*`], access: "read" },
  { id: "one", sha256: hashApiKey(KEYS.one), workspaces: [B], access: "read" },
];
// A table of this file's own: `workspaces list --discover` scans every partition of its table, and the shared test table
// holds every other file's workspaces (on a loaded machine that scan alone outlasted the test's timeout).
const TABLE = `Wsp${randomBytes(6).toString("hex")}`;
const bearer = (key: string) => ({ headers: { Authorization: `Bearer ${key}` } });

let server: TestServer;
let table: TableClient;
let admin: McpTestClient;
let writer: McpTestClient;
let reader: McpTestClient;
let one: McpTestClient;

withTestServers(
  {
    servers: { server: { tableName: TABLE, env: { MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify(ENTRIES) } } },
    clients: { admin: bearer(KEYS.admin), writer: bearer(KEYS.writer), reader: bearer(KEYS.reader), one: bearer(KEYS.one) },
  },
  (started) => {
    ({ server, admin, writer, reader, one } = started);
    table = server.app.storage.table;
  },
);

/** The CLI on this file's table. */
const cli = (args: string[]) =>
  runCliCaptured(args, { env: { MEMORY_STORAGE_CONNECTION_STRING: testConnectionString(), MEMORY_TABLE_NAME: TABLE } });

/** Every row of a partition, straight from the table. */
const rawRows = (workspace: string) => partitionRows(table, workspace);

async function seed(workspace: string, entities: number): Promise<void> {
  const names = Array.from({ length: entities }, (_, i) => `n${i}`);
  ok(
    await admin.call("create_entities", {
      workspaceName: workspace,
      entities: names.map((name) => ({ name, entityType: "t", observations: [`${name} fact`] })),
    }),
  );
  if (entities > 1) {
    ok(
      await admin.call("create_relations", {
        workspaceName: workspace,
        relations: names.slice(1).map((name) => ({ from: names[0], to: name, relationType: "r" })),
      }),
    );
  }
}

interface Listing {
  workspaces: { workspaceName: string; access: "read" | "write"; entities: number; lastWriteAt?: string }[];
}
const ours = (listing: Listing) => listing.workspaces.filter((w) => w.workspaceName.startsWith(prefix));

describe("the registry", () => {
  test("a workspace's first write registers it in the transaction it already makes (no extra request)", async () => {
    const before = server.requests();
    ok(await admin.call("upsert_entity", { workspaceName: A, name: "first", entityType: "t" }));
    // upsert_entity's budget: one range read and one transaction (test/budget.test.ts), registration included.
    expect(server.requests() - before).toBe(2);
    const registry = (await rawRows(A)).filter((row) => row.rowKey === "~workspace");
    expect(registry).toEqual([expect.objectContaining({ kind: "workspace", registeredAt: expect.any(String) })]);
  });

  test("an atomic batch into a fresh workspace registers it like any other write: list_workspaces shows it, no other write made", async () => {
    const fresh = `atomic-${prefix}`; // outside the prefix the other tests list
    const before = server.requests();
    ok(
      await admin.call("execute_batch", {
        workspaceName: fresh,
        atomic: true,
        operations: [{ op: "upsert_entity", args: { name: "only", entityType: "t", observations: ["written in one batch"] } }],
      }),
    );
    // The atomic batch's budget: one range read per entity named, then one transaction (registration included).
    expect(server.requests() - before).toBe(2);
    const listed = ok<Listing>(await admin.call("list_workspaces", {})).workspaces.find((w) => w.workspaceName === fresh);
    expect(listed).toMatchObject({ workspaceName: fresh, access: "write", entities: 1 });
  });
});

describe("list_workspaces", () => {
  beforeAll(async () => {
    await seed(A, 3);
    await seed(B, 5);
  });

  test("a prefix write key sees the granted workspaces with entity counts and last write; one query plus one per workspace", async () => {
    const started = new Date(Date.now() - 60_000).toISOString();
    const before = server.requests();
    const listing = ok<Listing>(await writer.call("list_workspaces", {}));
    expect(server.requests() - before).toBe(1 + 2);
    expect(listing.workspaces.map((w) => w.workspaceName)).toEqual([A, B]);
    expect(listing.workspaces.map(({ workspaceName, access, entities }) => ({ workspaceName, access, entities }))).toEqual([
      { workspaceName: A, access: "write", entities: 4 },
      { workspaceName: B, access: "write", entities: 5 },
    ]);
    for (const w of listing.workspaces) expect(w.lastWriteAt! > started).toBe(true);
    // The last write is the newest event's time.
    const events = (await rawRows(B)).filter((row) => row.kind === "event").map((row) => String(row.at));
    expect(listing.workspaces[1]!.lastWriteAt).toBe(events.sort().at(-1));
  });

  test("a read-only key sees them with read access; an exact-name key sees only its workspace; the admin sees all of them", async () => {
    expect(ok<Listing>(await reader.call("list_workspaces", {})).workspaces.map((w) => [w.workspaceName, w.access])).toEqual([
      [A, "read"],
      [B, "read"],
    ]);
    expect(ok<Listing>(await one.call("list_workspaces", {})).workspaces.map((w) => w.workspaceName)).toEqual([B]);
    expect(ours(ok<Listing>(await admin.call("list_workspaces", {}))).map((w) => w.workspaceName)).toEqual([A, B]);
  });

  test("it takes no workspaceName", async () => {
    const tools = await writer.client.listTools();
    const listed = tools.tools.find((tool) => tool.name === "list_workspaces")!;
    expect(Object.keys(listed.inputSchema.properties ?? {})).toEqual([]);
  });
});

describe("delete_workspace", () => {
  test("refuses a wrong confirm and a read-only caller, and changes nothing", async () => {
    await seed(C, 4);
    const rowsBefore = await rawRows(C);
    const wrong = failed(await writer.call("delete_workspace", { workspaceName: C, confirm: `${C}x` }));
    expect(wrong).toMatchObject({ error: "ValidationError", message: expect.stringContaining("confirm must repeat the workspace name") });
    const readOnly = failed(await reader.call("delete_workspace", { workspaceName: C, confirm: C }));
    expect(readOnly.error).toBe("ForbiddenError");
    expect(await rawRows(C)).toEqual(rowsBefore);
  });

  test("deletes every row of the partition in transactions of at most 100, leaves other workspaces as they were, and is recorded", async () => {
    const rows = await rawRows(C);
    expect(rows.length).toBeGreaterThan(4);
    const neighbour = await rawRows(B);
    const before = server.requests();
    const done = ok<{ rowsDeleted: number }>(await writer.call("delete_workspace", { workspaceName: C, confirm: C }));
    // The registry row marked as being deleted, one key-only query, ceil(rows / 100) transactions, one more query that finds
    // the partition empty, one key-only query of the workspace's kept vectors (none, with the packaged model), the registry
    // row's delete, and the record.
    expect(server.requests() - before).toBe(1 + 1 + Math.ceil((rows.length - 1) / 100) + 1 + 1 + 1 + 1);
    expect(done.rowsDeleted).toBe(rows.length);
    expect(await rawRows(C)).toEqual([]);
    expect(await rawRows(B)).toEqual(neighbour);
    expect(ok<Listing>(await writer.call("list_workspaces", {})).workspaces.map((w) => w.workspaceName)).toEqual([A, B]);
    // Again: nothing left to delete, and that is fine.
    expect(ok<{ rowsDeleted: number }>(await writer.call("delete_workspace", { workspaceName: C, confirm: C })).rowsDeleted).toBe(0);
    const log = await cli(["workspaces", "list", "--deleted", "--json"]);
    const mine = (JSON.parse(log.stdout) as { workspace: string; principal: string; tool: string; rowsDeleted: number }[]).filter(
      (d) => d.workspace === C,
    );
    expect(mine).toEqual([
      expect.objectContaining({ principal: "key:writer", tool: "delete_workspace", rowsDeleted: rows.length }),
      expect.objectContaining({ principal: "key:writer", tool: "delete_workspace", rowsDeleted: 0 }),
    ]);
  });

  test("a deleted workspace written again is registered again", async () => {
    ok(await admin.call("upsert_entity", { workspaceName: C, name: "again", entityType: "t" }));
    expect(ours(ok<Listing>(await admin.call("list_workspaces", {}))).map((w) => [w.workspaceName, w.entities])).toEqual([
      [A, 4],
      [B, 5],
      [C, 1],
    ]);
  });

  test("more rows than one transaction holds: every row goes, in several transactions", async () => {
    const big = `${prefix}-big`;
    await seed(big, 60); // 60 entities, 60 observations, 59 relations x 3 rows, events, the registry row
    const rows = await rawRows(big);
    expect(rows.length).toBeGreaterThan(300);
    const before = server.requests();
    ok(await admin.call("delete_workspace", { workspaceName: big, confirm: big }));
    // As above, with the key-only query of the kept vectors.
    expect(server.requests() - before).toBe(1 + 1 + Math.ceil((rows.length - 1) / 100) + 1 + 1 + 1 + 1);
    expect(await rawRows(big)).toEqual([]);
  });
});

describe("central-memory workspaces", () => {
  test("list shows registered workspaces; --discover registers a workspace written before the registry existed", async () => {
    const old = `${prefix}-old`;
    await seed(old, 2);
    // As if written before the registry: its registry row is not there.
    await table.deleteEntity(old, "~workspace");
    let listed = await cli(["workspaces", "list", "--json"]);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { workspaceName: string }[]).map((w) => w.workspaceName)).not.toContain(old);
    const discovered = await cli(["workspaces", "list", "--discover"]);
    expect(discovered.code).toBe(0);
    expect(discovered.stderr).toContain(old);
    expect(discovered.stdout).toMatch(new RegExp(`${old}\\s+2\\s+\\d{4}-`));
    listed = await cli(["workspaces", "list", "--json"]);
    // The same field names as the list_workspaces tool.
    expect(JSON.parse(listed.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ workspaceName: old, entities: 2 })]));
  });

  test("delete refuses without --yes when there is no terminal; with --yes it deletes", async () => {
    const doomed = `${prefix}-doomed`;
    await seed(doomed, 2);
    const refused = await cli(["workspaces", "delete", doomed]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("without confirmation");
    expect((await rawRows(doomed)).length).toBeGreaterThan(0);
    const deleted = await cli(["workspaces", "delete", doomed, "--yes"]);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toContain(`Deleted workspace '${doomed}'`);
    expect(await rawRows(doomed)).toEqual([]);
  });

  test("copy copies the graph (observations, relations, tags, metadata) and refuses a non-empty target", async () => {
    const [source, target] = [`${prefix}-src`, `${prefix}-dst`];
    await seed(source, 3);
    ok(await admin.call("upsert_entity", { workspaceName: source, name: "n1", entityType: "t", metadata: { owner: "ops" } }));
    ok(await admin.call("tag_entity", { workspaceName: source, entityName: "n2", tagNames: ["important"] }));
    const copied = await cli(["workspaces", "copy", source, target]);
    expect(copied.code).toBe(0);
    expect(copied.stdout).toContain("History is not copied");
    const [a, b] = await Promise.all([source, target].map((ws) => admin.call("read_graph", { workspaceName: ws })));
    const strip = (graph: { entities: Record<string, unknown>[]; relations: Record<string, unknown>[] }) => ({
      entities: graph.entities.map(({ name, entityType, observations, metadata, tags }) => ({
        name,
        entityType,
        observations,
        metadata,
        tags,
      })),
      relations: graph.relations.map(({ from, to, relationType, metadata }) => ({ from, to, relationType, metadata })),
    });
    const original = strip(ok(a!) as never);
    expect(strip(ok(b!) as never)).toEqual(original);
    expect(original.entities.find((e) => e.name === "n1")!.metadata).toEqual({ owner: "ops" });
    const again = await cli(["workspaces", "copy", source, target]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("is not empty");
  });
});
