import { describe, expect, test } from "@jest/globals";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";

import type { duplicateReviewShape, entityDetailsShape, graphSliceShape, graphViewShape, timelineShape } from "../src/mcp/appShapes.js";
import { failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withTestServers } from "./support/harness.js";
import type { GraphOut } from "./support/outputs.js";
import { eventRowKeys, partitionRows, rawTable } from "./support/rawRows.js";

/**
 * The MCP Apps' tools (docs/apps.md) end to end, through the real MCP Client on real storage: show_memory_graph (each
 * opening, asOf, truncation), app_expand, app_filter, app_entity_details, show_entity_timeline (a deleted entity, paging,
 * and restoring the state right after an event), review_duplicates; bad input refused with nothing changed; and the
 * storage requests each costs (docs/architecture.md#storage-round-trips-per-call).
 */
let server: TestServer;
let mcp: McpTestClient;
let skewedMcp: McpTestClient;
withTestServers(
  {
    // An instance whose clock is 5 s behind storage's: its events' writer times are 5 s before their commits.
    servers: { server: {}, skewed: { storage: { clock: () => Date.now() - 5000 } } },
    clients: { mcp: {}, skewedMcp: { on: "skewed" } },
  },
  (started) => void ({ server, mcp, skewedMcp } = started),
);

type Args = Record<string, unknown>;
const call = (ws: string, name: string, args: Args = {}, client = mcp) => client.call(name, { workspaceName: ws, ...args });
const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

/** The results' types, from the tools' own output shapes (src/mcp/appShapes.ts). */
type Out<Shape extends z.ZodRawShape> = z.infer<z.ZodObject<Shape>>;
type Slice = Out<typeof graphSliceShape>;
type View = Out<typeof graphViewShape>;
type Node = Slice["entities"][number];
type Edge = Slice["relations"][number];
type Timeline = Out<typeof timelineShape>;
type Details = Out<typeof entityDetailsShape>;
type Review = Out<typeof duplicateReviewShape>;

const names = (slice: { entities: Node[] }) => slice.entities.map((entity) => entity.name);
const edges = (slice: { relations: Edge[] }) => slice.relations.map((r) => `${r.from}-${r.relationType}->${r.to}`).sort();
const textOf = (result: CallToolResult) => (result.content[0]?.type === "text" ? result.content[0].text : "");

/** Every row of the workspace with its etag: any write changes this. */
async function storageOf(ws: string): Promise<string[]> {
  return (await partitionRows(rawTable(), ws)).map((row) => `${row.rowKey} ${String(row.etag)}`).sort();
}

/**
 * A hub and spokes: Hub links to S1..S5; S1 to S2 and S3 (so S1 is the next most connected); Lone has none. Types, a tag on
 * an entity and one on an observation.
 */
async function seedStar(): Promise<string> {
  const ws = uniqueWorkspace("apps");
  ok(
    await call(ws, "create_entities", {
      entities: [
        { name: "Hub", entityType: "service", observations: ["routes payments"] },
        ...[1, 2, 3, 4, 5].map((i) => ({ name: `S${i}`, entityType: i <= 2 ? "person" : "team", observations: [`spoke ${i}`] })),
        { name: "Lone", entityType: "person", observations: ["writes TypeScript"] },
      ],
    }),
  );
  ok(
    await call(ws, "create_relations", {
      relations: [
        ...[1, 2, 3, 4, 5].map((i) => ({ from: "Hub", to: `S${i}`, relationType: "serves" })),
        { from: "S1", to: "S2", relationType: "knows" },
        { from: "S1", to: "S3", relationType: "leads" },
      ],
    }),
  );
  ok(await call(ws, "tag_entity", { entityName: "S4", tagNames: ["vip"] }));
  ok(await call(ws, "tag_observation", { entityName: "S5", observationContent: "spoke 5", tagNames: ["source:chat"] }));
  return ws;
}

