import { describe, expect, test } from "@jest/globals";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { rowKey } from "../src/storage/rows/keys.js";
import { connectClient, failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import type { OfficialGraph } from "./support/outputs.js";
import { partitionRows } from "./support/rawRows.js";

/** The tags group, end to end through the MCP client over HTTP, with the raw table rows checked after deletes. */

let server: TestServer;
let mcp: McpTestClient;
withServerAndClient((started, client) => {
  server = started;
  mcp = client;
});

interface ByTag extends OfficialGraph {
  tagName: string;
  total: number;
}
type Tag = { name: string; category: string; description: string };

const call = (ws: string, name: string, args: Record<string, unknown> = {}) => mcp.call(name, { workspaceName: ws, ...args });
const entity = (name: string, observations: string[] = [], entityType = "thing") => ({ name, entityType, observations });
const textOf = (result: CallToolResult) => (result.content[0]?.type === "text" ? result.content[0].text : "");

async function requestsFor(work: () => Promise<unknown>): Promise<number> {
  const before = server.requests();
  await work();
  return server.requests() - before;
}

interface RawRow {
  rowKey: string;
  kind: string;
  name?: string;
  tagName?: string;
  entityId?: string;
  observationId?: string;
  tagId?: string;
}

/** The raw rows of a workspace, straight from the table: what is really stored. */
/** (Change events left out: they sit outside every entity range; test/history.events.test.ts checks them. So is the registry row: test/workspaces.test.ts.) */
function rawRows(ws: string): Promise<RawRow[]> {
  return partitionRows<RawRow>(server.app.storage.table, ws, ["event", "workspace"]);
}

const linkId = (row: RawRow) => `${row.tagId}/${row.entityId}/${row.observationId ?? ""}`;

/**
 * The tag rows of a workspace hold together: every link has its index row and every index row its
 * link; every link hangs off an entity (and observation) that exists and names a defined tag.
 * Returns the links, as "tag: entity[/observation]" for assertions.
 */
async function checkedTagLinks(ws: string): Promise<string[]> {
  const rows = await rawRows(ws);
  const links = rows.filter((row) => row.kind === "entity-tag" || row.kind === "observation-tag");
  const index = rows.filter((row) => row.kind === "tag-index");
  expect(index.map(linkId).sort()).toEqual(links.map(linkId).sort());
  const keys = new Set(rows.map((row) => row.rowKey));
  const entityNames = new Map(rows.filter((row) => row.kind === "entity").map((row) => [row.rowKey, row.name]));
  const observations = new Map(
    rows.filter((row) => row.kind === "observation").map((row) => [row.rowKey, (row as { content?: string }).content]),
  );
  const defined = new Set(rows.filter((row) => row.kind === "tag").map((row) => row.name));
  return links
    .map((row) => {
      expect({ link: row.rowKey, entityExists: keys.has(row.entityId!) }).toEqual({ link: row.rowKey, entityExists: true });
      expect({ link: row.rowKey, tagDefined: defined.has(row.tagName) }).toEqual({ link: row.rowKey, tagDefined: true });
      const entityName = entityNames.get(row.entityId!);
      if (row.kind === "entity-tag") return `${row.tagName}: ${entityName}`;
      const content = observations.get(rowKey.observation(row.entityId!, row.observationId!));
      expect({ link: row.rowKey, observationExists: content !== undefined }).toEqual({ link: row.rowKey, observationExists: true });
      return `${row.tagName}: ${entityName}/${content}`;
    })
    .sort();
}

async function allTags(ws: string): Promise<Tag[]> {
  return ok<{ tags: Tag[] }>(await call(ws, "get_all_tags")).tags;
}

describe("tag_entity", () => {
  test("adds the tags the entity lacks, creates new tags with empty category and description, and never adds one twice", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("Alice")] }));
    const first = await call(ws, "tag_entity", { entityName: "Alice", tagNames: ["high-priority", "source:slack", "high-priority"] });
    expect(ok(first)).toEqual({ entityName: "Alice", addedTags: ["high-priority", "source:slack"] });
    expect(JSON.parse(textOf(first))).toEqual(first.structuredContent);
    expect(ok(await call(ws, "tag_entity", { entityName: "Alice", tagNames: ["source:slack", "vip"] }))).toEqual({
      entityName: "Alice",
      addedTags: ["vip"],
    });
    expect(ok(await call(ws, "tag_entity", { entityName: "Alice", tagNames: ["vip"] }))).toEqual({ entityName: "Alice", addedTags: [] });
    expect(await allTags(ws)).toEqual([
      { name: "high-priority", category: "", description: "" },
      { name: "source:slack", category: "", description: "" },
      { name: "vip", category: "", description: "" },
    ]);
    expect(ok<OfficialGraph>(await call(ws, "open_nodes", { names: ["Alice"] })).entities[0]!.tags).toEqual([
      "high-priority",
      "source:slack",
      "vip",
    ]);
    expect(await checkedTagLinks(ws)).toEqual(["high-priority: Alice", "source:slack: Alice", "vip: Alice"]);
  });

  test("tagging keeps the category and description a tag already has", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("A"), entity("B")] }));
    ok(await call(ws, "define_tag", { name: "urgent", category: "priority", description: "Act today." }));
    ok(await call(ws, "tag_entity", { entityName: "A", tagNames: ["urgent"] }));
    ok(await call(ws, "tag_entity", { entityName: "B", tagNames: ["urgent"] }));
    expect(await allTags(ws)).toEqual([{ name: "urgent", category: "priority", description: "Act today." }]);
  });

  test("an unknown entity is a NotFoundError, and nothing is written", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("Alice")] }));
    const error = failed(await call(ws, "tag_entity", { entityName: "Alicia", tagNames: ["vip"] }));
    expect(error).toEqual({
      success: false,
      error: "NotFoundError",
      message: `Entity 'Alicia' not found in workspace '${ws}'. Names match exactly; create it with create_entities or upsert_entity first.`,
    });
    expect((await rawRows(ws)).map((row) => row.kind)).toEqual(["entity"]);
  });

  test.each([
    ["no tags", { tagNames: [] }, /tagNames/],
    ["more tags than one call takes", { tagNames: Array.from({ length: 33 }, (_, i) => `t${i}`) }, /tagNames/],
    ["an empty tag name", { tagNames: [""] }, /tagNames\[0\]/],
    ["a tag name over 256 characters", { tagNames: ["x".repeat(257)] }, /tagNames\[0\]/],
    ["a lone surrogate in a tag name", { tagNames: ["bad \ud800"] }, /surrogate/],
  ])("%s is a ValidationError", async (_label, args, message) => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("A")] }));
    const error = failed(await call(ws, "tag_entity", { entityName: "A", ...args }));
    expect(error.error).toBe("ValidationError");
    expect(error.message).toMatch(message);
    expect(await allTags(ws)).toEqual([]);
  });
});

