import type { TableClient } from "@azure/data-tables";
import { describe, expect, test } from "@jest/globals";

import { entityId, observationId } from "../src/domain/model/ids.js";
import { hashApiKey } from "../src/http/auth/apiKeyVerifier.js";
import { rowKey } from "../src/storage/rows/keys.js";
import { type McpTestClient, ok, uniqueWorkspace, withTestServers } from "./support/harness.js";
import type { Authored, GraphOut } from "./support/outputs.js";
import { rawTable } from "./support/rawRows.js";

/** Who wrote what, end to end: two API keys writing one workspace through real SDK clients, on real Azurite. */
const KEYS = { alice: "alice-key-0123456789", bob: "bob-key-0123456789" };
const ENTRIES = [
  { id: "alice", sha256: hashApiKey(KEYS.alice), workspaces: ["*"], access: "write" },
  { id: "bob", sha256: hashApiKey(KEYS.bob), workspaces: ["*"], access: "write" },
];

let alice: McpTestClient;
let bob: McpTestClient;
let table: TableClient;

withTestServers(
  {
    servers: { server: { env: { MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify(ENTRIES) } } },
    clients: { alice: { headers: { Authorization: `Bearer ${KEYS.alice}` } }, bob: { headers: { "x-api-key": KEYS.bob } } },
  },
  (started) => {
    ({ alice, bob } = started);
    table = rawTable();
  },
);

interface RelationsOut {
  relations: (Authored & { fromName: string; toName: string })[];
}

const entityOf = (graph: GraphOut, name: string) => graph.entities.find((entity) => entity.name === name);

