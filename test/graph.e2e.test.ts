import { describe, expect, test } from "@jest/globals";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { connectClient, failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import type { GraphOut, OfficialGraph } from "./support/outputs.js";
import { partitionRows } from "./support/rawRows.js";

/** The official memory server's tools (group "graph"), end to end through the MCP client over HTTP. */

let server: TestServer;
let mcp: McpTestClient;
withServerAndClient((started, client) => {
  server = started;
  mcp = client;
});

const call = (ws: string, name: string, args: Record<string, unknown> = {}) => mcp.call(name, { workspaceName: ws, ...args });
const entity = (name: string, entityType = "thing", observations: string[] = []) => ({ name, entityType, observations });
const relation = (from: string, to: string, relationType = "links") => ({ from, to, relationType });
const textOf = (result: CallToolResult) => (result.content[0]?.type === "text" ? result.content[0].text : "");
const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Storage requests the server makes while `work` runs (the test client is the only caller). */
async function requestsFor(work: () => Promise<unknown>): Promise<number> {
  const before = server.requests();
  await work();
  return server.requests() - before;
}

/** The raw rows of a workspace, straight from the table: what is really stored. */
/** (Change events left out: they sit outside every entity range; test/history.events.test.ts checks them. So is the registry row: test/workspaces.test.ts.) */
async function rawRows(ws: string): Promise<{ rowKey: string; kind: string }[]> {
  const rows = await partitionRows(server.app.storage.table, ws, ["event", "workspace"]);
  return rows.map((row) => ({ rowKey: row.rowKey, kind: String(row.kind) }));
}

async function fullGraph(ws: string): Promise<GraphOut> {
  return ok<GraphOut>(await call(ws, "read_graph"));
}

describe("create_entities", () => {
  test("creates new entities, skips existing names and repeats within the call, and renders the created ones as indented JSON", async () => {
    const ws = uniqueWorkspace();
    const first = await call(ws, "create_entities", {
      entities: [entity("Alice", "person", ["likes tea", "likes tea"]), entity("Bob", "person")],
    });
    expect(ok(first)).toEqual({ entities: [entity("Alice", "person", ["likes tea"]), entity("Bob", "person")] });
    expect(textOf(first)).toBe(JSON.stringify([entity("Alice", "person", ["likes tea"]), entity("Bob", "person")], null, 2));

    const second = ok<OfficialGraph>(
      await call(ws, "create_entities", {
        entities: [entity("Alice", "robot", ["new"]), entity("Carol", "person"), entity("Carol", "cat")],
      }),
    );
    expect(second.entities).toEqual([entity("Carol", "person")]);
    const graph = await fullGraph(ws);
    expect(graph.entities.map((e) => [e.name, e.entityType, e.observations])).toEqual([
      ["Alice", "person", ["likes tea"]],
      ["Bob", "person", []],
      ["Carol", "person", []],
    ]);
  });

  test("an entity with more observations than one transaction holds is created whole", async () => {
    const ws = uniqueWorkspace();
    const facts = Array.from({ length: 250 }, (_, i) => `fact ${i}`);
    ok(await call(ws, "create_entities", { entities: [entity("Big", "thing", facts), entity("Small")] }));
    const graph = await fullGraph(ws);
    expect(graph.entities.find((e) => e.name === "Big")?.observations).toEqual(facts);
    expect(graph.entities).toHaveLength(2);
  });

  test("many entities in one call, some existing, are all settled", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("E7", "old"), entity("E42", "old")] }));
    const created = ok<OfficialGraph>(
      await call(ws, "create_entities", { entities: Array.from({ length: 120 }, (_, i) => entity(`E${i}`, "new", [`o${i}`])) }),
    );
    expect(created.entities).toHaveLength(118);
    const graph = await fullGraph(ws);
    expect(graph.entities).toHaveLength(120);
    expect(graph.entities.find((e) => e.name === "E7")).toMatchObject({ entityType: "old", observations: [] });
  });

  test("oversized input is a ValidationError naming the field, written nowhere; the error is text only", async () => {
    const ws = uniqueWorkspace();
    const result = await call(ws, "create_entities", { entities: [entity("Fine"), entity("Huge", "thing", ["x".repeat(32_769)])] });
    expect(result.structuredContent).toBeUndefined();
    const error = failed(result);
    expect(error.error).toBe("ValidationError");
    expect(error.message).toMatch(/entities\[1\]\.observations\[0\] is 32769 characters; the limit is 32768/);
    expect((await fullGraph(ws)).entities).toEqual([]);
  });

  test("wrong shapes are a ValidationError", async () => {
    const error = failed(await call(uniqueWorkspace(), "create_entities", { entities: [{ name: "NoType" }] }));
    expect(error).toMatchObject({ error: "ValidationError" });
    expect(error.message).toMatch(/entities\.0\.entityType/);
  });
});

