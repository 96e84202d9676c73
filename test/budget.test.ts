import { describe, expect, test } from "@jest/globals";

import { type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";

/**
 * Storage round trips per tool call, counted by the request-counting policy on the server's
 * TableClient. Counts are deterministic, unlike timings, so they are asserted exactly.
 */
let server: TestServer;
let mcp: McpTestClient;
withServerAndClient((started, client) => {
  server = started;
  mcp = client;
});

async function requestsOf(name: string, args: Record<string, unknown>): Promise<number> {
  const before = server.requests();
  ok(await mcp.call(name, args));
  return server.requests() - before;
}

describe("storage round trips per call", () => {
  test("upsert_entity: 2 (range read + one transaction), new or existing", async () => {
    const ws = uniqueWorkspace();
    expect(await requestsOf("upsert_entity", { workspaceName: ws, name: "A", entityType: "t", observations: ["1", "2", "3"] })).toBe(2);
    expect(
      await requestsOf("upsert_entity", { workspaceName: ws, name: "A", entityType: "t", observations: ["3", "4"], metadata: { k: 1 } }),
    ).toBe(2);
  });

  test("upsert_relation: 1 by names, 3 by ids (two parallel point reads + one transaction)", async () => {
    const ws = uniqueWorkspace();
    const a = ok<{ id: string }>(await mcp.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "t" }));
    const b = ok<{ id: string }>(await mcp.call("upsert_entity", { workspaceName: ws, name: "B", entityType: "t" }));
    expect(await requestsOf("upsert_relation", { workspaceName: ws, from: "A", to: "B", relationType: "r1" })).toBe(1);
    expect(await requestsOf("upsert_relation", { workspaceName: ws, fromEntityId: a.id, toEntityId: b.id, relationType: "r2" })).toBe(3);
    // Re-upserting an existing relation: the create transaction reports it exists, then one merge.
    expect(await requestsOf("upsert_relation", { workspaceName: ws, from: "A", to: "B", relationType: "r1", metadata: { w: 1 } })).toBe(2);
  });

  test("get_entity_relations: 1, whatever the entity holds", async () => {
    const ws = uniqueWorkspace();
    ok(
      await mcp.call("upsert_entity", {
        workspaceName: ws,
        name: "Hub",
        entityType: "t",
        observations: Array.from({ length: 40 }, (_, i) => `o${i}`),
      }),
    );
    for (const name of ["X", "Y", "Z"]) {
      ok(await mcp.call("upsert_entity", { workspaceName: ws, name, entityType: "t" }));
      ok(await mcp.call("upsert_relation", { workspaceName: ws, from: "Hub", to: name, relationType: "links" }));
    }
    for (const direction of ["out", "in", "both"]) {
      expect(await requestsOf("get_entity_relations", { workspaceName: ws, entityName: "Hub", direction })).toBe(1);
    }
  });

  test("read_graph: the index's build is one request per 1,000 rows, then one request (the feed tail)", async () => {
    const ws = uniqueWorkspace();
    // 2 entities x (1 entity row + 600 observation rows) = 1,202 rows: two pages. The writes registered the workspace, so
    // the first build ever of its index also claims the index generation on the registry row: one merge, once per
    // workspace (docs/search.md#freshness).
    const observations = Array.from({ length: 600 }, (_, i) => `fact ${i}`);
    for (const name of ["E1", "E2"]) ok(await mcp.call("upsert_entity", { workspaceName: ws, name, entityType: "t", observations }));
    expect(await requestsOf("read_graph", { workspaceName: ws })).toBe(2 + 1);
    expect(await requestsOf("read_graph", { workspaceName: ws })).toBe(1);
    // An empty workspace has no registry row: its build is the one empty page.
    expect(await requestsOf("read_graph", { workspaceName: uniqueWorkspace() })).toBe(1);
  });
});

describe("restore_entity", () => {
  test("2 reads in parallel, 1 create-if-absent transaction, 1 point read per other endpoint, create_relations, 2 per tag_* call", async () => {
    const ws = uniqueWorkspace();
    const call = (name: string, args: Record<string, unknown>) => mcp.call(name, { workspaceName: ws, ...args });
    ok(
      await call("create_entities", {
        entities: [
          { name: "Peer", entityType: "t", observations: [] },
          { name: "R", entityType: "t", observations: ["o1", "o2"] },
        ],
      }),
    );
    ok(await call("create_relations", { relations: [{ from: "R", to: "Peer", relationType: "r" }] }));
    ok(await call("tag_entity", { entityName: "R", tagNames: ["x"] }));
    ok(await call("delete_entities", { entityNames: ["R"] }));
    // 2 (entity point read + its history) + 1 (the entity with its observations) + 1 (Peer) + 1 (create_relations) + 2 (tag_entity): 8 before the restore created its entity only if absent (it read the entity range first, as upsert_entity does).
    expect(await requestsOf("restore_entity", { workspaceName: ws, entityName: "R" })).toBe(2 + 1 + 1 + 1 + 2);
  });
});

describe("large writes", () => {
  test("upsert_entity with 1,000 observations writes them in transactions of at most 100 operations", async () => {
    const ws = uniqueWorkspace();
    const observations = Array.from({ length: 1000 }, (_, i) => `fact ${i}`);
    // 1 range read + ceil((1 entity row + 1,000 observations) / 100) = 11 transactions (each later one repeats the entity guard).
    expect(await requestsOf("upsert_entity", { workspaceName: ws, name: "Big", entityType: "t", observations })).toBe(12);
    const graph = ok<{ entities: { observations: string[] }[] }>(await mcp.call("read_graph", { workspaceName: ws }));
    expect(graph.entities[0]!.observations).toEqual(observations);
  });
});

describe("structured log per tool call", () => {
  test("records tool, workspace, outcome, duration and the same storage request count, and never the contents", async () => {
    const ws = uniqueWorkspace();
    const secret = "the launch code is 0000";
    const before = server.requests();
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Logged", entityType: "t", observations: [secret] }));
    const counted = server.requests() - before;
    await mcp.call("get_entity_relations", { workspaceName: ws, entityName: "Nobody" });
    const lines = server.logs.filter((entry) => entry.workspace === ws);
    expect(lines).toEqual([
      { event: "tool_call", tool: "upsert_entity", workspace: ws, outcome: "ok", durationMs: expect.any(Number), storageRequests: counted },
      {
        event: "tool_call",
        tool: "get_entity_relations",
        workspace: ws,
        outcome: "NotFoundError",
        durationMs: expect.any(Number),
        storageRequests: 1,
      },
    ]);
    expect(JSON.stringify(server.logs)).not.toContain(secret);
  });
});