describe("show_memory_graph", () => {
  test("a small graph opens whole: every entity with its degree, every relation, the totals, the history's start and the offered tools", async () => {
    const ws = await seedStar();
    const result = await call(ws, "show_memory_graph");
    const view = ok<View>(result);
    expect(view).toMatchObject({
      app: "graph",
      workspaceName: ws,
      opening: "all",
      hits: [],
      truncated: false,
      totals: { entities: 7, relations: 7 },
    });
    expect(names(view).sort()).toEqual(["Hub", "Lone", "S1", "S2", "S3", "S4", "S5"]);
    expect(Object.fromEntries(view.entities.map((entity) => [entity.name, entity.degree]))).toEqual({
      Hub: 5,
      S1: 3,
      S2: 2,
      S3: 2,
      S4: 1,
      S5: 1,
      Lone: 0,
    });
    expect(view.entities.find((entity) => entity.name === "S4")!.tags).toEqual(["vip"]);
    expect(edges(view)).toHaveLength(7);
    // The history starts at the first event, and an asOf read there is accepted (the slider's left end).
    const history = ok<{ events: { committed?: string; at: string }[] }>(await call(ws, "get_changes", { order: "oldest", limit: 1 }));
    expect(Date.parse(view.historySince!)).toBeLessThanOrEqual(Date.now());
    expect(Math.abs(Date.parse(view.historySince!) - Date.parse(history.events[0]!.at))).toBeLessThan(5000);
    ok(await call(ws, "show_memory_graph", { asOf: view.historySince }));
    // The tools this connection offers: the writes the apps make among them, the app-only reads too.
    expect(view.tools).toEqual(
      expect.arrayContaining(["merge_entities", "restore_entity", "app_expand", "app_entity_details", "find_path"]),
    );
    // The text is a short summary for clients without Apps.
    expect(textOf(result)).toMatch(/^The memory graph of workspace '.+', opened whole: 7 entities and 7 relations shown/);
  });

  test("entityName opens on the entity and its neighbours; limit keeps the most connected; an unknown name says how to find it", async () => {
    const ws = await seedStar();
    const view = ok<View>(await call(ws, "show_memory_graph", { entityName: "S1" }));
    expect(view).toMatchObject({ opening: "entity", focus: "S1", truncated: false, totals: { entities: 7, relations: 7 } });
    expect(names(view)).toEqual(["S1", "Hub", "S2", "S3"]);
    expect(edges(view)).toEqual(["Hub-serves->S1", "Hub-serves->S2", "Hub-serves->S3", "S1-knows->S2", "S1-leads->S3"]);
    const cut = ok<View>(await call(ws, "show_memory_graph", { entityName: "S1", limit: 2 }));
    expect(cut).toMatchObject({ truncated: true, focus: "S1" });
    expect(names(cut)).toEqual(["S1", "Hub"]);
    const unknown = failed(await call(ws, "show_memory_graph", { entityName: "Nobody" }));
    expect(unknown.error).toBe("NotFoundError");
    expect(unknown.message).toMatch(/Entity 'Nobody' not found .*show_memory_graph with a query/);
  });

  test("query opens on the search's hits and their neighbours, the hits marked", async () => {
    const ws = await seedStar();
    const view = ok<View>(await call(ws, "show_memory_graph", { query: "payments" }));
    expect(view).toMatchObject({ opening: "search" });
    expect(names(view)[0]).toBe("Hub");
    expect(names(view).sort()).toEqual(["Hub", "S1", "S2", "S3", "S4", "S5"]);
    // Hits are search_entities' (words, meaning and graph proximity), best first: every hit is drawn.
    expect(view.hits[0]).toBe("Hub");
    for (const hit of view.hits) expect(names(view)).toContain(hit);
    const none = ok<View>(await call(ws, "show_memory_graph", { query: "qqzxvb" }));
    expect(none).toMatchObject({ opening: "search", hits: [], entities: [], relations: [] });
  });

  test("a graph larger than limit opens on its most connected entities and the relations among them", async () => {
    const ws = await seedStar();
    const view = ok<View>(await call(ws, "show_memory_graph", { limit: 2 }));
    expect(view).toMatchObject({ opening: "hubs", truncated: true, totals: { entities: 7, relations: 7 } });
    expect(names(view)).toEqual(["Hub", "S1"]);
    expect(edges(view)).toEqual(["Hub-serves->S1"]);
  });

  test("asOf shows the graph as it was, with the whole workspace's counts then", async () => {
    const ws = uniqueWorkspace("apps");
    ok(
      await call(ws, "create_entities", {
        entities: [
          { name: "A", entityType: "t", observations: ["a"] },
          { name: "B", entityType: "t", observations: [] },
        ],
      }),
    );
    ok(await call(ws, "create_relations", { relations: [{ from: "A", to: "B", relationType: "r" }] }));
    await pause();
    const before = new Date().toISOString();
    await pause();
    ok(await call(ws, "create_entities", { entities: [{ name: "C", entityType: "t", observations: [] }] }));
    ok(await call(ws, "create_relations", { relations: [{ from: "C", to: "A", relationType: "r" }] }));
    ok(await call(ws, "delete_entities", { entityNames: ["B"] }));
    const now = ok<View>(await call(ws, "show_memory_graph"));
    expect(names(now).sort()).toEqual(["A", "C"]);
    const then = ok<View>(await call(ws, "show_memory_graph", { asOf: before }));
    expect(then).toMatchObject({ asOf: before, opening: "all", totals: { entities: 2, relations: 1 } });
    expect(names(then).sort()).toEqual(["A", "B"]);
    expect(edges(then)).toEqual(["A-r->B"]);
    const focusThen = ok<View>(await call(ws, "show_memory_graph", { entityName: "B", asOf: before }));
    expect(names(focusThen)).toEqual(["B", "A"]);
    expect(failed(await call(ws, "show_memory_graph", { entityName: "C", asOf: before })).message).toMatch(/did not exist at/);
    // asOf with a query: search_nodes' rule on the graph as it was.
    const searchThen = ok<View>(await call(ws, "show_memory_graph", { query: "a", asOf: before }));
    expect(searchThen.hits).toContain("A");
  });

  test("bad input is refused with how to fix it, and nothing changes", async () => {
    const ws = await seedStar();
    const before = await storageOf(ws);
    const cases: [Args, RegExp][] = [
      [{ entityName: "Hub", query: "x" }, /entityName or query, not both/],
      [{ limit: 0 }, /limit must be a whole number from 1 to 2000/],
      [{ limit: 2001 }, /limit must be a whole number from 1 to 2000/],
      [{ query: "  " }, /query is empty/],
      [{ asOf: "yesterday" }, /asOf/],
      [{ asOf: "2999-01-01T00:00:00Z" }, /in the future/],
      [{ asOf: "2000-01-01T00:00:00Z" }, /No history before/],
    ];
    for (const [args, message] of cases) {
      const error = failed(await call(ws, "show_memory_graph", args));
      expect({ args, error: error.error }).toEqual({ args, error: "ValidationError" });
      expect(error.message).toMatch(message);
    }
    expect(await storageOf(ws)).toEqual(before);
  });
});