describe("tag_observation and untag_observation", () => {
  test("tag one observation found by its exact text, and untag it; the definitions stay", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("Alice", ["likes tea", "works at Acme"])] }));
    expect(
      ok(
        await call(ws, "tag_observation", {
          entityName: "Alice",
          observationContent: "likes tea",
          tagNames: ["confidence:low", "source:chat"],
        }),
      ),
    ).toEqual({
      entityName: "Alice",
      addedTags: ["confidence:low", "source:chat"],
    });
    expect(
      ok(await call(ws, "tag_observation", { entityName: "Alice", observationContent: "likes tea", tagNames: ["confidence:low"] })),
    ).toEqual({
      entityName: "Alice",
      addedTags: [],
    });
    ok(await call(ws, "tag_observation", { entityName: "Alice", observationContent: "works at Acme", tagNames: ["source:chat"] }));
    const alice = ok<OfficialGraph>(await call(ws, "open_nodes", { names: ["Alice"] })).entities[0]!;
    expect(alice).toEqual({
      name: "Alice",
      entityType: "thing",
      observations: ["likes tea", "works at Acme"],
      observationTags: { "likes tea": ["confidence:low", "source:chat"], "works at Acme": ["source:chat"] },
    });

    const untagged = await call(ws, "untag_observation", {
      entityName: "Alice",
      observationContent: "likes tea",
      tagNames: ["source:chat", "never-there"],
    });
    expect(ok(untagged)).toEqual({ entityName: "Alice", removedTags: ["source:chat"] });
    expect(await checkedTagLinks(ws)).toEqual(["confidence:low: Alice/likes tea", "source:chat: Alice/works at Acme"]);
    expect((await allTags(ws)).map((tag) => tag.name)).toEqual(["confidence:low", "source:chat"]);
  });

  test.each(["tag_observation", "untag_observation"])("%s: an unknown entity or observation is a NotFoundError", async (tool) => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("Alice", ["likes tea"])] }));
    const noEntity = failed(await call(ws, tool, { entityName: "Bob", observationContent: "likes tea", tagNames: ["x"] }));
    expect(noEntity).toMatchObject({ error: "NotFoundError", message: expect.stringMatching(/^Entity 'Bob' not found in workspace/) });
    const noObservation = failed(await call(ws, tool, { entityName: "Alice", observationContent: "Likes tea", tagNames: ["x"] }));
    expect(noObservation).toEqual({
      success: false,
      error: "NotFoundError",
      message: "Entity 'Alice' has no observation 'Likes tea'. Give the observation's exact text, as open_nodes returns it.",
    });
    expect(await allTags(ws)).toEqual([]);
  });
});

