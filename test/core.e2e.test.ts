import { describe, expect, test } from "@jest/globals";

import { connectClient, failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import type { GraphOut } from "./support/outputs.js";

let server: TestServer;
let mcp: McpTestClient;
withServerAndClient((started, client) => {
  server = started;
  mcp = client;
});

describe("tools/list", () => {
  test("lists the four core tools with schemas and annotations", async () => {
    const { tools } = await mcp.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()]).toEqual(expect.arrayContaining(["upsert_entity", "upsert_relation", "get_entity_relations", "read_graph"]));
    const upsert = byName.get("upsert_entity")!;
    expect(upsert.inputSchema.required).toEqual(expect.arrayContaining(["workspaceName", "name", "entityType"]));
    expect(upsert.outputSchema?.type).toBe("object");
    expect(upsert.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(byName.get("read_graph")!.annotations).toMatchObject({ readOnlyHint: true });
    expect(upsert.description!.length).toBeGreaterThan(40);
  });

  test("the bound route makes workspaceName optional", async () => {
    const bound = await connectClient(server.url, `/api/workspaces/${uniqueWorkspace()}/mcp`);
    const { tools } = await bound.client.listTools();
    const upsert = tools.find((t) => t.name === "upsert_entity")!;
    expect(upsert.inputSchema.required).not.toContain("workspaceName");
    await bound.close();
  });
});

describe("upsert_entity", () => {
  test("creates, then updates by name, merging observations and replacing type and metadata", async () => {
    const ws = uniqueWorkspace();
    const first = ok(
      await mcp.call("upsert_entity", {
        workspaceName: ws,
        name: "Alice",
        entityType: "person",
        observations: ["likes tea", "lives in Oslo"],
        metadata: { team: "a" },
      }),
    );
    expect(first).toMatchObject({ success: true, workspace: ws, name: "Alice", created: true });
    expect(first.id).toMatch(/^[0-9a-f-]{36}$/);

    const second = ok(
      await mcp.call("upsert_entity", {
        workspaceName: ws,
        name: "Alice",
        entityType: "engineer",
        observations: ["likes tea", "speaks Norwegian"],
        metadata: '{"team":"b"}',
      }),
    );
    expect(second).toMatchObject({ id: first.id, created: false });

    const graph = ok<GraphOut>(await mcp.call("read_graph", { workspaceName: ws }));
    expect(graph.entities).toEqual([
      {
        id: first.id,
        name: "Alice",
        entityType: "engineer",
        observations: ["likes tea", "lives in Oslo", "speaks Norwegian"],
        metadata: { team: "b" },
        createdBy: "anonymous",
        updatedBy: "anonymous",
        version: second.version,
      },
    ]);
  });

  test("an upsert without observations or metadata keeps the stored ones", async () => {
    const ws = uniqueWorkspace();
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Bob", entityType: "person", observations: ["x"], metadata: { k: 1 } }));
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Bob", entityType: "person" }));
    const graph = ok<GraphOut>(await mcp.call("read_graph", { workspaceName: ws }));
    expect(graph.entities[0]).toMatchObject({ observations: ["x"], metadata: { k: 1 } });
  });

  test.each([
    ["an array", [1, 2]],
    ["a number", 42],
    ["a string that is not JSON", "not json"],
    ["a string holding an array", "[1,2]"],
  ])("metadata as %s is a ValidationError and writes nothing", async (_label, metadata) => {
    const ws = uniqueWorkspace();
    const error = failed(await mcp.call("upsert_entity", { workspaceName: ws, name: "Carol", entityType: "person", metadata }));
    expect(error.error).toBe("ValidationError");
    expect(error.message).toMatch(/metadata/);
    expect(ok<GraphOut>(await mcp.call("read_graph", { workspaceName: ws })).entities).toEqual([]);
  });

  test("missing required fields are a ValidationError naming the field", async () => {
    const error = failed(await mcp.call("upsert_entity", { workspaceName: uniqueWorkspace(), name: "Dan" }));
    expect(error).toMatchObject({ success: false, error: "ValidationError" });
    expect(error.message).toMatch(/entityType/);
  });
});