describe("create_relations", () => {
  test("creates new relations, skips existing ones and repeats", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("A"), entity("B"), entity("C")] }));
    const first = await call(ws, "create_relations", { relations: [relation("A", "B"), relation("A", "B"), relation("B", "C", "calls")] });
    expect(ok(first)).toEqual({ relations: [relation("A", "B"), relation("B", "C", "calls")] });
    expect(textOf(first)).toBe(JSON.stringify([relation("A", "B"), relation("B", "C", "calls")], null, 2));
    const second = ok<OfficialGraph>(await call(ws, "create_relations", { relations: [relation("A", "B"), relation("C", "A")] }));
    expect(second.relations).toEqual([relation("C", "A")]);
    expect((await fullGraph(ws)).relations).toHaveLength(3);
  });

  test("a missing endpoint is an error naming every missing entity, and nothing is written", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("A"), entity("B")] }));
    const error = failed(
      await call(ws, "create_relations", {
        relations: [relation("A", "B"), relation("A", "Ghost"), relation("Phantom", "B"), relation("Ghost", "A")],
      }),
    );
    expect(error.error).toBe("NotFoundError");
    expect(error.message).toBe(
      `Entities 'Ghost', 'Phantom' not found in workspace '${ws}'. Create them with create_entities first; no relations were written.`,
    );
    expect((await fullGraph(ws)).relations).toEqual([]);
  });

  test("all or nothing holds when the relations need several transactions", async () => {
    const ws = uniqueWorkspace();
    const names = Array.from({ length: 60 }, (_, i) => `N${i}`);
    ok(await call(ws, "create_entities", { entities: names.map((name) => entity(name)) }));
    const many = names.map((name, i) => relation(name, names[(i + 1) % names.length]!));
    const error = failed(await call(ws, "create_relations", { relations: [...many, relation("N0", "Nobody")] }));
    expect(error.message).toMatch(/^Entity 'Nobody' not found/);
    expect((await rawRows(ws)).filter((row) => row.kind !== "entity")).toEqual([]);
    expect(ok<OfficialGraph>(await call(ws, "create_relations", { relations: many })).relations).toHaveLength(60);
    expect((await fullGraph(ws)).relations).toHaveLength(60);
  });
});

describe("add_observations", () => {
  test("adds what is new, skips what is stored and repeats, and reports per item", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("A", "t", ["one"]), entity("B")] }));
    const result = await call(ws, "add_observations", {
      observations: [
        { entityName: "A", contents: ["one", "two", "two"] },
        { entityName: "B", contents: ["x"] },
        { entityName: "A", contents: ["two", "three"] },
      ],
    });
    const expected = [
      { entityName: "A", addedObservations: ["two"] },
      { entityName: "B", addedObservations: ["x"] },
      { entityName: "A", addedObservations: ["three"] },
    ];
    expect(ok(result)).toEqual({ results: expected });
    expect(textOf(result)).toBe(JSON.stringify(expected, null, 2));
    const graph = await fullGraph(ws);
    expect(graph.entities.find((e) => e.name === "A")?.observations).toEqual(["one", "two", "three"]);
  });

  test("a missing entity is an error naming it, and nothing is added anywhere", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("A")] }));
    const error = failed(
      await call(ws, "add_observations", {
        observations: [
          { entityName: "A", contents: ["kept out"] },
          { entityName: "Ghost", contents: ["x"] },
        ],
      }),
    );
    expect(error).toEqual({
      success: false,
      error: "NotFoundError",
      message: `Entity 'Ghost' not found in workspace '${ws}'. Create them with create_entities first (an entity that expired is gone too: upsert_entity brings it back); no observations were added.`,
    });
    expect((await fullGraph(ws)).entities[0]?.observations).toEqual([]);
  });

  test("50 concurrent calls on one entity keep all 50 observations", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("Hub")] }));
    const clients = await Promise.all(Array.from({ length: 5 }, () => connectClient(server.url)));
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        clients[i % clients.length]!.call("add_observations", {
          workspaceName: ws,
          observations: [{ entityName: "Hub", contents: [`fact ${i}`] }],
        }),
      ),
    );
    await Promise.all(clients.map((client) => client.close()));
    results.forEach((result) => ok(result));
    const stored = (await fullGraph(ws)).entities[0]?.observations ?? [];
    expect(stored).toHaveLength(50);
    expect(new Set(stored)).toEqual(new Set(Array.from({ length: 50 }, (_, i) => `fact ${i}`)));
  });
});

