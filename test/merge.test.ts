import { describe, expect, test } from "@jest/globals";

import { entityId } from "../src/domain/model/ids.js";
import { relationRowKeys, rowKey } from "../src/storage/rows/keys.js";
import { type FaultInjector, injectFaults } from "./support/faultInjector.js";
import { failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import { partitionRows, type RawRow } from "./support/rawRows.js";

/**
 * merge_entities (docs/curate.md#merge_entities) through MCP, checked on the raw rows: what moves, what
 * is dropped, that nothing dangles, that history records it, and that an interrupted merge, rerun,
 * ends where an uninterrupted one does.
 */
let server: TestServer;
let mcp: McpTestClient;
let faults: FaultInjector;

withServerAndClient(
  (started, client) => {
    server = started;
    mcp = client;
    faults = injectFaults(server.app.storage.table);
  },
  // No SDK retries: an injected failure fails its request at once.
  { server: { storage: { maxRetries: 0 } } },
);

type Row = RawRow;
const rawRows = (ws: string) => partitionRows(server.app.storage.table, ws);
const stateRows = async (ws: string) => (await rawRows(ws)).filter((row) => row.kind !== "event" && row.kind !== "history-pruned");

/** The graph: target "Alice Smith", sources "alice_smith" and "A. Smith", and neighbours. */
async function seed(ws: string): Promise<void> {
  const call = async (name: string, args: Record<string, unknown>) => ok(await mcp.call(name, { workspaceName: ws, ...args }));
  await call("create_entities", {
    entities: [
      { name: "Alice Smith", entityType: "person", observations: ["works on billing", "likes tea"] },
      { name: "alice_smith", entityType: "person", observations: ["likes tea", "lives in Oslo"] },
      { name: "A. Smith", entityType: "person", observations: ["plays chess"] },
      { name: "Bob", entityType: "person", observations: [] },
      { name: "Carol", entityType: "person", observations: [] },
      { name: "Billing", entityType: "component", observations: [] },
    ],
  });
  await call("create_relations", {
    relations: [
      { from: "Alice Smith", to: "Bob", relationType: "knows" },
      { from: "alice_smith", to: "Bob", relationType: "knows" }, // a duplicate once merged
      { from: "Carol", to: "alice_smith", relationType: "manages" }, // moves: Carol manages Alice Smith
      { from: "alice_smith", to: "Alice Smith", relationType: "same_as" }, // a self-loop once merged
      { from: "alice_smith", to: "A. Smith", relationType: "knows" }, // a self-loop once merged
      { from: "A. Smith", to: "Billing", relationType: "works_on" }, // moves
    ],
  });
  await call("tag_entity", { entityName: "Alice Smith", tagNames: ["vip"] });
  await call("tag_entity", { entityName: "alice_smith", tagNames: ["vip", "oslo-office"] });
  await call("tag_observation", { entityName: "alice_smith", observationContent: "lives in Oslo", tagNames: ["source:slack"] });
}

const MERGE = { target: "Alice Smith", sources: ["alice_smith", "A. Smith"], confirm: true };
const sourceIds = (ws: string) => MERGE.sources.map((name) => entityId(ws, name));

/** The rows with ids and times replaced by what they name, so two workspaces' states compare. */
function normalised(rows: Row[]): string[] {
  const names = new Map(rows.filter((row) => row.kind === "entity").map((row) => [row.rowKey, String(row.name)]));
  const contents = new Map(
    rows.filter((row) => row.kind === "observation").map((row) => [row.rowKey.split("~").at(-1)!, String(row.content)]),
  );
  return rows
    .map((row) => {
      switch (row.kind) {
        case "entity":
          return `entity ${String(row.name)} ${String(row.entityType)} ${String(row.metadata)}`;
        case "observation":
          return `observation ${names.get(String(row.entityId))} ${String(row.content)} by ${String(row.createdBy)}`;
        case "relation":
        case "edge-in":
        case "edge-out":
          return `${row.kind} at ${names.get(row.rowKey.split("~")[0]!) ?? "-"}: ${String(row.fromName)} ${String(row.relationType)} ${String(row.toName)} ${String(row.metadata)}`;
        case "entity-tag":
        case "observation-tag":
        case "tag-index":
          return `${row.kind} ${String(row.entityName)} ${row.observationId ? contents.get(String(row.observationId)) : ""} ${String(row.tagName)}`;
        default:
          return `${String(row.kind)} ${String(row.name ?? "")}`;
      }
    })
    .sort();
}

/** No relation row without its two partners, no edge to an absent entity, no duplicate relation, and no row of the `gone` entities. */
function expectConsistent(rows: Row[], gone: string[]): void {
  const keys = new Set(rows.map((row) => row.rowKey));
  const relations = rows.filter((row) => row.kind === "relation" || row.kind === "edge-in" || row.kind === "edge-out");
  for (const row of relations) {
    const ref = { id: String(row.relationId), fromEntityId: String(row.fromId), toEntityId: String(row.toId) };
    for (const key of relationRowKeys(ref)) expect([row.rowKey, key, keys.has(key)]).toEqual([row.rowKey, key, true]);
    expect(keys.has(rowKey.entity(ref.fromEntityId)) && keys.has(rowKey.entity(ref.toEntityId))).toBe(true);
  }
  const triples = rows
    .filter((row) => row.kind === "relation")
    .map((row) => `${String(row.fromId)} ${String(row.relationType)} ${String(row.toId)}`);
  expect(new Set(triples).size).toBe(triples.length);
  expect(
    rows.filter((row) => gone.some((id) => row.rowKey.includes(id) || row.entityId === id || row.fromId === id || row.toId === id)),
  ).toEqual([]);
}

type Report = {
  alreadyMerged: string[];
  observations: { moved: number; droppedDuplicates: number };
  relations: Record<"moved" | "droppedSelfLoops" | "droppedDuplicates", { from: string; relationType: string; to: string }[]>;
  tags: { moved: number; droppedDuplicates: number };
};

describe("merge_entities", () => {
  test("moves observations, tags and relations both ways, drops self-loops and duplicates, deletes the sources, and history records it", async () => {
    const ws = uniqueWorkspace();
    await seed(ws);
    const report = ok<Report>(await mcp.call("merge_entities", { workspaceName: ws, ...MERGE }));
    expect(report.observations).toEqual({ moved: 2, droppedDuplicates: 1 });
    expect(report.relations.moved.map((r) => `${r.from} ${r.relationType} ${r.to}`).sort()).toEqual([
      "Alice Smith works_on Billing",
      "Carol manages Alice Smith",
    ]);
    expect(report.relations.droppedSelfLoops).toHaveLength(2);
    expect(report.relations.droppedDuplicates).toEqual([{ from: "Alice Smith", relationType: "knows", to: "Bob" }]);
    expect(report.tags).toEqual({ moved: 2, droppedDuplicates: 1 });
    const rows = await stateRows(ws);
    expectConsistent(rows, sourceIds(ws));
    const opened = ok<{
      entities: { name: string; observations: string[]; tags?: string[]; observationTags?: Record<string, string[]> }[];
    }>(await mcp.call("open_nodes", { workspaceName: ws, names: ["Alice Smith", "alice_smith", "A. Smith"] }));
    expect(opened.entities).toEqual([
      {
        name: "Alice Smith",
        entityType: "person",
        observations: expect.arrayContaining(["works on billing", "likes tea", "lives in Oslo", "plays chess"]),
        tags: ["oslo-office", "vip"],
        observationTags: { "lives in Oslo": ["source:slack"] },
      },
    ]);
    expect(opened.entities[0]!.observations).toHaveLength(4);
    const events = (await rawRows(ws)).filter((row) => row.kind === "event" && row.tool === "merge_entities");
    expect(events.length).toBeGreaterThan(0);
    const changes = ok<{ events: { tool: string; changes: { kind: string; entityName?: string; mergedInto?: string }[] }[] }>(
      await mcp.call("get_changes", { workspaceName: ws }),
    )
      .events.filter((event) => event.tool === "merge_entities")
      .flatMap((event) => event.changes);
    const target = entityId(ws, "Alice Smith");
    expect(
      changes
        .filter((change) => change.kind === "entity.deleted")
        .map((c) => [c.entityName, c.mergedInto])
        .sort(),
    ).toEqual([
      ["A. Smith", target],
      ["alice_smith", target],
    ]);
    // A rerun after completion changes nothing.
    const again = ok<Report>(await mcp.call("merge_entities", { workspaceName: ws, ...MERGE }));
    expect(again.alreadyMerged).toEqual(MERGE.sources);
    expect(await stateRows(ws)).toEqual(rows);
  });

  test("dryRun reports what the merge does and writes nothing", async () => {
    const ws = uniqueWorkspace();
    await seed(ws);
    const before = await rawRows(ws);
    const dry = ok<Report & { dryRun: boolean }>(await mcp.call("merge_entities", { workspaceName: ws, ...MERGE, dryRun: true }));
    expect(dry.dryRun).toBe(true);
    expect(await rawRows(ws)).toEqual(before);
    const real = ok<Report & { dryRun: boolean }>(await mcp.call("merge_entities", { workspaceName: ws, ...MERGE }));
    expect({ ...dry, dryRun: false }).toEqual(real);
  });

  test("interrupted after each of its writes, then rerun, it ends in the state an uninterrupted merge leaves", async () => {
    const baseline = uniqueWorkspace();
    await seed(baseline);
    const before = server.requests();
    ok(await mcp.call("merge_entities", { workspaceName: baseline, ...MERGE }));
    const requests = server.requests() - before;
    // 3 reads (the target, then both sources in parallel), then per source its moves (one transaction here) and its final one.
    expect(requests).toBe(7);
    const expected = normalised(await stateRows(baseline));
    for (const allowed of [3, 4, 5, 6]) {
      const ws = uniqueWorkspace();
      await seed(ws);
      faults.failAfter(allowed);
      const interrupted = await mcp.call("merge_entities", { workspaceName: ws, ...MERGE });
      faults.heal();
      expect([allowed, failed(interrupted).error]).toEqual([allowed, "StorageError"]);
      expectConsistent(await stateRows(ws), []);
      ok(await mcp.call("merge_entities", { workspaceName: ws, ...MERGE }));
      const rows = await stateRows(ws);
      expectConsistent(rows, sourceIds(ws));
      expect([allowed, normalised(rows)]).toEqual([allowed, expected]);
    }
  });

  test("moved observations keep their order: the target's own first, then each source's in the order they were added", async () => {
    const ws = uniqueWorkspace();
    const call = async (name: string, args: Record<string, unknown>) => ok(await mcp.call(name, { workspaceName: ws, ...args }));
    // The sources' observations are older than the target's, and their ids do not sort in the order they were added.
    await call("create_entities", { entities: [{ name: "S1", entityType: "t", observations: ["zeta", "alpha", "mid", "beta"] }] });
    await call("create_entities", { entities: [{ name: "T", entityType: "t", observations: ["t second", "t first"] }] });
    await call("create_entities", { entities: [{ name: "S2", entityType: "t", observations: ["omega", "t first", "kappa"] }] });
    await call("add_observations", { observations: [{ entityName: "S1", contents: ["later", "earlier"] }] });
    await call("read_graph", {}); // the index is built before the merge, so the merge reaches it through the feed
    ok(await mcp.call("merge_entities", { workspaceName: ws, target: "T", sources: ["S1", "S2"], confirm: true }));
    const expected = ["t second", "t first", "zeta", "alpha", "mid", "beta", "later", "earlier", "omega", "kappa"];
    const opened = await call("open_nodes", { names: ["T"] });
    const graph = await call("read_graph", {});
    const observationsOf = (answer: Record<string, unknown>) =>
      (answer.entities as { name: string; observations: string[] }[]).find((entity) => entity.name === "T")?.observations;
    expect({ open_nodes: observationsOf(opened), read_graph: observationsOf(graph) }).toEqual({
      open_nodes: expected,
      read_graph: expected,
    });
  });

  test("bad input: into itself, missing sources or target, empty sources: clear errors, nothing written", async () => {
    const ws = uniqueWorkspace();
    await seed(ws);
    const before = await rawRows(ws);
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ target: "Alice Smith", sources: ["Alice Smith"] }, "ValidationError", /merged into itself/],
      [{ target: "Alice Smith", sources: ["alice_smith", "Nobody"] }, "NotFoundError", /'Nobody' not found/],
      [{ target: "Nobody", sources: ["alice_smith"] }, "NotFoundError", /Target entity 'Nobody' not found/],
      [{ target: "Alice Smith", sources: [] }, "ValidationError", /sources is empty/],
    ];
    for (const [args, kind, message] of cases) {
      const error = failed(await mcp.call("merge_entities", { workspaceName: ws, ...args, confirm: true }));
      expect([error.error, error.message]).toEqual([kind, expect.stringMatching(message)]);
    }
    expect(await rawRows(ws)).toEqual(before);
  });
});