describe("remove_tags_from_entity", () => {
  test("takes tags off the entity itself, returns what it removed, and leaves observation tags and definitions", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("Alice", ["likes tea"])] }));
    ok(await call(ws, "tag_entity", { entityName: "Alice", tagNames: ["vip", "team-a"] }));
    ok(await call(ws, "tag_observation", { entityName: "Alice", observationContent: "likes tea", tagNames: ["vip"] }));
    expect(ok(await call(ws, "remove_tags_from_entity", { entityName: "Alice", tagNames: ["vip", "unknown"] }))).toEqual({
      entityName: "Alice",
      removedTags: ["vip"],
    });
    expect(ok(await call(ws, "remove_tags_from_entity", { entityName: "Alice", tagNames: ["vip"] }))).toEqual({
      entityName: "Alice",
      removedTags: [],
    });
    expect(await checkedTagLinks(ws)).toEqual(["team-a: Alice", "vip: Alice/likes tea"]);
    expect((await allTags(ws)).map((tag) => tag.name)).toEqual(["team-a", "vip"]);
    const error = failed(await call(ws, "remove_tags_from_entity", { entityName: "Nobody", tagNames: ["vip"] }));
    expect(error.error).toBe("NotFoundError");
  });
});

describe("get_entities_by_tag", () => {
  test("returns entities tagged themselves or on an observation, with observations, tags and relations touching them", async () => {
    const ws = uniqueWorkspace();
    ok(
      await call(ws, "create_entities", {
        entities: [entity("Carol", ["on call"]), entity("Alice", ["likes tea", "speaks Norwegian"]), entity("Bob"), entity("Dave")],
      }),
    );
    ok(
      await call(ws, "create_relations", {
        relations: [
          { from: "Alice", to: "Bob", relationType: "knows" },
          { from: "Dave", to: "Carol", relationType: "pages" },
          { from: "Bob", to: "Dave", relationType: "knows" },
        ],
      }),
    );
    ok(await call(ws, "tag_entity", { entityName: "Carol", tagNames: ["team-a", "oncall"] }));
    ok(await call(ws, "tag_observation", { entityName: "Alice", observationContent: "speaks Norwegian", tagNames: ["team-a"] }));
    ok(await call(ws, "tag_entity", { entityName: "Bob", tagNames: ["other"] }));

    const result = await call(ws, "get_entities_by_tag", { tagName: "team-a" });
    const found = ok<ByTag>(result);
    expect(found).toEqual({
      tagName: "team-a",
      total: 2,
      entities: [
        {
          name: "Alice",
          entityType: "thing",
          observations: ["likes tea", "speaks Norwegian"],
          observationTags: { "speaks Norwegian": ["team-a"] },
        },
        { name: "Carol", entityType: "thing", observations: ["on call"], tags: ["oncall", "team-a"] },
      ],
      relations: [
        { from: "Alice", to: "Bob", relationType: "knows" },
        { from: "Dave", to: "Carol", relationType: "pages" },
      ],
    });
    expect(JSON.parse(textOf(result))).toEqual(found);
  });

  test("limit keeps the first entities by name and total counts them all; an unknown tag finds nothing", async () => {
    const ws = uniqueWorkspace();
    const names = ["delta", "alpha", "echo", "charlie", "bravo"];
    ok(await call(ws, "create_entities", { entities: names.map((name) => entity(name)) }));
    for (const name of names) ok(await call(ws, "tag_entity", { entityName: name, tagNames: ["all"] }));
    const top = ok<ByTag>(await call(ws, "get_entities_by_tag", { tagName: "all", limit: 2 }));
    expect({ total: top.total, names: top.entities.map((e) => e.name) }).toEqual({ total: 5, names: ["alpha", "bravo"] });
    expect(ok(await call(ws, "get_entities_by_tag", { tagName: "none" }))).toEqual({
      tagName: "none",
      total: 0,
      entities: [],
      relations: [],
    });
    expect(failed(await call(ws, "get_entities_by_tag", { tagName: "all", limit: 0 })).error).toBe("ValidationError");
  });
});