describe("createdBy and updatedBy", () => {
  test("an entity records who created it and who last changed it; a re-upsert leaves createdBy alone", async () => {
    const ws = uniqueWorkspace("auth");
    ok(await alice.call("upsert_entity", { workspaceName: ws, name: "Acme", entityType: "customer", observations: ["signed in March"] }));
    let graph = ok<GraphOut>(await alice.call("read_graph", { workspaceName: ws }));
    expect(entityOf(graph, "Acme")).toMatchObject({ createdBy: "key:alice", updatedBy: "key:alice" });

    ok(await bob.call("upsert_entity", { workspaceName: ws, name: "Acme", entityType: "customer", observations: ["renewed in May"] }));
    graph = ok<GraphOut>(await bob.call("read_graph", { workspaceName: ws }));
    expect(entityOf(graph, "Acme")).toMatchObject({ createdBy: "key:alice", updatedBy: "key:bob" });

    // The rows as stored: the entity row, and each observation row with its own author.
    const id = entityId(ws, "Acme");
    const row = await table.getEntity<Record<string, unknown>>(ws, rowKey.entity(id));
    expect({ createdBy: row.createdBy, updatedBy: row.updatedBy }).toEqual({ createdBy: "key:alice", updatedBy: "key:bob" });
    const first = await table.getEntity<Record<string, unknown>>(ws, rowKey.observation(id, observationId(id, "signed in March")));
    const second = await table.getEntity<Record<string, unknown>>(ws, rowKey.observation(id, observationId(id, "renewed in May")));
    expect([first.createdBy, second.createdBy]).toEqual(["key:alice", "key:bob"]);
  });

  test("observations added to another's entity, and tags put on it, do not change its updatedBy", async () => {
    const ws = uniqueWorkspace("auth");
    ok(await alice.call("upsert_entity", { workspaceName: ws, name: "Acme", entityType: "customer" }));
    ok(await bob.call("add_observations", { workspaceName: ws, observations: [{ entityName: "Acme", contents: ["pays late"] }] }));
    ok(await bob.call("tag_entity", { workspaceName: ws, entityName: "Acme", tagNames: ["vip"] }));
    const graph = ok<GraphOut>(await alice.call("read_graph", { workspaceName: ws }));
    expect(entityOf(graph, "Acme")).toMatchObject({ createdBy: "key:alice", updatedBy: "key:alice" });
    const id = entityId(ws, "Acme");
    const observation = await table.getEntity<Record<string, unknown>>(ws, rowKey.observation(id, observationId(id, "pays late")));
    expect(observation.createdBy).toBe("key:bob");
  });

  test("racing first upserts by two keys: createdBy is the one whose create won, the other's merge keeps it", async () => {
    const ws = uniqueWorkspace("auth");
    const names = Array.from({ length: 8 }, (_, i) => `Race ${i}`);
    const outcomes = await Promise.all(
      names.flatMap((name) =>
        [alice, bob].map(async (client) => {
          const result = ok<{ created: boolean }>(await client.call("upsert_entity", { workspaceName: ws, name, entityType: "t" }));
          return { name, created: result.created, by: client === alice ? "key:alice" : "key:bob" };
        }),
      ),
    );
    const graph = ok<GraphOut>(await alice.call("read_graph", { workspaceName: ws }));
    for (const name of names) {
      const creators = outcomes.filter((outcome) => outcome.name === name && outcome.created);
      expect(creators).toHaveLength(1);
      expect(entityOf(graph, name)?.createdBy).toBe(creators[0]!.by);
    }
  });

  test("create_entities by a second key skips the existing entity and leaves its authorship alone", async () => {
    const ws = uniqueWorkspace("auth");
    ok(await alice.call("create_entities", { workspaceName: ws, entities: [{ name: "A", entityType: "t", observations: [] }] }));
    ok(
      await bob.call("create_entities", {
        workspaceName: ws,
        entities: [
          { name: "A", entityType: "t", observations: [] },
          { name: "B", entityType: "t", observations: [] },
        ],
      }),
    );
    const graph = ok<GraphOut>(await alice.call("read_graph", { workspaceName: ws }));
    expect(entityOf(graph, "A")).toMatchObject({ createdBy: "key:alice", updatedBy: "key:alice" });
    expect(entityOf(graph, "B")).toMatchObject({ createdBy: "key:bob", updatedBy: "key:bob" });
  });

  test("a relation records its creator; a re-upsert by another key changes updatedBy only", async () => {
    const ws = uniqueWorkspace("auth");
    ok(await alice.call("upsert_entity", { workspaceName: ws, name: "Acme", entityType: "customer" }));
    ok(await alice.call("upsert_entity", { workspaceName: ws, name: "Dana", entityType: "person" }));
    const relation = { workspaceName: ws, from: "Dana", to: "Acme", relationType: "works_at" };
    ok(await alice.call("upsert_relation", relation));
    let listed = ok<RelationsOut>(await bob.call("get_entity_relations", { workspaceName: ws, entityName: "Dana" }));
    expect(listed.relations).toEqual([expect.objectContaining({ toName: "Acme", createdBy: "key:alice", updatedBy: "key:alice" })]);

    ok(await bob.call("upsert_relation", { ...relation, metadata: { since: 2024 } }));
    listed = ok<RelationsOut>(await bob.call("get_entity_relations", { workspaceName: ws, entityName: "Acme", direction: "in" }));
    expect(listed.relations).toEqual([expect.objectContaining({ fromName: "Dana", createdBy: "key:alice", updatedBy: "key:bob" })]);
    const graph = ok<GraphOut>(await alice.call("read_graph", { workspaceName: ws }));
    expect(graph.relations).toEqual([expect.objectContaining({ from: "Dana", to: "Acme", createdBy: "key:alice", updatedBy: "key:bob" })]);
  });

  test("create_relations records its caller, and an existing relation keeps its creator", async () => {
    const ws = uniqueWorkspace("auth");
    ok(
      await alice.call("create_entities", {
        workspaceName: ws,
        entities: ["A", "B", "C"].map((name) => ({ name, entityType: "t", observations: [] })),
      }),
    );
    ok(await bob.call("create_relations", { workspaceName: ws, relations: [{ from: "A", to: "B", relationType: "r" }] }));
    ok(
      await alice.call("create_relations", {
        workspaceName: ws,
        relations: [
          { from: "A", to: "B", relationType: "r" },
          { from: "A", to: "C", relationType: "r" },
        ],
      }),
    );
    const listed = ok<RelationsOut>(await alice.call("get_entity_relations", { workspaceName: ws, entityName: "A" }));
    const byTarget = Object.fromEntries(listed.relations.map((r) => [r.toName, r.createdBy]));
    expect(byTarget).toEqual({ B: "key:bob", C: "key:alice" });
  });

  test("rows written before authorship was recorded read without createdBy and updatedBy", async () => {
    const ws = uniqueWorkspace("auth");
    ok(await alice.call("upsert_entity", { workspaceName: ws, name: "Old", entityType: "t" }));
    const key = rowKey.entity(entityId(ws, "Old"));
    const row = await table.getEntity<Record<string, unknown>>(ws, key);
    const { createdBy: _created, updatedBy: _updated, etag: _etag, timestamp: _timestamp, ...older } = row;
    await table.upsertEntity({ ...older, partitionKey: ws, rowKey: key }, "Replace");
    const graph = ok<GraphOut>(await alice.call("read_graph", { workspaceName: ws }));
    expect(entityOf(graph, "Old")).not.toHaveProperty("createdBy");
    expect(entityOf(graph, "Old")).not.toHaveProperty("updatedBy");
  });
});