describe("app_expand and app_filter", () => {
  test("app_expand: the neighbourhood with degrees, the most connected first when cut, as it was with asOf", async () => {
    const ws = await seedStar();
    const hood = ok<Slice>(await call(ws, "app_expand", { entityName: "Hub" }));
    expect(hood).toMatchObject({ workspaceName: ws, truncated: false });
    expect(names(hood)).toEqual(["Hub", "S1", "S2", "S3", "S4", "S5"]);
    expect(hood.entities.map((entity) => entity.degree)).toEqual([5, 3, 2, 2, 1, 1]);
    expect(edges(hood)).toEqual([
      "Hub-serves->S1",
      "Hub-serves->S2",
      "Hub-serves->S3",
      "Hub-serves->S4",
      "Hub-serves->S5",
      "S1-knows->S2",
      "S1-leads->S3",
    ]);
    const cut = ok<Slice>(await call(ws, "app_expand", { entityName: "Hub", limit: 3 }));
    expect(cut.truncated).toBe(true);
    expect(names(cut)).toEqual(["Hub", "S1", "S2"]);
    await pause();
    const before = new Date().toISOString();
    await pause();
    ok(await call(ws, "delete_relations", { relations: [{ from: "Hub", to: "S5", relationType: "serves" }] }));
    expect(names(ok<Slice>(await call(ws, "app_expand", { entityName: "Hub" })))).not.toContain("S5");
    const then = ok<Slice>(await call(ws, "app_expand", { entityName: "Hub", asOf: before }));
    expect(then.asOf).toBe(before);
    expect(names(then)).toContain("S5");
    const lone = ok<Slice>(await call(ws, "app_expand", { entityName: "Lone" }));
    expect(lone).toMatchObject({ entities: [{ name: "Lone", degree: 0 }], relations: [] });
    const unknown = failed(await call(ws, "app_expand", { entityName: "Nobody" }));
    expect(unknown.error).toBe("NotFoundError");
  });

  test("app_filter: by type, by a tag on the entity or an observation, by relation type, all together; cut to the most connected", async () => {
    const ws = await seedStar();
    const people = ok<Slice>(await call(ws, "app_filter", { entityType: "person" }));
    expect(names(people)).toEqual(["S1", "S2", "Lone"]);
    expect(edges(people)).toEqual(["S1-knows->S2"]);
    expect(names(ok<Slice>(await call(ws, "app_filter", { tag: "vip" })))).toEqual(["S4"]);
    expect(names(ok<Slice>(await call(ws, "app_filter", { tag: "source:chat" })))).toEqual(["S5"]);
    expect(names(ok<Slice>(await call(ws, "app_filter", { relationType: "leads" })))).toEqual(["S1", "S3"]);
    expect(names(ok<Slice>(await call(ws, "app_filter", { relationType: "knows", entityType: "person" })))).toEqual(["S1", "S2"]);
    expect(names(ok<Slice>(await call(ws, "app_filter", { relationType: "leads", entityType: "person" })))).toEqual(["S1"]);
    const cut = ok<Slice>(await call(ws, "app_filter", { relationType: "serves", limit: 2 }));
    expect(cut).toMatchObject({ truncated: true });
    expect(names(cut)).toEqual(["Hub", "S1"]);
    const none = failed(await call(ws, "app_filter", {}));
    expect(none.error).toBe("ValidationError");
    expect(none.message).toMatch(/Give entityType, tag or relationType/);
  });
});