describe("define_tag, get_all_tags and get_tag_usage", () => {
  test("define_tag creates, then updates only the fields given; get_all_tags lists by name", async () => {
    const ws = uniqueWorkspace();
    expect(ok(await call(ws, "define_tag", { name: "source:slack", category: "source", description: "Learned in Slack." }))).toEqual({
      tag: { name: "source:slack", category: "source", description: "Learned in Slack." },
      created: true,
    });
    expect(ok(await call(ws, "define_tag", { name: "source:slack", description: "From a Slack thread." }))).toEqual({
      tag: { name: "source:slack", category: "source", description: "From a Slack thread." },
      created: false,
    });
    ok(await call(ws, "define_tag", { name: "Zeta" }));
    ok(await call(ws, "define_tag", { name: "alpha", category: "greek" }));
    expect(await allTags(ws)).toEqual([
      { name: "Zeta", category: "", description: "" },
      { name: "alpha", category: "greek", description: "" },
      { name: "source:slack", category: "source", description: "From a Slack thread." },
    ]);
    expect(failed(await call(ws, "define_tag", { name: "x", description: "d".repeat(4097) })).error).toBe("ValidationError");
  });

  test("get_tag_usage counts entities and observations per tag, most used first, unused tags last", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("A", ["a1", "a2"]), entity("B", ["b1"]), entity("C")] }));
    ok(await call(ws, "define_tag", { name: "unused", category: "misc" }));
    ok(await call(ws, "tag_entity", { entityName: "A", tagNames: ["team", "vip"] }));
    ok(await call(ws, "tag_entity", { entityName: "B", tagNames: ["team"] }));
    ok(await call(ws, "tag_observation", { entityName: "A", observationContent: "a1", tagNames: ["team", "draft"] }));
    ok(await call(ws, "tag_observation", { entityName: "B", observationContent: "b1", tagNames: ["draft"] }));
    expect(ok(await call(ws, "get_tag_usage"))).toEqual({
      tags: [
        { name: "team", category: "", entities: 2, observations: 1, total: 3 },
        { name: "draft", category: "", entities: 0, observations: 2, total: 2 },
        { name: "vip", category: "", entities: 1, observations: 0, total: 1 },
        { name: "unused", category: "misc", entities: 0, observations: 0, total: 0 },
      ],
    });
  });
});

describe("tags in read_graph, open_nodes, search_nodes and the graph resource", () => {
  test("entities carry `tags` and observations stay strings with a parallel `observationTags`; without the tags group, neither", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("Alice", ["likes tea", "likes rockets"]), entity("Bob", ["plain"])] }));
    ok(await call(ws, "tag_entity", { entityName: "Alice", tagNames: ["vip"] }));
    ok(await call(ws, "tag_observation", { entityName: "Alice", observationContent: "likes rockets", tagNames: ["confidence:low"] }));
    const alice = {
      name: "Alice",
      entityType: "thing",
      observations: ["likes tea", "likes rockets"],
      tags: ["vip"],
      observationTags: { "likes rockets": ["confidence:low"] },
    };
    const bob = { name: "Bob", entityType: "thing", observations: ["plain"] };

    expect(ok<OfficialGraph>(await call(ws, "open_nodes", { names: ["Alice", "Bob"] })).entities).toEqual([alice, bob]);
    expect(ok<OfficialGraph>(await call(ws, "search_nodes", { query: "rockets" })).entities).toEqual([alice]);
    const graph = ok<{ entities: Record<string, unknown>[] }>(await call(ws, "read_graph"));
    // read_graph also says who wrote each entity, and its version (open_nodes and search_nodes keep the official shape).
    const anonymous = { createdBy: "anonymous", updatedBy: "anonymous", version: expect.stringMatching(/^[0-9a-f]{16}$/) };
    expect(graph.entities.map(({ id: _id, metadata: _metadata, ...rest }) => rest)).toEqual([
      { ...alice, ...anonymous },
      { ...bob, ...anonymous },
    ]);
    const names = ok<{ entities: Record<string, unknown>[] }>(await call(ws, "read_graph", { mode: "names" }));
    expect(names.entities.map(({ id: _id, ...rest }) => rest)).toEqual([
      { name: "Alice", entityType: "thing", tags: ["vip"] },
      { name: "Bob", entityType: "thing" },
    ]);
    const resource = await mcp.client.readResource({ uri: `memory://workspaces/${ws}/graph` });
    expect(JSON.parse(String((resource.contents[0] as { text: string }).text))).toEqual(graph);

    const plain = await connectClient(server.url, `/api/workspaces/${ws}/mcp?toolsets=core,graph`);
    try {
      const untagged = { name: "Alice", entityType: "thing", observations: ["likes tea", "likes rockets"] };
      expect(ok<OfficialGraph>(await plain.call("open_nodes", { names: ["Alice"] })).entities).toEqual([untagged]);
      expect(ok<OfficialGraph>(await plain.call("search_nodes", { query: "rockets" })).entities).toEqual([untagged]);
      expect(ok<{ entities: Record<string, unknown>[] }>(await plain.call("read_graph")).entities[0]).not.toHaveProperty("tags");
      const viaResource = await plain.client.readResource({ uri: "memory://knowledge-graph" });
      expect(JSON.parse(String((viaResource.contents[0] as { text: string }).text)).entities[0]).not.toHaveProperty("observationTags");
    } finally {
      await plain.close();
    }
  });
});

