import { describe, expect, test } from "@jest/globals";

import { entityId } from "../src/domain/model/ids.js";
import { failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import type { GraphOut } from "./support/outputs.js";
import { injectRaces, type RaceInjector } from "./support/raceInjector.js";
import { partitionRows, rawTable } from "./support/rawRows.js";

/** Versions and expectedVersion (docs/curate.md#versions), through MCP, checked on the raw rows. */
let server: TestServer;
let mcp: McpTestClient;
withServerAndClient((started, client) => {
  server = started;
  mcp = client;
});

const rawRows = (ws: string) => partitionRows(server.app.storage.table, ws, ["event"]);

type Upserted = { version: string };
let races: RaceInjector | undefined;
describe("versions", () => {
  test("a write that lands between the version check and the write makes it a conflict (If-Match), and nothing of it is written", async () => {
    const ws = uniqueWorkspace();
    const { version } = ok<Upserted>(await mcp.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "t0" }));
    const other = rawTable();
    const raced = "1111111111111111";
    races ??= injectRaces(server.app.storage.table);
    races.beforeNextTransaction(async () => {
      await other.updateEntity({ partitionKey: ws, rowKey: entityId(ws, "A"), entityType: "raced", version: raced }, "Merge");
    });
    const error = failed(
      await mcp.call("upsert_entity", {
        workspaceName: ws,
        name: "A",
        entityType: "mine",
        observations: ["mine"],
        expectedVersion: version,
      }),
    ) as ReturnType<typeof failed> & { currentVersion?: string };
    expect([error.error, error.currentVersion]).toEqual(["ConflictError", raced]);
    const rows = await rawRows(ws);
    expect(rows.find((row) => row.kind === "entity")).toMatchObject({ entityType: "raced", version: raced });
    expect(rows.filter((row) => row.kind === "observation")).toEqual([]);
  });

  test("reads return the version a write left; observations do not change it", async () => {
    const ws = uniqueWorkspace();
    const first = ok<Upserted>(await mcp.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "person" }));
    expect(first.version).toMatch(/^[0-9a-f]{16}$/);
    ok(await mcp.call("add_observations", { workspaceName: ws, observations: [{ entityName: "A", contents: ["x"] }] }));
    let graph = ok<GraphOut>(await mcp.call("read_graph", { workspaceName: ws }));
    expect(graph.entities[0]!.version).toBe(first.version);
    const second = ok<Upserted>(await mcp.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "human" }));
    expect(second.version).not.toBe(first.version);
    graph = ok<GraphOut>(await mcp.call("read_graph", { workspaceName: ws }));
    expect(graph.entities[0]!.version).toBe(second.version);
  });

  test("20 concurrent upsert_entity with one expectedVersion: exactly one applies, the others get the version that won", async () => {
    const ws = uniqueWorkspace();
    const { version } = ok<Upserted>(await mcp.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "t0" }));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        mcp.call("upsert_entity", { workspaceName: ws, name: "A", entityType: `t${i + 1}`, expectedVersion: version }),
      ),
    );
    const winners = results.filter((result) => !result.isError);
    expect(winners).toHaveLength(1);
    const won = ok<Upserted & { id: string }>(winners[0]!);
    for (const result of results.filter((r) => r.isError)) {
      const error = failed(result) as ReturnType<typeof failed> & { currentVersion?: string };
      expect(error.error).toBe("ConflictError");
      expect(error.currentVersion).toBe(won.version);
      expect(error.message).toMatch(/Re-read it/);
    }
    const entity = (await rawRows(ws)).find((row) => row.kind === "entity")!;
    expect(entity.version).toBe(won.version);
    const winnerType = `t${results.indexOf(winners[0]!) + 1}`;
    expect(entity.entityType).toBe(winnerType);
  });

  test("a stale or malformed expectedVersion writes nothing; on a missing entity the current version is null", async () => {
    const ws = uniqueWorkspace();
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "t", observations: ["o"] }));
    const before = await rawRows(ws);
    const stale = failed(
      await mcp.call("upsert_entity", {
        workspaceName: ws,
        name: "A",
        entityType: "u",
        expectedVersion: "0123456789abcdef",
        observations: ["new"],
      }),
    );
    expect(stale.error).toBe("ConflictError");
    const malformed = failed(await mcp.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "u", expectedVersion: "v1" }));
    expect(malformed.error).toBe("ValidationError");
    expect(malformed.message).toMatch(/expectedVersion/);
    const missing = failed(
      await mcp.call("upsert_entity", { workspaceName: ws, name: "B", entityType: "u", expectedVersion: "0123456789abcdef" }),
    );
    expect((missing as { currentVersion?: unknown }).currentVersion).toBeNull();
    expect(await rawRows(ws)).toEqual(before);
  });

  test("upsert_relation with expectedVersion: applies on the stored version, refuses a stale one", async () => {
    const ws = uniqueWorkspace();
    for (const name of ["A", "B"]) ok(await mcp.call("upsert_entity", { workspaceName: ws, name, entityType: "t" }));
    const first = ok<Upserted>(await mcp.call("upsert_relation", { workspaceName: ws, from: "A", to: "B", relationType: "knows" }));
    const listed = ok<{ relations: { version: string }[] }>(await mcp.call("get_entity_relations", { workspaceName: ws, entityName: "A" }));
    expect(listed.relations[0]!.version).toBe(first.version);
    const args = { workspaceName: ws, from: "A", to: "B", relationType: "knows", metadata: { w: 1 } };
    const second = ok<Upserted>(await mcp.call("upsert_relation", { ...args, expectedVersion: first.version }));
    const before = await rawRows(ws);
    const stale = failed(await mcp.call("upsert_relation", { ...args, metadata: { w: 2 }, expectedVersion: first.version }));
    expect(stale.error).toBe("ConflictError");
    expect((stale as { currentVersion?: string }).currentVersion).toBe(second.version);
    expect(await rawRows(ws)).toEqual(before);
    const relationRows = before.filter((row) => row.relationId !== undefined);
    expect(relationRows.map((row) => row.version)).toEqual([second.version, second.version, second.version]);
  });
});