describe("delete_entities", () => {
  test("cascades to observations and to relations in both directions, including the other endpoints' edge rows", async () => {
    const ws = uniqueWorkspace();
    ok(
      await call(ws, "create_entities", { entities: [entity("Hub", "t", ["h1", "h2"]), entity("In"), entity("Out"), entity("Bystander")] }),
    );
    ok(
      await call(ws, "create_relations", {
        relations: [relation("In", "Hub"), relation("Hub", "Out"), relation("Hub", "Hub"), relation("In", "Out")],
      }),
    );
    const result = await call(ws, "delete_entities", { entityNames: ["Hub", "NotThere"] });
    expect(ok(result)).toEqual({ success: true, message: "Entities deleted successfully" });
    expect(textOf(result)).toBe("Entities deleted successfully");

    const graph = await fullGraph(ws);
    expect(graph.entities.map((e) => e.name).sort()).toEqual(["Bystander", "In", "Out"]);
    expect(graph.relations.map((r) => [r.from, r.to])).toEqual([["In", "Out"]]);
    // What is stored: 3 entity rows, and the surviving relation's canonical row and two edge rows. Nothing of Hub.
    const kinds = (await rawRows(ws)).map((row) => row.kind).sort();
    expect(kinds).toEqual(["edge-in", "edge-out", "entity", "entity", "entity", "relation"]);
    const outsRelations = ok<{ relations: unknown[] }>(await call(ws, "get_entity_relations", { entityName: "Out", direction: "both" }));
    expect(outsRelations.relations).toHaveLength(1);
  });

  test("deleting both ends of a relation in one call, and names that do not exist, are fine", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("A"), entity("B")] }));
    ok(await call(ws, "create_relations", { relations: [relation("A", "B"), relation("B", "A")] }));
    ok(await call(ws, "delete_entities", { entityNames: ["A", "B", "C"] }));
    expect(await rawRows(ws)).toEqual([]);
    ok(await call(ws, "delete_entities", { entityNames: ["A"] }));
  });

  test("budget: 1 range read + 1 conditional delete of the entity row + ⌈(rows - 1)/100⌉ transactions", async () => {
    const ws = uniqueWorkspace();
    const others = Array.from({ length: 70 }, (_, i) => `P${i}`);
    ok(
      await call(ws, "create_entities", {
        entities: [
          entity(
            "Hub",
            "t",
            Array.from({ length: 30 }, (_, i) => `o${i}`),
          ),
          ...others.map((name) => entity(name)),
        ],
      }),
    );
    ok(await call(ws, "create_relations", { relations: others.map((name, i) => (i % 2 ? relation("Hub", name) : relation(name, "Hub"))) }));
    // Rows the delete removes: Hub's row, 30 observations, and per relation 3 rows (canonical, both edges).
    const rows = 1 + 30 + 70 * 3;
    const before = (await rawRows(ws)).length;
    const used = await requestsFor(async () => ok(await call(ws, "delete_entities", { entityNames: ["Hub"] })));
    expect((await rawRows(ws)).length).toBe(before - rows);
    expect(used).toBe(2 + Math.ceil((rows - 1) / 100));
  });
});