describe("deletes clean up (checked on the raw rows)", () => {
  test("delete_entities removes the entity's tag links and their index rows; the definitions stay", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("Alice", ["o1", "o2"]), entity("Bob", ["b1"])] }));
    ok(await call(ws, "create_relations", { relations: [{ from: "Alice", to: "Bob", relationType: "knows" }] }));
    ok(await call(ws, "tag_entity", { entityName: "Alice", tagNames: ["vip", "team"] }));
    ok(await call(ws, "tag_observation", { entityName: "Alice", observationContent: "o2", tagNames: ["draft", "team"] }));
    ok(await call(ws, "tag_entity", { entityName: "Bob", tagNames: ["team"] }));
    ok(await call(ws, "delete_entities", { entityNames: ["Alice"] }));

    expect(await checkedTagLinks(ws)).toEqual(["team: Bob"]);
    expect((await rawRows(ws)).map((row) => row.kind).sort()).toEqual(
      ["entity", "observation", "tag", "tag", "tag", "tag-index", "entity-tag"].sort(),
    );
    expect((await allTags(ws)).map((tag) => tag.name)).toEqual(["draft", "team", "vip"]);
    expect(ok<ByTag>(await call(ws, "get_entities_by_tag", { tagName: "vip" })).total).toBe(0);
  });

  test("delete_observations removes that observation's tag links and index rows, and only those", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("Alice", ["keep", "drop", "also drop"])] }));
    ok(await call(ws, "tag_entity", { entityName: "Alice", tagNames: ["team"] }));
    for (const content of ["keep", "drop", "also drop"])
      ok(await call(ws, "tag_observation", { entityName: "Alice", observationContent: content, tagNames: ["team", "x"] }));
    ok(await call(ws, "delete_observations", { deletions: [{ entityName: "Alice", observations: ["drop", "also drop", "never there"] }] }));
    expect(await checkedTagLinks(ws)).toEqual(["team: Alice", "team: Alice/keep", "x: Alice/keep"]);
    expect(ok<OfficialGraph>(await call(ws, "open_nodes", { names: ["Alice"] })).entities[0]).toEqual({
      name: "Alice",
      entityType: "thing",
      observations: ["keep"],
      tags: ["team"],
      observationTags: { keep: ["team", "x"] },
    });
  });

  test("delete_observations of more rows than one transaction holds keeps the links consistent", async () => {
    const ws = uniqueWorkspace();
    const facts = Array.from({ length: 70 }, (_, i) => `fact ${i}`);
    ok(await call(ws, "create_entities", { entities: [entity("Big", facts)] }));
    for (const fact of facts.slice(0, 40))
      ok(await call(ws, "tag_observation", { entityName: "Big", observationContent: fact, tagNames: ["t"] }));
    // 70 observation rows + 40 links + 40 index rows: two transactions, each conditional on the entity row's ETag the one before left.
    ok(await call(ws, "delete_observations", { deletions: [{ entityName: "Big", observations: facts.slice(0, 60) }] }));
    expect(await checkedTagLinks(ws)).toEqual([]);
    expect(ok<OfficialGraph>(await call(ws, "open_nodes", { names: ["Big"] })).entities[0]!.observations).toEqual(facts.slice(60));
  });

  test("delete_tags unlinks a tag everywhere and deletes its definition; unknown names are ignored", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [entity("A", ["a1"]), entity("B", ["b1", "b2"])] }));
    ok(await call(ws, "tag_entity", { entityName: "A", tagNames: ["old", "keep"] }));
    ok(await call(ws, "tag_entity", { entityName: "B", tagNames: ["old"] }));
    ok(await call(ws, "tag_observation", { entityName: "B", observationContent: "b2", tagNames: ["old", "keep"] }));
    ok(await call(ws, "define_tag", { name: "never-used" }));
    const result = await call(ws, "delete_tags", { tagNames: ["old", "never-used", "unknown"] });
    expect(ok(result)).toEqual({ deletedTags: ["old", "never-used"], unlinkedEntities: 2, unlinkedObservations: 1 });
    expect(await checkedTagLinks(ws)).toEqual(["keep: A", "keep: B/b2"]);
    expect((await allTags(ws)).map((tag) => tag.name)).toEqual(["keep"]);
    expect(ok(await call(ws, "delete_tags", { tagNames: ["old"] }))).toEqual({
      deletedTags: [],
      unlinkedEntities: 0,
      unlinkedObservations: 0,
    });
  });

  test("delete_tags of a tag on more entities than one transaction holds", async () => {
    const ws = uniqueWorkspace();
    const names = Array.from({ length: 60 }, (_, i) => `E${i}`);
    ok(await call(ws, "create_entities", { entities: names.map((name) => entity(name)) }));
    await Promise.all(names.map(async (name) => ok(await call(ws, "tag_entity", { entityName: name, tagNames: ["bulk"] }))));
    expect(ok(await call(ws, "delete_tags", { tagNames: ["bulk"] }))).toEqual({
      deletedTags: ["bulk"],
      unlinkedEntities: 60,
      unlinkedObservations: 0,
    });
    expect((await rawRows(ws)).filter((row) => row.kind !== "entity")).toEqual([]);
  });
});