describe("app_entity_details", () => {
  test("facts through the time lens, relations with status, its creation and newest events, in one call; asOf; an unknown entity is null", async () => {
    const ws = uniqueWorkspace("apps");
    ok(
      await call(ws, "create_entities", {
        entities: [
          { name: "Carol", entityType: "project", observations: ["phase: one", "a memory server"] },
          { name: "Dan", entityType: "person", observations: [] },
        ],
      }),
    );
    ok(
      await call(ws, "create_relations", {
        relations: [
          { from: "Dan", to: "Carol", relationType: "works_on" },
          { from: "Dan", to: "Carol", relationType: "mentors" },
        ],
      }),
    );
    ok(await call(ws, "tag_entity", { entityName: "Carol", tagNames: ["vip"] }));
    ok(await call(ws, "tag_observation", { entityName: "Carol", observationContent: "a memory server", tagNames: ["source:chat"] }));
    await pause();
    const before = new Date().toISOString();
    await pause();
    ok(await call(ws, "supersede_observation", { entityName: "Carol", observation: "phase: one", replacement: "phase: two" }));
    ok(await call(ws, "end_relation", { from: "Dan", to: "Carol", relationType: "mentors" }));

    const now = ok<Details>(await call(ws, "app_entity_details", { entityName: "Carol" }));
    expect(now.entity).toMatchObject({
      name: "Carol",
      entityType: "project",
      observations: ["a memory server", "phase: two"],
      tags: ["vip"],
      observationTags: { "a memory server": ["source:chat"] },
      createdBy: "anonymous",
    });
    expect(now.relations).toEqual([{ from: "Dan", to: "Carol", relationType: "works_on" }]);
    expect(now.created).toEqual({ at: expect.any(String), principal: "anonymous" });
    expect(now.recent.map((event) => event.tool)).toEqual([
      "end_relation",
      "supersede_observation",
      "tag_observation",
      "tag_entity",
      "create_relations",
      "create_entities",
    ]);

    const all = ok<Details>(await call(ws, "app_entity_details", { entityName: "Carol", includeSuperseded: true }));
    expect(all.entity!.observations).toEqual(["phase: one", "a memory server", "phase: two"]);
    expect(all.entity!.observationValidity!["phase: one"]).toMatchObject({ status: "superseded", supersededBy: "phase: two" });
    expect(all.relations).toEqual([
      { from: "Dan", to: "Carol", relationType: "works_on" },
      { from: "Dan", to: "Carol", relationType: "mentors", status: "ended" },
    ]);

    const then = ok<Details>(await call(ws, "app_entity_details", { entityName: "Carol", asOf: before }));
    expect(then.asOf).toBe(before);
    expect(then.entity!.observations).toEqual(["phase: one", "a memory server"]);
    expect(then.relations.map((relation) => relation.relationType).sort()).toEqual(["mentors", "works_on"]);
    expect(then.recent.map((event) => event.tool)).toEqual(["tag_observation", "tag_entity", "create_relations", "create_entities"]);

    // Only the newest 10 events.
    for (let i = 0; i < 11; i++)
      ok(await call(ws, "add_observations", { observations: [{ entityName: "Carol", contents: [`fact ${i}`] }] }));
    const busy = ok<Details>(await call(ws, "app_entity_details", { entityName: "Carol" }));
    expect(busy.recent).toHaveLength(10);
    expect(busy.recent[0]!.summary).toMatch(/fact 10/);

    const unknown = ok<Details>(await call(ws, "app_entity_details", { entityName: "Nobody" }));
    expect(unknown).toEqual({ workspaceName: ws, entity: null, relations: [], recent: [] });
    ok(await call(ws, "delete_entities", { entityNames: ["Dan"] }));
    const gone = ok<Details>(await call(ws, "app_entity_details", { entityName: "Dan" }));
    expect(gone.entity).toBeNull();
    expect(gone.recent[0]!.kinds).toContain("entity.deleted");
  });
});