describe("upsert_relation", () => {
  test("links by name and by id, returns the ids, and never duplicates", async () => {
    const ws = uniqueWorkspace();
    const alice = ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Alice", entityType: "person" }));
    const proj = ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Apollo", entityType: "project" }));

    const byName = ok(
      await mcp.call("upsert_relation", {
        workspaceName: ws,
        from: "Alice",
        to: "Apollo",
        relationType: "works_on",
        metadata: { since: 2024 },
      }),
    );
    expect(byName).toMatchObject({ success: true, workspace: ws, fromEntityId: alice.id, toEntityId: proj.id, relationType: "works_on" });

    const byId = ok(
      await mcp.call("upsert_relation", {
        workspaceName: ws,
        fromEntityId: alice.id,
        toEntityId: proj.id,
        relationType: "works_on",
        metadata: { since: 2025 },
      }),
    );
    expect(byId.relationId).toBe(byName.relationId);

    const graph = ok<GraphOut>(await mcp.call("read_graph", { workspaceName: ws }));
    expect(graph.relations).toEqual([
      {
        id: byName.relationId,
        from: "Alice",
        to: "Apollo",
        fromEntityId: alice.id,
        toEntityId: proj.id,
        relationType: "works_on",
        metadata: { since: 2025 },
        createdBy: "anonymous",
        updatedBy: "anonymous",
        version: expect.stringMatching(/^[0-9a-f]{16}$/),
      },
    ]);
  });

  test("a missing source or target is named in the error, and nothing is written", async () => {
    const ws = uniqueWorkspace();
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Alice", entityType: "person" }));
    const source = failed(await mcp.call("upsert_relation", { workspaceName: ws, from: "Ghost", to: "Alice", relationType: "knows" }));
    expect(source.error).toBe("NotFoundError");
    expect(source.message).toMatch(/^Source entity 'Ghost' not found\./);
    const target = failed(await mcp.call("upsert_relation", { workspaceName: ws, from: "Alice", to: "Nobody", relationType: "knows" }));
    expect(target.message).toMatch(/^Target entity 'Nobody' not found\./);
    const byId = failed(
      await mcp.call("upsert_relation", {
        workspaceName: ws,
        fromEntityId: "00000000-0000-5000-8000-000000000000",
        to: "Alice",
        relationType: "knows",
      }),
    );
    expect(byId.message).toMatch(/^Source entity '00000000-0000-5000-8000-000000000000' not found\./);
    expect(ok<GraphOut>(await mcp.call("read_graph", { workspaceName: ws })).relations).toEqual([]);
  });

  test("an endpoint must be given", async () => {
    const error = failed(await mcp.call("upsert_relation", { workspaceName: uniqueWorkspace(), to: "A", relationType: "knows" }));
    expect(error).toMatchObject({ error: "ValidationError" });
    expect(error.message).toMatch(/source/i);
  });

  test("a self-relation works", async () => {
    const ws = uniqueWorkspace();
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Loop", entityType: "thing" }));
    ok(await mcp.call("upsert_relation", { workspaceName: ws, from: "Loop", to: "Loop", relationType: "refers_to" }));
    const both = ok<{ relations: unknown[] }>(
      await mcp.call("get_entity_relations", { workspaceName: ws, entityName: "Loop", direction: "both" }),
    );
    expect(both.relations).toHaveLength(1);
  });
});