describe("concurrency", () => {
  test("tagging while the entity, its observations or the tag are deleted leaves no orphan link or index row", async () => {
    const ws = uniqueWorkspace();
    const rounds = 12;
    const tasks: { tool: string; result: Promise<CallToolResult> }[] = [];
    const run = (tool: string, args: Record<string, unknown>) => tasks.push({ tool, result: call(ws, tool, args) });
    for (let i = 0; i < rounds; i++) {
      const name = `E${i}`;
      ok(await call(ws, "create_entities", { entities: [entity(name, ["fact"])] }));
      // Each group races; any order is fine, but what remains must hold together.
      run("tag_entity", { entityName: name, tagNames: ["race", `own-${i}`] });
      run("delete_entities", { entityNames: [name] });
      run("tag_observation", { entityName: name, observationContent: "fact", tagNames: ["race"] });
    }
    const survivor = "Survivor";
    ok(
      await call(ws, "create_entities", {
        entities: [
          entity(
            survivor,
            Array.from({ length: rounds }, (_, i) => `s${i}`),
          ),
        ],
      }),
    );
    for (let i = 0; i < rounds; i++) {
      run("tag_observation", { entityName: survivor, observationContent: `s${i}`, tagNames: ["race"] });
      run("delete_observations", { deletions: [{ entityName: survivor, observations: [`s${i}`] }] });
      if (i % 4 === 0) run("delete_tags", { tagNames: ["race"] });
    }
    for (const { tool, result } of tasks) {
      const outcome = await result;
      if (!outcome.isError) continue;
      // Tagging loses to a delete with NotFoundError. delete_tags may lose to a storm of tagging with the same tag, and then says to retry.
      expect({ tool, error: failed(outcome).error }).toEqual({ tool, error: tool === "delete_tags" ? "ConflictError" : "NotFoundError" });
    }
    // Every entity but the survivor is gone, and so is every survivor observation: so is every tag link.
    expect(ok<OfficialGraph>(await call(ws, "open_nodes", { names: [survivor] })).entities[0]!.observations).toEqual([]);
    expect(await checkedTagLinks(ws)).toEqual([]);
  });
});