describe("deletes racing writes", () => {
  test("writes racing delete_entities either land before it (and are deleted) or fail: nothing is left dangling", async () => {
    const ws = uniqueWorkspace();
    const others = Array.from({ length: 10 }, (_, i) => `P${i}`);
    ok(await call(ws, "create_entities", { entities: others.map((name) => entity(name)) }));
    const clients = await Promise.all(Array.from({ length: 4 }, () => connectClient(server.url)));
    try {
      for (let round = 0; round < 5; round++) {
        ok(await call(ws, "create_entities", { entities: [entity("Hub", "t", ["base"])] }));
        const racing = await Promise.all([
          call(ws, "delete_entities", { entityNames: ["Hub"] }),
          ...others.map((name, i) =>
            clients[i % clients.length]!.call(
              i % 2 ? "create_relations" : "add_observations",
              i % 2
                ? { workspaceName: ws, relations: [relation(name, "Hub", `r${round}`)] }
                : { workspaceName: ws, observations: [{ entityName: "Hub", contents: [`late ${round} ${i}`] }] },
            ),
          ),
        ]);
        ok(racing[0]!);
        for (const result of racing.slice(1)) if (result.isError) expect(failed(result).error).toBe("NotFoundError");
        // Every row belongs to an existing entity, and no relation lost one of its three rows.
        const rows = await rawRows(ws);
        const entities = new Set(rows.filter((row) => row.kind === "entity").map((row) => row.rowKey));
        expect(rows.filter((row) => !entities.has(row.rowKey.slice(0, 36)) && row.kind !== "relation")).toEqual([]);
        expect(rows.filter((row) => row.kind === "relation").length * 2).toBe(rows.filter((row) => row.kind.startsWith("edge")).length);
        expect((await fullGraph(ws)).relations).toEqual([]);
      }
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });
});

describe("delete_observations and delete_relations", () => {
  test("delete what exists and are silent about what does not", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("A", "t", ["one", "two", "three"]), entity("B")] }));
    ok(await call(ws, "create_relations", { relations: [relation("A", "B"), relation("B", "A")] }));

    const deleted = await call(ws, "delete_observations", {
      deletions: [
        { entityName: "A", observations: ["two", "never said", "two"] },
        { entityName: "Ghost", observations: ["x"] },
        { entityName: "A", observations: ["two"] },
      ],
    });
    expect(ok(deleted)).toEqual({ success: true, message: "Observations deleted successfully" });
    expect(textOf(deleted)).toBe("Observations deleted successfully");

    const unlinked = await call(ws, "delete_relations", {
      relations: [relation("A", "B"), relation("A", "B", "other"), relation("X", "Y")],
    });
    expect(ok(unlinked)).toEqual({ success: true, message: "Relations deleted successfully" });
    expect(textOf(unlinked)).toBe("Relations deleted successfully");

    const graph = await fullGraph(ws);
    expect(graph.entities.find((e) => e.name === "A")?.observations).toEqual(["one", "three"]);
    expect(graph.relations.map((r) => [r.from, r.to])).toEqual([["B", "A"]]);
    expect((await rawRows(ws)).filter((row) => row.kind !== "entity" && row.kind !== "observation")).toHaveLength(3);
  });
});

describe("open_nodes", () => {
  test("returns the named entities, skips unknown names, with every relation touching them; one request per name", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("A", "t", ["a1", "a2"]), entity("B"), entity("C"), entity("D")] }));
    ok(await call(ws, "create_relations", { relations: [relation("A", "B"), relation("C", "A"), relation("C", "D"), relation("A", "A")] }));
    let result: CallToolResult | undefined;
    const used = await requestsFor(async () => {
      result = await call(ws, "open_nodes", { names: ["A", "Ghost", "B"] });
    });
    expect(used).toBe(3);
    const graph = ok<OfficialGraph>(result!);
    expect(graph.entities).toEqual([entity("A", "t", ["a1", "a2"]), entity("B")]);
    expect(graph.relations.map((r) => `${r.from}>${r.to}`).sort()).toEqual(["A>A", "A>B", "C>A"]);
    expect(textOf(result!)).toBe(JSON.stringify(graph, null, 2));
  });
});