describe("get_entity_relations", () => {
  test("returns out (default), in and both directions", async () => {
    const ws = uniqueWorkspace();
    for (const name of ["A", "B", "C"]) ok(await mcp.call("upsert_entity", { workspaceName: ws, name, entityType: "node" }));
    ok(await mcp.call("upsert_relation", { workspaceName: ws, from: "A", to: "B", relationType: "calls", metadata: { weight: 2 } }));
    ok(await mcp.call("upsert_relation", { workspaceName: ws, from: "C", to: "A", relationType: "calls" }));

    const out = ok<{ entityId: string; workspaceName: string; relations: Record<string, unknown>[] }>(
      await mcp.call("get_entity_relations", { workspaceName: ws, entityName: "A" }),
    );
    expect(out.workspaceName).toBe(ws);
    expect(out.relations).toEqual([
      expect.objectContaining({ fromName: "A", toName: "B", relationType: "calls", fromEntityId: out.entityId, metadata: { weight: 2 } }),
    ]);
    const incoming = ok<{ relations: Record<string, unknown>[] }>(
      await mcp.call("get_entity_relations", { workspaceName: ws, entityId: out.entityId, direction: "in" }),
    );
    expect(incoming.relations.map((r) => r.fromName)).toEqual(["C"]);
    const both = ok<{ relations: Record<string, unknown>[] }>(
      await mcp.call("get_entity_relations", { workspaceName: ws, entityName: "A", direction: "both" }),
    );
    expect(both.relations).toHaveLength(2);
  });

  test("an unknown entity is a NotFoundError with the exact message", async () => {
    const error = failed(await mcp.call("get_entity_relations", { workspaceName: "demo-missing-x", entityName: "Alice" }));
    expect(error).toEqual({ success: false, error: "NotFoundError", message: "Entity 'Alice' not found in workspace 'demo-missing-x'." });
  });

  test("an entity with no relations returns an empty list, not an error", async () => {
    const ws = uniqueWorkspace();
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Lonely", entityType: "node", observations: ["o1"] }));
    expect(
      ok<{ relations: unknown[] }>(await mcp.call("get_entity_relations", { workspaceName: ws, entityName: "Lonely" })).relations,
    ).toEqual([]);
  });
});

describe("read_graph", () => {
  test("keeps observations in the order they were added, across calls", async () => {
    const ws = uniqueWorkspace();
    const added = Array.from({ length: 12 }, (_, i) => `fact ${String.fromCharCode(122 - i)}`);
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "E", entityType: "t", observations: added.slice(0, 6) }));
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "E", entityType: "t", observations: added.slice(6) }));
    expect(ok<GraphOut>(await mcp.call("read_graph", { workspaceName: ws })).entities[0]!.observations).toEqual(added);
  });
});

describe("the bound route /api/workspaces/{ws}/mcp", () => {
  test("acts on its workspace without workspaceName, and refuses a different one", async () => {
    const ws = uniqueWorkspace();
    const bound = await connectClient(server.url, `/api/workspaces/${ws}/mcp`);
    ok(await bound.call("upsert_entity", { name: "Bound", entityType: "t" }));
    ok(await bound.call("upsert_entity", { name: "Bound2", entityType: "t", workspaceName: ws }));
    const mismatch = failed(await bound.call("read_graph", { workspaceName: "other" }));
    expect(mismatch.error).toBe("ValidationError");
    expect(mismatch.message).toMatch(/bound to workspace/);
    const viaUnbound = ok<GraphOut>(await mcp.call("read_graph", { workspaceName: ws }));
    expect(viaUnbound.entities.map((e) => e.name).sort()).toEqual(["Bound", "Bound2"]);
    await bound.close();
  });

  test("an invalid workspace in the URL is a 400 ValidationError", async () => {
    const response = await fetch(`${server.url}/api/workspaces/${"x".repeat(64)}/mcp`, { method: "POST", body: "{}" });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "ValidationError" });
  });
});

describe("HTTP surface", () => {
  test.each(["/api/mcp", "/api/workspaces/demo/mcp"])("GET and DELETE on %s answer 405 with Allow: POST", async (path) => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(`${server.url}${path}`, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
    }
  });

  test("health is 200 with status and version", async () => {
    const response = await fetch(`${server.url}/api/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok", version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });

  test("ready is 200 when the table answers", async () => {
    const response = await fetch(`${server.url}/api/ready`);
    expect(response.status).toBe(200);
  });

  test("unknown paths are 404", async () => {
    expect((await fetch(`${server.url}/api/nothing`)).status).toBe(404);
  });

  test("an unknown tool is a clear error result", async () => {
    const error = failed(await mcp.call("no_such_tool", {}));
    expect(error.message).toMatch(/Unknown tool 'no_such_tool'/);
  });
});