describe("show_entity_timeline", () => {
  test("newest first, for a deleted entity too, paged by cursor; each event's `at` restores the state right after it", async () => {
    // On the instance whose clock runs 5 s behind storage's: the writer's time of an event is then well before its commit, so
    // an `at` taken from the writer's clock would read the state before the event (this test fails with it).
    const ws = uniqueWorkspace("apps");
    const on = (name: string, args: Args = {}) => call(ws, name, args, skewedMcp);
    ok(
      await on("create_entities", {
        entities: [
          { name: "X", entityType: "t", observations: ["x1"] },
          { name: "Y", entityType: "t", observations: [] },
        ],
      }),
    );
    ok(await on("create_relations", { relations: [{ from: "X", to: "Y", relationType: "r" }] }));
    ok(await on("add_observations", { observations: [{ entityName: "X", contents: ["x2"] }] }));
    ok(await on("add_observations", { observations: [{ entityName: "X", contents: ["x3"] }] }));
    ok(await on("delete_entities", { entityNames: ["X"] }));

    const result = await on("show_entity_timeline", { entityName: "X" });
    const timeline = ok<Timeline>(result);
    expect(timeline).toMatchObject({ app: "timeline", entityName: "X", exists: false });
    // The deletion is two transactions (the entity's dependents, then the entity), so two events.
    expect(timeline.events.map((event) => [event.tool, event.kinds])).toEqual([
      ["delete_entities", ["entity.deleted"]],
      ["delete_entities", ["relation.deleted", "observation.deleted"]],
      ["add_observations", ["observation.created"]],
      ["add_observations", ["observation.created"]],
      ["create_relations", ["relation.created"]],
      ["create_entities", ["entity.created", "observation.created"]],
    ]);
    expect(timeline.events[0]!.kinds).toContain("entity.deleted");
    expect(timeline.events.every((event) => event.principal === "anonymous")).toBe(true);
    expect(textOf(result)).toMatch(/^History of 'X' in workspace '.+' \(deleted now\), newest first, 6 events/);

    // The state right after each event, read as of its `at`.
    const expected = [null, [], ["x1", "x2", "x3"], ["x1", "x2"], ["x1"], ["x1"]];
    for (const [i, event] of timeline.events.entries()) {
      const state = ok<Details>(await on("app_entity_details", { entityName: "X", asOf: event.at }));
      expect({ event: event.tool, i, observations: state.entity?.observations ?? null }).toEqual({
        event: event.tool,
        i,
        observations: expected[i],
      });
    }
    // The writer's times (get_entity_history's `at`) would not: as of the x2 add's writer time (5 s before its commit), x2 is
    // not there yet (or history has not even begun).
    const writerTimes = ok<{ events: { at: string }[] }>(await on("get_entity_history", { entityName: "X" })).events.map(
      (event) => event.at,
    );
    const early = await on("app_entity_details", { entityName: "X", asOf: writerTimes[2]! });
    if (early.isError) expect(failed(early).message).toMatch(/No history before/);
    else expect(ok<Details>(early).entity?.observations ?? []).not.toContain("x2");

    // restore_entity at the second add's `at` brings X back with x1 and x2, not x3.
    ok(await on("restore_entity", { entityName: "X", asOf: timeline.events[3]!.at }));
    const restored = ok<GraphOut>(await on("open_nodes", { names: ["X"] }));
    expect(restored.entities[0]!.observations).toEqual(["x1", "x2"]);
    expect(ok<Timeline>(await on("show_entity_timeline", { entityName: "X" })).exists).toBe(true);

    // Paging: two at a time, every event once, newest first.
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const got = ok<Timeline>(await on("show_entity_timeline", { entityName: "X", limit: 2, ...(cursor ? { cursor } : {}) }));
      seen.push(...got.events.map((event) => event.id));
      cursor = got.cursor;
      if (!cursor) break;
    }
    const whole = ok<Timeline>(await on("show_entity_timeline", { entityName: "X" }));
    expect(seen).toEqual(whole.events.map((event) => event.id));
    expect(seen).toHaveLength(8); // the six above, and the restore's two (the entity, then its relation to Y)
    // A cursor of get_entity_history does not continue a timeline.
    const historyCursor = ok<{ cursor?: string }>(await on("get_entity_history", { entityName: "X", limit: 1 })).cursor!;
    expect(failed(await on("show_entity_timeline", { entityName: "X", cursor: historyCursor })).error).toBe("ValidationError");
  });

  test("an entity whose events retention pruned has an empty timeline, not NotFound", async () => {
    const ws = uniqueWorkspace("apps");
    ok(await call(ws, "create_entities", { entities: [{ name: "Old", entityType: "t", observations: ["kept"] }] }));
    // What MEMORY_HISTORY_RETENTION_DAYS leaves of an entity untouched for longer than the retention: its row, no events
    // (test/history.retention.test.ts prunes them through the server; here they are removed directly, the same end state).
    const table = rawTable();
    const events = await eventRowKeys(table, ws);
    expect(events.length).toBeGreaterThan(0);
    for (const key of events) await table.deleteEntity(ws, key);
    const timeline = ok<Timeline>(await call(ws, "show_entity_timeline", { entityName: "Old" }));
    expect(timeline).toMatchObject({ entityName: "Old", exists: true, events: [] });
    expect(timeline.cursor).toBeUndefined();
  });

  test("an entity with no history is NotFound, saying how to find it; a bad limit is refused", async () => {
    const ws = uniqueWorkspace("apps");
    const unknown = failed(await call(ws, "show_entity_timeline", { entityName: "Nobody" }));
    expect(unknown.error).toBe("NotFoundError");
    expect(unknown.message).toMatch(/has no history .*show_memory_graph/);
    expect(failed(await call(ws, "show_entity_timeline", { entityName: "Nobody", limit: 0 })).error).toBe("ValidationError");
  });
});