describe("search_nodes", () => {
  test("matches name, type and observations case-insensitively, ranked name > type > observation, with touching relations", async () => {
    const ws = uniqueWorkspace();
    ok(
      await call(ws, "create_entities", {
        entities: [
          entity("Observed", "thing", ["Mentions the ROCKET launch"]),
          entity("Typed", "rocketry", []),
          entity("Rocket Lab", "company", []),
          entity("Unrelated", "thing", ["nothing here"]),
        ],
      }),
    );
    ok(await call(ws, "create_relations", { relations: [relation("Unrelated", "Typed"), relation("Unrelated", "Unrelated")] }));
    const result = await call(ws, "search_nodes", { query: "rOcKeT" });
    const graph = ok<OfficialGraph>(result);
    expect(graph.entities.map((e) => e.name)).toEqual(["Rocket Lab", "Typed", "Observed"]);
    expect(graph.relations).toEqual([relation("Unrelated", "Typed")]);
    expect(textOf(result)).toBe(JSON.stringify(graph, null, 2));
  });

  test("limit keeps the best matches (default 50)", async () => {
    const ws = uniqueWorkspace();
    ok(
      await call(ws, "create_entities", {
        entities: Array.from({ length: 60 }, (_, i) => entity(`item ${String(i).padStart(2, "0")}`, "thing", [])),
      }),
    );
    ok(await call(ws, "create_entities", { entities: [entity("zzz", "item-type", []), entity("Named item")] }));
    expect(ok<OfficialGraph>(await call(ws, "search_nodes", { query: "item" })).entities).toHaveLength(50);
    const top = ok<OfficialGraph>(await call(ws, "search_nodes", { query: "ITEM", limit: 61 }));
    expect(top.entities).toHaveLength(61);
    expect(top.entities.map((e) => e.name)).not.toContain("zzz"); // the type match ranks after all 61 name matches
    const bad = failed(await call(ws, "search_nodes", { query: "item", limit: 0 }));
    expect(bad.error).toBe("ValidationError");
  });
});

describe("round-trip budgets of the writes", () => {
  test("create_entities, create_relations, add_observations and delete_relations of a few items", async () => {
    const ws = uniqueWorkspace();
    expect(
      await requestsFor(async () =>
        ok(await call(ws, "create_entities", { entities: [entity("A", "t", ["a"]), entity("B"), entity("C")] })),
      ),
    ).toBe(1);
    const links = [relation("A", "B"), relation("B", "C"), relation("C", "A")];
    expect(await requestsFor(async () => ok(await call(ws, "create_relations", { relations: links })))).toBe(1);
    const add = {
      observations: [
        { entityName: "A", contents: ["b"] },
        { entityName: "B", contents: ["c"] },
      ],
    };
    expect(await requestsFor(async () => ok(await call(ws, "add_observations", add)))).toBe(3); // two range reads, one transaction
    expect(await requestsFor(async () => ok(await call(ws, "delete_relations", { relations: links.slice(0, 2) })))).toBe(3); // two point reads, one transaction
  });
});

describe("read_graph", () => {
  test("pages by entity with an opaque cursor; every entity and every relation comes exactly once", async () => {
    const ws = uniqueWorkspace();
    const names = Array.from({ length: 23 }, (_, i) => `E${i}`);
    ok(await call(ws, "create_entities", { entities: names.map((name) => entity(name, "t", [`about ${name}`])) }));
    const links = names.flatMap((name, i) => [relation(name, names[(i + 1) % 23]!), relation(name, names[(i + 5) % 23]!, "far")]);
    ok(await call(ws, "create_relations", { relations: links }));

    const seenEntities: string[] = [];
    const seenRelations: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page: GraphOut = ok<GraphOut>(await call(ws, "read_graph", { limit: 5, ...(cursor ? { cursor } : {}) }));
      pages += 1;
      expect(page.entities.length).toBeLessThanOrEqual(5);
      const inPage = new Set(page.entities.map((e) => e.name));
      for (const r of page.relations) expect(inPage.has(r.from)).toBe(true);
      seenEntities.push(...page.entities.map((e) => e.name));
      seenRelations.push(...page.relations.map((r) => `${r.from}>${r.relationType}>${r.to}`));
      cursor = page.cursor;
    } while (cursor);
    expect(pages).toBe(5);
    expect(seenEntities.sort()).toEqual([...names].sort());
    expect(seenRelations.sort()).toEqual(links.map((r) => `${r.from}>${r.relationType}>${r.to}`).sort());
  });

  test("with no arguments returns everything; mode 'names' leaves out observations and metadata", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "upsert_entity", { name: "A", entityType: "t", observations: ["secret detail"], metadata: { k: 1 } }));
    ok(await call(ws, "create_entities", { entities: [entity("B")] }));
    ok(await call(ws, "create_relations", { relations: [relation("A", "B")] }));
    const full = await fullGraph(ws);
    expect(full.cursor).toBeUndefined();
    expect(full.entities.find((e) => e.name === "A")).toMatchObject({ observations: ["secret detail"], metadata: { k: 1 } });
    const names = ok<GraphOut>(await call(ws, "read_graph", { mode: "names" }));
    expect(names.entities.map((e) => Object.keys(e).sort())).toEqual([
      ["entityType", "id", "name"],
      ["entityType", "id", "name"],
    ]);
    expect(names.relations).toEqual([
      {
        id: full.relations[0]!.id,
        from: "A",
        to: "B",
        fromEntityId: expect.any(String),
        toEntityId: expect.any(String),
        relationType: "links",
      },
    ]);
  });

  test("a cursor it did not return is a ValidationError", async () => {
    for (const cursor of ["garbage", Buffer.from('{"v":1,"after":"x"}').toString("base64url")]) {
      const error = failed(await call(uniqueWorkspace(), "read_graph", { cursor }));
      expect(error.error).toBe("ValidationError");
      expect(error.message).toMatch(/cursor/);
    }
  });
});

