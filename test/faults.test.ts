import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { AzureNamedKeyCredential, generateAccountSas, odata, TableServiceClient } from "@azure/data-tables";
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { readSettings } from "../src/config/settings.js";
import type { RunningServer } from "../src/local/nodeServer.js";
import type { StorageConnection } from "../src/storage/table/client.js";
import { type AzuriteProcess, startAzuriteProcess } from "./support/azurite.js";
import {
  connectClient,
  failed,
  type McpTestClient,
  ok,
  startTestServer,
  TEST_TABLE,
  type TestServer,
  uniqueWorkspace,
  withServerAndClient,
} from "./support/harness.js";
import type { GraphOut } from "./support/outputs.js";
import { rawTable } from "./support/rawRows.js";

/**
 * Storage outages, against a separate Azurite this file controls (the shared one must stay up for
 * the other suites). No timing assertions: each phase waits for a count of outcomes, and a call
 * that does not answer within HANG_MS counts as a hang, which fails the test.
 *
 * The server gets a small storage bound through the same parsing production uses:
 * MEMORY_STORAGE_TIMEOUT_MS=1000 per attempt, MEMORY_STORAGE_MAX_RETRIES=1. A call makes at most
 * 3 sequential storage round trips, so it answers within about 3 × 2 × (1 s + 1 s backoff) = 12 s
 * in the worst case; HANG_MS is well above that.
 */
const STORAGE_BOUND = readSettings({ MEMORY_STORAGE_TIMEOUT_MS: "1000", MEMORY_STORAGE_MAX_RETRIES: "1" }, "local").storageClient;
const HANG_MS = 30_000;

let location: string;
let azurite: AzuriteProcess;
let server: TestServer;
let mcp: McpTestClient;

beforeAll(async () => {
  // Data on disk, so a stop/start keeps what Azurite acknowledged (see AzuriteProcess.stop).
  location = mkdtempSync(join(tmpdir(), "central-memory-faults-"));
  azurite = await startAzuriteProcess({ location });
}, 60_000);

withServerAndClient(
  (started, client) => {
    server = started;
    mcp = client;
  },
  { server: () => ({ connectionString: azurite.connectionString, storage: STORAGE_BOUND }) },
);

// Declared after the fixture, so it runs after the fixture's server and client are closed.
afterAll(async () => {
  await azurite?.stop();
  if (location) rmSync(location, { recursive: true, force: true });
});

type Outcome = { kind: "ok" } | { kind: "StorageError" } | { kind: "unexpected"; detail: string };