describe("review_duplicates", () => {
  test("the detector's pairs, each side with its observations and relations; bad input refused", async () => {
    const ws = uniqueWorkspace("apps");
    ok(
      await call(ws, "create_entities", {
        entities: [
          { name: "Alice Smith", entityType: "person", observations: ["writes TypeScript", "likes tea"] },
          { name: "alice_smith", entityType: "person", observations: ["writes TypeScript"] },
          { name: "Payments", entityType: "project", observations: [] },
        ],
      }),
    );
    ok(await call(ws, "create_relations", { relations: [{ from: "alice_smith", to: "Payments", relationType: "works_on" }] }));
    const result = await call(ws, "review_duplicates", {});
    const review = ok<Review>(result);
    expect(review).toMatchObject({ app: "duplicates", rejected: 0 });
    expect(review.pairs).toHaveLength(1);
    const [pair] = review.pairs;
    const sides = [pair!.a, pair!.b].sort((x, y) => x.name.localeCompare(y.name));
    expect(sides).toEqual([
      expect.objectContaining({ name: "Alice Smith", observations: ["writes TypeScript", "likes tea"], relations: [] }),
      expect.objectContaining({
        name: "alice_smith",
        observations: ["writes TypeScript"],
        relations: [{ from: "alice_smith", to: "Payments", relationType: "works_on" }],
      }),
    ]);
    expect(pair!.score).toBeGreaterThan(0.8);
    expect(review.tools).toEqual(expect.arrayContaining(["merge_entities"]));
    expect(textOf(result)).toMatch(/^1 probable duplicate pairs in workspace/);
    // The same pairs as detect_duplicate_entities.
    const detected = ok<{ pairs: { a: { name: string }; b: { name: string } }[] }>(await call(ws, "detect_duplicate_entities", {}));
    expect(detected.pairs.map((p) => [p.a.name, p.b.name].sort())).toEqual(review.pairs.map((p) => [p.a.name, p.b.name].sort()));

    // A pair a person rejected is not proposed again, and counted.
    ok(await call(ws, "reject_duplicate_pair", { a: "Alice Smith", b: "alice_smith" }));
    const afterReject = await call(ws, "review_duplicates", {});
    expect(ok<Review>(afterReject)).toMatchObject({ pairs: [], rejected: 1 });
    expect(textOf(afterReject)).toMatch(/^0 probable duplicate pairs in workspace '.+' \(1 rejected pairs left out\)/);

    const before = await storageOf(ws);
    expect(failed(await call(ws, "review_duplicates", { threshold: 2 })).error).toBe("ValidationError");
    expect(failed(await call(ws, "review_duplicates", { limit: 0 })).error).toBe("ValidationError");
    expect(await storageOf(ws)).toEqual(before);
  });
});

