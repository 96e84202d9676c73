import { describe, expect, test } from "@jest/globals";

import { failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";

/**
 * An entity given both by id and by name: ids are derived from names (UUIDv5), so whether the two
 * name one entity is known without asking storage. If they do not, the call is refused before any
 * storage request; if they do, it runs as with either alone.
 */
let server: TestServer;
let mcp: McpTestClient;
withServerAndClient((started, client) => {
  server = started;
  mcp = client;
});

async function requestsOf<T>(work: () => Promise<T>): Promise<{ result: T; requests: number }> {
  const before = server.requests();
  const result = await work();
  return { result, requests: server.requests() - before };
}

async function twoLinkedEntities() {
  const ws = uniqueWorkspace("refs");
  const a = ok<{ id: string }>(await mcp.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "node" }));
  const b = ok<{ id: string }>(await mcp.call("upsert_entity", { workspaceName: ws, name: "B", entityType: "node" }));
  ok(await mcp.call("upsert_relation", { workspaceName: ws, from: "A", to: "B", relationType: "calls" }));
  return { ws, a: a.id, b: b.id };
}

describe("get_entity_relations with entityId and entityName", () => {
  test("naming different entities is a ValidationError saying which to drop, with no storage request", async () => {
    const { ws, a } = await twoLinkedEntities();
    const { result, requests } = await requestsOf(() =>
      mcp.call("get_entity_relations", { workspaceName: ws, entityId: a, entityName: "B" }),
    );
    const error = failed(result);
    expect(error.error).toBe("ValidationError");
    expect(error.message).toContain(`entityId '${a}' and entityName 'B' name different entities`);
    expect(error.message).toContain("drop entityId to use the name, or drop entityName to use the id");
    expect(requests).toBe(0);
  });

  test("an id for a name that does not exist at all is refused the same way", async () => {
    const { ws, a } = await twoLinkedEntities();
    const { result, requests } = await requestsOf(() =>
      mcp.call("get_entity_relations", { workspaceName: ws, entityId: a, entityName: "Nobody" }),
    );
    expect(failed(result).error).toBe("ValidationError");
    expect(requests).toBe(0);
  });

  test("agreeing (the id in any case) is the same call as either alone: one storage request", async () => {
    const { ws, a } = await twoLinkedEntities();
    for (const entityId of [a, a.toUpperCase()]) {
      const { result, requests } = await requestsOf(() =>
        mcp.call("get_entity_relations", { workspaceName: ws, entityId, entityName: "A" }),
      );
      expect(ok<{ entityId: string; relations: { toName: string }[] }>(result)).toMatchObject({
        entityId: a,
        relations: [{ toName: "B" }],
      });
      expect(requests).toBe(1);
    }
  });
});

describe("upsert_relation with an endpoint's id and name (the same rule, in the domain)", () => {
  test("disagreeing is refused with no storage request; agreeing needs no read for that endpoint", async () => {
    const { ws, a, b } = await twoLinkedEntities();
    const refused = await requestsOf(() =>
      mcp.call("upsert_relation", { workspaceName: ws, fromEntityId: a, from: "B", to: "B", relationType: "uses" }),
    );
    expect(failed(refused.result)).toMatchObject({
      error: "ValidationError",
      message: expect.stringContaining("drop fromEntityId to use the name, or drop from to use the id"),
    });
    expect(refused.requests).toBe(0);

    const byNames = await requestsOf(() => mcp.call("upsert_relation", { workspaceName: ws, from: "A", to: "B", relationType: "uses" }));
    // A new relation each, so both calls do the same writes.
    const byBoth = await requestsOf(() =>
      mcp.call("upsert_relation", { workspaceName: ws, fromEntityId: a, from: "A", toEntityId: b, to: "B", relationType: "owns" }),
    );
    expect(ok(byBoth.result)).toMatchObject({ fromEntityId: a, toEntityId: b });
    expect(byBoth.requests).toBe(byNames.requests);
  });
});

describe("an entity named by neither id nor name", () => {
  test("is a ValidationError naming the tool's own arguments, with no storage request", async () => {
    const { ws } = await twoLinkedEntities();
    const relations = await requestsOf(() => mcp.call("get_entity_relations", { workspaceName: ws }));
    expect(failed(relations.result)).toMatchObject({
      error: "ValidationError",
      message: expect.stringContaining("entityId or entityName"),
    });
    expect(relations.requests).toBe(0);
    const source = await requestsOf(() => mcp.call("upsert_relation", { workspaceName: ws, to: "B", relationType: "calls" }));
    expect(failed(source.result)).toMatchObject({ error: "ValidationError", message: expect.stringContaining("fromEntityId or from") });
    const target = await requestsOf(() => mcp.call("upsert_relation", { workspaceName: ws, from: "A", relationType: "calls" }));
    expect(failed(target.result)).toMatchObject({ error: "ValidationError", message: expect.stringContaining("toEntityId or to") });
    expect(source.requests + target.requests).toBe(0);
  });
});
