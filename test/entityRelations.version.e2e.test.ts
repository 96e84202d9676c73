import { describe, expect, test } from "@jest/globals";

import { failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";

/**
 * get_entity_relations carries the entity's own version (docs/curate.md#versions), so a client that read an entity's relations
 * can update the entity safely with expectedVersion, without another read. The entity row comes in the same range query.
 */
let server: TestServer;
let mcp: McpTestClient;

withServerAndClient((started, client) => {
  server = started;
  mcp = client;
});

interface Listed {
  entityId: string;
  version?: string;
  relations: { version: string }[];
}

describe("get_entity_relations and the entity's version", () => {
  test("carries the entity's version, which upsert_entity takes as expectedVersion; one storage request, as before", async () => {
    const ws = uniqueWorkspace("relations-version");
    const created = ok<{ version: string }>(await mcp.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "t" }));
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "B", entityType: "t" }));
    const relation = ok<{ version: string }>(
      await mcp.call("upsert_relation", { workspaceName: ws, from: "A", to: "B", relationType: "knows" }),
    );

    const before = server.requests();
    const listed = ok<Listed>(await mcp.call("get_entity_relations", { workspaceName: ws, entityName: "A" }));
    expect(server.requests() - before).toBe(1);
    expect(listed.version).toBe(created.version);
    expect(listed.relations.map((r) => r.version)).toEqual([relation.version]); // the relation's own, distinct

    // The same for relations pointing at the entity.
    const incoming = ok<Listed>(await mcp.call("get_entity_relations", { workspaceName: ws, entityName: "B", direction: "in" }));
    expect(incoming.version).toMatch(/\S/);
    expect(incoming.version).not.toBe(listed.version);

    const updated = ok<{ version: string }>(
      await mcp.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "u", expectedVersion: listed.version }),
    );
    const stale = failed(
      await mcp.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "v", expectedVersion: listed.version }),
    );
    expect(stale.error).toBe("ConflictError");
    expect(ok<Listed>(await mcp.call("get_entity_relations", { workspaceName: ws, entityName: "A" })).version).toBe(updated.version);
  });

  test("with asOf there is no version to give (a past state cannot be updated): the field is absent", async () => {
    const ws = uniqueWorkspace("relations-version-asof");
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "t" }));
    const asOf = new Date(Date.now() + 1000).toISOString();
    await new Promise((done) => setTimeout(done, 1100));
    const listed = ok<Listed>(await mcp.call("get_entity_relations", { workspaceName: ws, entityName: "A", asOf }));
    expect(listed.entityId).toMatch(/\S/);
    expect(listed).not.toHaveProperty("version");
  });
});