describe("resources", () => {
  test("the workspace graph template on /api/mcp, and memory://knowledge-graph on the bound route", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("A", "t", ["fact"]), entity("B")] }));
    ok(await call(ws, "create_relations", { relations: [relation("A", "B")] }));

    const templates = await mcp.client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual(["memory://workspaces/{workspaceName}/graph"]);
    // With the apps toolset offered (the default), the apps' ui:// resource is listed too (docs/apps.md).
    const APP_RESOURCE = expect.objectContaining({ uri: "ui://central-memory/viewer.html", mimeType: "text/html;profile=mcp-app" });
    expect((await mcp.client.listResources()).resources).toEqual([APP_RESOURCE]);
    const viaTemplate = await mcp.client.readResource({ uri: `memory://workspaces/${ws}/graph` });
    const graph = JSON.parse(String((viaTemplate.contents[0] as { text: string }).text)) as GraphOut;
    expect(graph.entities.map((e) => [e.name, e.observations])).toEqual([
      ["A", ["fact"]],
      ["B", []],
    ]);
    expect(graph.relations.map((r) => [r.from, r.to])).toEqual([["A", "B"]]);
    await expect(mcp.client.readResource({ uri: "memory://knowledge-graph" })).rejects.toThrow(/names no workspace/);

    const bound = await connectClient(server.url, `/api/workspaces/${ws}/mcp`);
    const listed = await bound.client.listResources();
    expect(listed.resources).toEqual([
      expect.objectContaining({ uri: "memory://knowledge-graph", name: "knowledge-graph", mimeType: "application/json" }),
      APP_RESOURCE,
    ]);
    const viaBound = await bound.client.readResource({ uri: "memory://knowledge-graph" });
    expect(JSON.parse(String((viaBound.contents[0] as { text: string }).text))).toEqual(graph);
    await expect(bound.client.readResource({ uri: `memory://workspaces/other-${ws}/graph` })).rejects.toThrow(/bound to workspace/);
    await bound.close();
  });
});

test("tools/list shows the graph tools with their annotations and exact output schemas (without the tags group)", async () => {
  const plain = await connectClient(server.url, "/api/mcp?toolsets=core,graph");
  const { tools } = await plain.client.listTools();
  await plain.close();
  const names = tools.map((tool) => tool.name);
  expect(names).toEqual(
    expect.arrayContaining([
      "create_entities",
      "create_relations",
      "add_observations",
      "delete_entities",
      "delete_observations",
      "delete_relations",
      "search_nodes",
      "open_nodes",
    ]),
  );
  const search = tools.find((tool) => tool.name === "search_nodes")!;
  expect(search.outputSchema).toMatchObject({ type: "object", additionalProperties: false, required: ["entities", "relations"] });
  expect(search.inputSchema.required).toEqual(["query", "workspaceName"]);
  expect([...tools].sort(byName).length).toBe(12);
});