describe("storage requests per call (docs/architecture.md#storage-round-trips-per-call)", () => {
  async function requestsOf(ws: string, name: string, args: Args = {}): Promise<number> {
    const before = server.requests();
    ok(await call(ws, name, args));
    return server.requests() - before;
  }

  test("each app tool, now and with asOf, once the workspace's index is built", async () => {
    const ws = await seedStar();
    // A probable duplicate, so the review reads its sides.
    ok(await call(ws, "create_entities", { entities: [{ name: "hub", entityType: "service", observations: ["routes payments"] }] }));
    await pause();
    const asOf = new Date().toISOString();
    ok(await call(ws, "read_graph")); // builds this instance's index of the workspace
    ok(await call(ws, "show_entity_timeline", { entityName: "Hub", limit: 1 })); // the cursor key, read once per process
    const counts = {
      show_memory_graph: await requestsOf(ws, "show_memory_graph"),
      show_memory_graph_entity: await requestsOf(ws, "show_memory_graph", { entityName: "Hub" }),
      show_memory_graph_query: await requestsOf(ws, "show_memory_graph", { query: "payments" }),
      show_memory_graph_asOf: await requestsOf(ws, "show_memory_graph", { asOf }),
      app_expand: await requestsOf(ws, "app_expand", { entityName: "Hub" }),
      app_expand_asOf: await requestsOf(ws, "app_expand", { entityName: "Hub", asOf }),
      app_filter: await requestsOf(ws, "app_filter", { tag: "vip" }),
      app_filter_asOf: await requestsOf(ws, "app_filter", { entityType: "team", asOf }),
      app_entity_details: await requestsOf(ws, "app_entity_details", { entityName: "Hub" }),
      app_entity_details_asOf: await requestsOf(ws, "app_entity_details", { entityName: "Hub", asOf }),
      show_entity_timeline: await requestsOf(ws, "show_entity_timeline", { entityName: "Hub" }),
      review_duplicates: await requestsOf(ws, "review_duplicates", { threshold: 0.3 }),
    };
    // The detector is curate's (docs/curate.md: its scan, and what it reads of rejected pairs): measured, not assumed.
    const detector = await requestsOf(ws, "detect_duplicate_entities", { threshold: 0.3 });
    expect(counts).toEqual({
      // The index's feed tail + where history starts (2, in parallel with it).
      show_memory_graph: 3,
      show_memory_graph_entity: 3,
      // + the ranked search's own feed-tail read.
      show_memory_graph_query: 4,
      // The replay (where history starts: 2, then the events up to asOf: 1) + where history starts for the slider (2).
      show_memory_graph_asOf: 5,
      // The traversal's feed tail: the whole neighbourhood from the index.
      app_expand: 1,
      app_expand_asOf: 3,
      app_filter: 1,
      app_filter_asOf: 3,
      // The entity's range read and its history read, in parallel.
      app_entity_details: 2,
      // The time check (2), then its history up to asOf, replayed.
      app_entity_details_asOf: 3,
      // Its history read and a point read of its row, in parallel.
      show_entity_timeline: 2,
      // detect_duplicate_entities' requests + the traversal's feed tail for the sides.
      review_duplicates: detector + 1,
    });
  });
});