describe("workspaces", () => {
  test("tags are isolated: the same tag names in two workspaces never see each other", async () => {
    const [a, b] = [uniqueWorkspace("tags-a"), uniqueWorkspace("tags-b")];
    for (const ws of [a, b]) ok(await call(ws, "create_entities", { entities: [entity("Shared", ["fact"])] }));
    ok(await call(a, "define_tag", { name: "vip", description: "in A" }));
    ok(await call(a, "tag_entity", { entityName: "Shared", tagNames: ["vip", "only-a"] }));
    ok(await call(b, "tag_observation", { entityName: "Shared", observationContent: "fact", tagNames: ["vip"] }));

    expect(await allTags(a)).toEqual([
      { name: "only-a", category: "", description: "" },
      { name: "vip", category: "", description: "in A" },
    ]);
    expect(await allTags(b)).toEqual([{ name: "vip", category: "", description: "" }]);
    expect(ok<ByTag>(await call(b, "get_entities_by_tag", { tagName: "only-a" })).total).toBe(0);
    expect(ok<ByTag>(await call(b, "get_entities_by_tag", { tagName: "vip" })).entities).toEqual([
      { name: "Shared", entityType: "thing", observations: ["fact"], observationTags: { fact: ["vip"] } },
    ]);
    ok(await call(a, "delete_tags", { tagNames: ["vip"] }));
    expect(ok<{ tags: { name: string; total: number }[] }>(await call(b, "get_tag_usage")).tags).toEqual([
      { name: "vip", category: "", entities: 0, observations: 1, total: 1 },
    ]);
    expect(await checkedTagLinks(a)).toEqual(["only-a: Shared"]);
  });

  test("on the bound route every tag tool works without workspaceName", async () => {
    const ws = uniqueWorkspace();
    const bound = await connectClient(server.url, `/api/workspaces/${ws}/mcp?toolsets=graph,tags`);
    try {
      ok(await bound.call("create_entities", { entities: [entity("A", ["a1"])] }));
      ok(await bound.call("define_tag", { name: "t", category: "c" }));
      expect(ok(await bound.call("tag_entity", { entityName: "A", tagNames: ["t"] }))).toEqual({ entityName: "A", addedTags: ["t"] });
      ok(await bound.call("tag_observation", { entityName: "A", observationContent: "a1", tagNames: ["u"] }));
      expect(ok<ByTag>(await bound.call("get_entities_by_tag", { tagName: "u" })).total).toBe(1);
      expect(ok<{ tags: Tag[] }>(await bound.call("get_all_tags")).tags).toHaveLength(2);
      expect(ok<{ tags: unknown[] }>(await bound.call("get_tag_usage")).tags).toHaveLength(2);
      expect(ok(await bound.call("untag_observation", { entityName: "A", observationContent: "a1", tagNames: ["u"] }))).toEqual({
        entityName: "A",
        removedTags: ["u"],
      });
      expect(ok(await bound.call("remove_tags_from_entity", { entityName: "A", tagNames: ["t"] }))).toEqual({
        entityName: "A",
        removedTags: ["t"],
      });
      expect(ok(await bound.call("delete_tags", { tagNames: ["t", "u"] }))).toMatchObject({ deletedTags: ["t", "u"] });
    } finally {
      await bound.close();
    }
  });
});

describe("tools/list", () => {
  test("every tag tool has an output schema that admits errors, and honest annotations", async () => {
    const { tools } = await mcp.client.listTools();
    const tagTools = new Map(tools.filter((tool) => tool.name.includes("tag")).map((tool) => [tool.name, tool]));
    expect([...tagTools.keys()].sort()).toEqual([
      "define_tag",
      "delete_tags",
      "get_all_tags",
      "get_entities_by_tag",
      "get_tag_usage",
      "remove_tags_from_entity",
      "tag_entity",
      "tag_observation",
      "untag_observation",
    ]);
    for (const tool of tagTools.values()) {
      expect(tool.outputSchema?.anyOf).toHaveLength(2);
      expect(tool.annotations).toMatchObject({ openWorldHint: false, idempotentHint: true });
    }
    const readOnly = [...tagTools.values()]
      .filter((tool) => tool.annotations?.readOnlyHint)
      .map((tool) => tool.name)
      .sort();
    expect(readOnly).toEqual(["get_all_tags", "get_entities_by_tag", "get_tag_usage"]);
    const destructive = [...tagTools.values()]
      .filter((tool) => tool.annotations?.destructiveHint)
      .map((tool) => tool.name)
      .sort();
    expect(destructive).toEqual(["delete_tags", "remove_tags_from_entity", "untag_observation"]);
  });
});