/** One tool call, classified. Anything but success or a well-formed StorageError result is unexpected. */
async function attempt(name: string, args: Record<string, unknown>): Promise<Outcome> {
  let result: CallToolResult;
  try {
    result = (await mcp.client.callTool({ name, arguments: args }, undefined, { timeout: HANG_MS })) as CallToolResult;
  } catch (error) {
    // A JSON-RPC timeout (a hang) or an HTTP error status (e.g. a 5xx) surfaces here.
    return { kind: "unexpected", detail: `threw: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!result.isError) return { kind: "ok" };
  const structured = result.structuredContent as { success?: unknown; error?: unknown; message?: unknown } | undefined;
  const text = result.content[0]?.type === "text" ? result.content[0].text : "";
  const wellFormed = structured?.success === false && typeof structured.message === "string" && text === JSON.stringify(structured);
  if (wellFormed && structured.error === "StorageError") return { kind: "StorageError" };
  return { kind: "unexpected", detail: `result: ${JSON.stringify(result)}` };
}

/** Polls until `condition` holds. The bound only turns a stuck test into a clear failure. */
async function until(condition: () => boolean | Promise<boolean>, what: string, maxMs = 60_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What an operator (or an emulator crash before its autosave) does: removes the table the server already created. */
async function deleteTable(): Promise<void> {
  await rawTable(azurite.connectionString).deleteTable();
}

/** Asked of Azurite directly, not through the server. */
async function tableExists(name = TEST_TABLE): Promise<boolean> {
  const service = TableServiceClient.fromConnectionString(azurite.connectionString, { allowInsecureConnection: true });
  for await (const table of service.listTables({ queryOptions: { filter: odata`TableName eq ${name}` } }))
    if (table.name === name) return true;
  return false;
}

async function status(path: string): Promise<number> {
  return (await fetch(`${server.url}${path}`)).status;
}

/**
 * Writers that each call upsert_entity in a loop with a fresh observation, and remember exactly
 * which observations were reported as stored.
 */
function writeStream(workspace: string, writers: number) {
  const acknowledged = new Map<string, string[]>();
  const outcomes = { ok: 0, StorageError: 0, unexpected: [] as string[] };
  let running = true;
  const loops = Array.from({ length: writers }, async (_, writer) => {
    for (let i = 0; running; i++) {
      const name = `E${i % 3}`;
      const observation = `writer ${writer} write ${i}`;
      const outcome = await attempt("upsert_entity", {
        workspaceName: workspace,
        name,
        entityType: "fault-test",
        observations: [observation],
      });
      if (outcome.kind === "ok") {
        outcomes.ok += 1;
        acknowledged.set(name, [...(acknowledged.get(name) ?? []), observation]);
      } else if (outcome.kind === "StorageError") {
        outcomes.StorageError += 1;
        await new Promise((resolve) => setTimeout(resolve, 25)); // an outage fails fast; do not spin
      } else {
        outcomes.unexpected.push(outcome.detail);
      }
    }
  });
  return {
    acknowledged,
    outcomes,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Every acknowledged observation is stored, exactly once, on the entity it was written to. */
async function expectAllAcknowledgedPresent(workspace: string, acknowledged: Map<string, string[]>): Promise<void> {
  const graph = ok<GraphOut>(await mcp.call("read_graph", { workspaceName: workspace }));
  const stored = new Map(graph.entities.map((entity) => [entity.name, entity.observations]));
  for (const [name, observations] of acknowledged) {
    const present = stored.get(name) ?? [];
    expect(observations.filter((observation) => !present.includes(observation))).toEqual([]);
    expect(new Set(present).size).toBe(present.length);
  }
}

describe("storage outage", () => {
  test("readiness turns 503 while Azurite is down and 200 after it is back, with no service restart", async () => {
    expect(await status("/api/ready")).toBe(200);
    await azurite.stop("graceful");
    const down = await fetch(`${server.url}/api/ready`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: "unavailable", reason: "Table Storage is unreachable." });
    expect(await status("/api/health")).toBe(200);

    await azurite.start();
    // The same server instance, never restarted: it must notice storage is back by itself.
    await until(async () => (await status("/api/ready")) === 200, "readiness to recover");
    expect(await status("/api/ready")).toBe(200);
  }, 120_000);

  test("writes during a stop fail as StorageError results (no hang, no 5xx), the service recovers, and every acknowledged write is present", async () => {
    const workspace = uniqueWorkspace("fault");
    const stream = writeStream(workspace, 4);
    try {
      await until(() => stream.outcomes.ok >= 30, "30 writes before the outage");

      await azurite.stop("graceful");
      const failedBefore = stream.outcomes.StorageError;
      await until(() => stream.outcomes.StorageError >= failedBefore + 20, "20 failed writes during the outage");
      expect(await status("/api/health")).toBe(200);
      expect(await status("/api/ready")).toBe(503);

      await azurite.start();
      const okAfterRestart = stream.outcomes.ok;
      await until(() => stream.outcomes.ok >= okAfterRestart + 30, "30 writes after the restart");
    } finally {
      await stream.stop();
    }
    expect(stream.outcomes.unexpected).toEqual([]);
    expect(stream.outcomes.StorageError).toBeGreaterThanOrEqual(20);
    await expectAllAcknowledgedPresent(workspace, stream.acknowledged);
  }, 180_000);

  test("a frozen store (connections accepted, nothing answers) fails calls by the storage timeout, not a hang", async () => {
    const workspace = uniqueWorkspace("freeze");
    ok(
      await mcp.call("upsert_entity", {
        workspaceName: workspace,
        name: "Before",
        entityType: "t",
        observations: ["stored before the freeze"],
      }),
    );
    azurite.pause();
    let outcomes: Outcome[];
    try {
      // Concurrent calls of every core tool while nothing answers.
      outcomes = await Promise.all([
        attempt("upsert_entity", { workspaceName: workspace, name: "During", entityType: "t", observations: ["maybe"] }),
        attempt("upsert_relation", { workspaceName: workspace, from: "Before", to: "Before", relationType: "self" }),
        attempt("get_entity_relations", { workspaceName: workspace, entityName: "Before" }),
        attempt("read_graph", { workspaceName: workspace }),
      ]);
      expect(await status("/api/ready")).toBe(503);
      expect(await status("/api/health")).toBe(200);
    } finally {
      azurite.resume();
    }
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(["StorageError", "StorageError", "StorageError", "StorageError"]);

    await until(async () => (await status("/api/ready")) === 200, "readiness after the thaw");
    const graph = ok<GraphOut>(await mcp.call("read_graph", { workspaceName: workspace }));
    expect(graph.entities.find((entity) => entity.name === "Before")?.observations).toEqual(["stored before the freeze"]);
  }, 120_000);

  test("a table deleted under the running service is a StorageError on a read, and the next call creates it again", async () => {
    const workspace = uniqueWorkspace("lost");
    ok(await mcp.call("upsert_entity", { workspaceName: workspace, name: "Gone", entityType: "t" }));
    await deleteTable();

    // Not "entity not found": the agent must learn that storage, not its data, is the problem.
    const lost = await mcp.call("get_entity_relations", { workspaceName: workspace, entityName: "Gone" });
    expect(lost.structuredContent).toMatchObject({
      success: false,
      error: "StorageError",
      message: expect.stringMatching(/table does not exist/),
    });

    // The retry creates the table again: no restart needed. The data went with the table.
    ok(await mcp.call("upsert_entity", { workspaceName: workspace, name: "Back", entityType: "t", observations: ["after"] }));
    expect(await status("/api/ready")).toBe(200);
    const graph = ok<GraphOut>(await mcp.call("read_graph", { workspaceName: workspace }));
    expect(graph.entities).toEqual([expect.objectContaining({ name: "Back", observations: ["after"] })]);
  }, 60_000);

  test("a table deleted under the running service is a StorageError on a transactional write, and the next call creates it again", async () => {
    const workspace = uniqueWorkspace("lostbatch");
    ok(await mcp.call("upsert_entity", { workspaceName: workspace, name: "Gone", entityType: "t" }));
    await deleteTable();

    // By names, upsert_relation goes straight to one entity-group transaction: the service answers 202
    // with TableNotFound inside the batch body, which the SDK throws only after the HTTP pipeline.
    const lost = failed(await mcp.call("upsert_relation", { workspaceName: workspace, from: "A", to: "B", relationType: "knows" }));
    expect(lost).toEqual({ success: false, error: "StorageError", message: expect.stringMatching(/table does not exist/) });

    // create_entities is a transaction too: it must not keep failing until a restart.
    ok(
      await mcp.call("create_entities", {
        workspaceName: workspace,
        entities: [
          { name: "A", entityType: "t", observations: ["a1"] },
          { name: "B", entityType: "t", observations: [] },
        ],
      }),
    );
    ok(await mcp.call("upsert_relation", { workspaceName: workspace, from: "A", to: "B", relationType: "knows" }));
    const graph = ok<GraphOut & { relations: { from: string; to: string; relationType: string }[] }>(
      await mcp.call("read_graph", { workspaceName: workspace }),
    );
    expect(graph.entities.map((entity) => [entity.name, entity.observations]).sort()).toEqual([
      ["A", ["a1"]],
      ["B", []],
    ]);
    expect(graph.relations).toEqual([expect.objectContaining({ from: "A", to: "B", relationType: "knows" })]);
  }, 60_000);

  test("readiness finds a table deleted under the running service and creates it again", async () => {
    const workspace = uniqueWorkspace("lostready");
    ok(await mcp.call("upsert_entity", { workspaceName: workspace, name: "Gone", entityType: "t" }));
    await deleteTable();
    expect(await tableExists()).toBe(false);

    // A load balancer that only sends traffic to ready instances would otherwise never let a call through to create it.
    const ready = await fetch(`${server.url}/api/ready`);
    expect(await ready.json()).toEqual({ status: "ready" });
    expect(ready.status).toBe(200);
    expect(await tableExists()).toBe(true);
    const graph = ok<GraphOut>(await mcp.call("read_graph", { workspaceName: workspace }));
    expect(graph.entities).toEqual([]);
  }, 60_000);
});

describe("readiness on an account without the table", () => {
  /** A server as Azure Functions runs it: nothing creates the table at start-up. */
  async function serverWithoutTable(
    connectionString: string,
    tableName: string,
  ): Promise<{ storage: StorageConnection; server: RunningServer }> {
    // Bound to loopback, as `npm start` is by default.
    const server = await startTestServer({
      connectionString,
      tableName,
      createTable: false,
      storage: STORAGE_BOUND,
      env: { HOST: "127.0.0.1" },
    });
    return { storage: server.app.storage, server };
  }

  const freshTableName = () => `fresh${randomBytes(6).toString("hex")}`;

  test("/api/ready creates the missing table and answers 200; a burst of probes creates it once", async () => {
    const tableName = freshTableName();
    const { storage, server: fresh } = await serverWithoutTable(azurite.connectionString, tableName);
    try {
      expect(await tableExists(tableName)).toBe(false);
      const before = storage.counter.total;
      const answers = await Promise.all(Array.from({ length: 5 }, () => fetch(`${fresh.url}/api/ready`)));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
      expect(await Promise.all(answers.map((answer) => answer.json()))).toEqual(Array(5).fill({ status: "ready" }));
      // The counted client makes only the create (the probe's own reads go through a client without the counter).
      expect(storage.counter.total - before).toBe(1);
      expect(await tableExists(tableName)).toBe(true);

      // Created through the connection's ensureTable, so tool calls work against it at once.
      const client = await connectClient(fresh.url);
      try {
        ok(await client.call("upsert_entity", { workspaceName: uniqueWorkspace("fresh"), name: "First", entityType: "t" }));
      } finally {
        await client.close();
      }
    } finally {
      await fresh.close();
    }
  }, 60_000);

  test("a table that cannot be created (no permission) is 503 with what the operator should check, never the service's text", async () => {
    const tableName = freshTableName();
    // An account SAS that may read and list, but not create: what an identity without a data-contributor role gets.
    const key = /AccountKey=([^;]+)/.exec(azurite.connectionString)![1]!;
    const endpoint = /TableEndpoint=([^;]+)/.exec(azurite.connectionString)![1]!;
    const sas = generateAccountSas(new AzureNamedKeyCredential("devstoreaccount1", key), { permissions: { query: true, list: true } });
    const { server: readOnly } = await serverWithoutTable(`TableEndpoint=${endpoint};SharedAccessSignature=${sas}`, tableName);
    try {
      const ready = await fetch(`${readOnly.url}/api/ready`);
      expect(ready.status).toBe(503);
      const body = (await ready.json()) as { status: string; reason: string };
      expect(body).toEqual({
        status: "unavailable",
        reason: expect.stringMatching(/could not be created\. Check MEMORY_TABLE_NAME.*Storage Table Data Contributor/),
      });
      expect(body.reason).not.toMatch(/Authoriz|RequestId|permission to perform/i);
      expect(await tableExists(tableName)).toBe(false);
    } finally {
      await readOnly.close();
    }
  }, 60_000);
});