describe("storage round trips", () => {
  test("tag_entity: 2 (one range read, one transaction), 1 when there is nothing to add", async () => {
    const ws = uniqueWorkspace();
    ok(
      await call(ws, "create_entities", {
        entities: [
          entity(
            "Hub",
            Array.from({ length: 30 }, (_, i) => `o${i}`),
          ),
        ],
      }),
    );
    ok(await call(ws, "create_entities", { entities: [entity("Other")] }));
    ok(await call(ws, "create_relations", { relations: [{ from: "Hub", to: "Other", relationType: "r" }] }));
    const tags = Array.from({ length: 32 }, (_, i) => `tag-${i}`);
    expect(await requestsFor(async () => ok(await call(ws, "tag_entity", { entityName: "Hub", tagNames: tags })))).toBe(2);
    expect(await requestsFor(async () => ok(await call(ws, "tag_entity", { entityName: "Hub", tagNames: ["tag-0", "new"] })))).toBe(2);
    expect(await requestsFor(async () => ok(await call(ws, "tag_entity", { entityName: "Hub", tagNames: ["tag-0", "new"] })))).toBe(1);
    expect(
      await requestsFor(async () => ok(await call(ws, "tag_observation", { entityName: "Hub", observationContent: "o3", tagNames: tags }))),
    ).toBe(2);
    expect(await requestsFor(async () => failed(await call(ws, "tag_entity", { entityName: "Nobody", tagNames: ["x"] })))).toBe(1);
  });

  test("get_entities_by_tag: 1 index read + 1 range read per entity; get_all_tags: 1 once the workspace index is built", async () => {
    const ws = uniqueWorkspace();
    const names = ["A", "B", "C", "D"];
    ok(await call(ws, "create_entities", { entities: names.map((name) => entity(name, ["fact"])) }));
    ok(await call(ws, "tag_entity", { entityName: "A", tagNames: ["t"] }));
    ok(await call(ws, "tag_entity", { entityName: "B", tagNames: ["t"] }));
    ok(await call(ws, "tag_observation", { entityName: "B", observationContent: "fact", tagNames: ["t"] }));
    ok(await call(ws, "tag_observation", { entityName: "C", observationContent: "fact", tagNames: ["t"] }));
    for (let i = 0; i < 20; i++) ok(await call(ws, "define_tag", { name: `extra-${i}` }));
    expect(await requestsFor(async () => expect(ok<ByTag>(await call(ws, "get_entities_by_tag", { tagName: "t" })).total).toBe(3))).toBe(
      1 + 3,
    );
    expect(await requestsFor(async () => ok(await call(ws, "get_entities_by_tag", { tagName: "t", limit: 1 })))).toBe(1 + 1);
    expect(await requestsFor(async () => ok(await call(ws, "get_entities_by_tag", { tagName: "nothing" })))).toBe(1);
    // The first whole-workspace read builds the workspace index: one page (under 1,000 rows) and, the first time ever, the
    // claim of its generation on the registry row (docs/search.md#freshness). Every later one reads the feed's tail.
    expect(await requestsFor(async () => expect(await allTags(ws)).toHaveLength(21))).toBe(1 + 1);
    expect(await requestsFor(async () => expect(await allTags(ws)).toHaveLength(21))).toBe(1);
  });

  test("delete_observations: 1 range read + its transactions + 1 range read again, tag links and index rows included", async () => {
    const ws = uniqueWorkspace();
    const facts = Array.from({ length: 40 }, (_, i) => `o${i}`);
    ok(await call(ws, "create_entities", { entities: [entity("E", facts)] }));
    for (const fact of facts.slice(0, 20))
      ok(await call(ws, "tag_observation", { entityName: "E", observationContent: fact, tagNames: ["a", "b"] }));
    // 40 observation rows + 20 × 2 links + their 40 index rows = 120 rows: two transactions.
    expect(
      await requestsFor(async () => ok(await call(ws, "delete_observations", { deletions: [{ entityName: "E", observations: facts }] }))),
    ).toBe(1 + 2 + 1);
    expect(await checkedTagLinks(ws)).toEqual([]);
    expect(
      await requestsFor(async () => ok(await call(ws, "delete_observations", { deletions: [{ entityName: "E", observations: facts }] }))),
    ).toBe(1);
  });

  test("delete_entities keeps its budget with tags: 1 range read + 1 conditional delete + ⌈(rows - 1)/100⌉ transactions, index rows included", async () => {
    const ws = uniqueWorkspace();
    const others = Array.from({ length: 20 }, (_, i) => `P${i}`);
    const facts = Array.from({ length: 30 }, (_, i) => `o${i}`);
    ok(await call(ws, "create_entities", { entities: [entity("Hub", facts), ...others.map((name) => entity(name))] }));
    ok(await call(ws, "create_relations", { relations: others.map((name) => ({ from: "Hub", to: name, relationType: "r" })) }));
    ok(await call(ws, "tag_entity", { entityName: "Hub", tagNames: Array.from({ length: 25 }, (_, i) => `t${i}`) }));
    for (const fact of facts.slice(0, 10))
      ok(await call(ws, "tag_observation", { entityName: "Hub", observationContent: fact, tagNames: ["a", "b"] }));
    // Hub's row, 30 observations, 20 relations × 3 rows, 25 entity tags × 2 rows (link + index), 20 observation tags × 2 rows.
    const rows = 1 + 30 + 20 * 3 + 25 * 2 + 20 * 2;
    const before = (await rawRows(ws)).length;
    const used = await requestsFor(async () => ok(await call(ws, "delete_entities", { entityNames: ["Hub"] })));
    expect((await rawRows(ws)).length).toBe(before - rows);
    expect(used).toBe(2 + Math.ceil((rows - 1) / 100));
    expect(await checkedTagLinks(ws)).toEqual([]);
  });
});
