import type { TableClient } from "@azure/data-tables";
import { describe, expect, test } from "@jest/globals";

import { keyRange, rowKey } from "../src/storage/rows/keys.js";
import { type McpTestClient, ok, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import type { GraphOut } from "./support/outputs.js";
import { partitionRows, rawTable } from "./support/rawRows.js";

/**
 * Concurrent writers lose nothing. Each test fires 50 tool calls at once (one MCP client, so 50
 * concurrent HTTP requests, each with its own server instance, as on a scaled-out Function App) and
 * then checks the final state exactly: through read_graph, and for relations also the raw rows.
 */
const WRITERS = 50;

let mcp: McpTestClient;
let table: TableClient;

withServerAndClient((_server, client) => {
  mcp = client;
  table = rawTable();
});

const range = (count: number) => Array.from({ length: count }, (_, i) => i);
const readGraph = async (ws: string) => ok<GraphOut>(await mcp.call("read_graph", { workspaceName: ws }));

/** (Change events left out: they sit outside every entity range; test/history.events.test.ts checks them. So is the registry row: test/workspaces.test.ts.) */
const rawRows = (ws: string) => partitionRows(table, ws, ["event", "workspace"]);

describe("50 concurrent upsert_entity calls on one name", () => {
  test("on an existing entity: one entity holding the originals and all 50 new observations, each once", async () => {
    const ws = uniqueWorkspace("conc");
    const originals = ["original fact 1", "original fact 2"];
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Hub", entityType: "service", observations: originals }));

    const added = range(WRITERS).map((i) => `concurrent fact ${i}`);
    const results = await Promise.all(
      added.map((fact) => mcp.call("upsert_entity", { workspaceName: ws, name: "Hub", entityType: "service", observations: [fact] })),
    );
    for (const result of results) expect(ok(result)).toMatchObject({ created: false });

    const graph = await readGraph(ws);
    expect(graph.entities).toHaveLength(1);
    const [hub] = graph.entities;
    expect(hub!.name).toBe("Hub");
    expect(hub!.observations).toHaveLength(originals.length + WRITERS);
    expect(hub!.observations.slice(0, originals.length)).toEqual(originals); // stored earlier, listed first
    expect([...hub!.observations.slice(originals.length)].sort()).toEqual([...added].sort());
  });

  test("on a new name (first-write race): one entity, all 50 observations, exactly one call reports created", async () => {
    const ws = uniqueWorkspace("conc");
    const added = range(WRITERS).map((i) => `first-write fact ${i}`);
    const results = await Promise.all(
      added.map((fact) => mcp.call("upsert_entity", { workspaceName: ws, name: "Fresh", entityType: "thing", observations: [fact] })),
    );
    const created = results.map((result) => ok<{ created: boolean; id: string }>(result));
    expect(created.filter((result) => result.created)).toHaveLength(1);
    expect(new Set(created.map((result) => result.id)).size).toBe(1);

    const graph = await readGraph(ws);
    expect(graph.entities.map((entity) => entity.name)).toEqual(["Fresh"]);
    expect([...graph.entities[0]!.observations].sort()).toEqual([...added].sort());
    // Exactly one entity row and one row per observation: nothing duplicated underneath either.
    const rows = await rawRows(ws);
    expect(rows.filter((row) => row.kind === "entity")).toHaveLength(1);
    expect(rows.filter((row) => row.kind === "observation")).toHaveLength(WRITERS);
  });
});

describe("50 concurrent upsert_relation calls around one hub", () => {
  /** Every relation once in read_graph, and its three rows: canonical, edge-out in the source's range, edge-in in the target's. */
  async function expectRelationsStoredExactly(ws: string, expected: { from: string; to: string; relationType: string }[]): Promise<void> {
    const graph = await readGraph(ws);
    const idOf = new Map(graph.entities.map((entity) => [entity.name, entity.id]));
    const triple = (r: { from: string; to: string; relationType: string }) => `${r.from} -${r.relationType}-> ${r.to}`;
    expect(graph.relations.map(triple).sort()).toEqual(expected.map(triple).sort());
    expect(new Set(graph.relations.map((relation) => relation.id)).size).toBe(expected.length);

    const rows = await rawRows(ws);
    const byKey = new Map(rows.map((row) => [String(row.rowKey), row]));
    for (const relation of graph.relations) {
      const fromId = idOf.get(relation.from)!;
      const toId = idOf.get(relation.to)!;
      expect(byKey.get(rowKey.relation(relation.id))).toMatchObject({
        kind: "relation",
        fromId,
        toId,
        relationType: relation.relationType,
      });
      const out = rowKey.edgeOut(fromId, relation.id);
      const into = rowKey.edgeIn(toId, relation.id);
      expect(byKey.get(out)).toMatchObject({ kind: "edge-out", relationId: relation.id, fromId, toId });
      expect(byKey.get(into)).toMatchObject({ kind: "edge-in", relationId: relation.id, fromId, toId });
      const inRange = (key: string, id: string) => key >= keyRange.wholeEntity(id).from && key < keyRange.wholeEntity(id).to;
      expect(inRange(out, fromId)).toBe(true);
      expect(inRange(into, toId)).toBe(true);
    }
    for (const kind of ["relation", "edge-out", "edge-in"]) expect(rows.filter((row) => row.kind === kind)).toHaveLength(expected.length);
  }

  async function createEntities(ws: string, names: string[]): Promise<void> {
    for (const result of await Promise.all(names.map((name) => mcp.call("upsert_entity", { workspaceName: ws, name, entityType: "node" }))))
      ok(result);
  }

  test.each([
    ["out", "from one hub to 50 targets"],
    ["in", "from 50 sources to one hub"],
  ] as const)("direction %s, %s: all 50 relations, each exactly once, with both edge rows", async (direction, _shape) => {
    const ws = uniqueWorkspace("conc");
    const others = range(WRITERS).map((i) => `Other ${i}`);
    await createEntities(ws, ["Hub", ...others]);
    const expected = others
      .map((other) => (direction === "out" ? { from: "Hub", to: other } : { from: other, to: "Hub" }))
      .map((ends) => ({ ...ends, relationType: "depends_on" }));
    for (const result of await Promise.all(expected.map((relation) => mcp.call("upsert_relation", { workspaceName: ws, ...relation }))))
      ok(result);
    await expectRelationsStoredExactly(ws, expected);
    const listed = ok<{ relations: unknown[] }>(
      await mcp.call("get_entity_relations", { workspaceName: ws, entityName: "Hub", direction }),
    );
    expect(listed.relations).toHaveLength(WRITERS);
  });

  test("50 concurrent upserts of the same relation: one relation, and its three rows agree on the metadata", async () => {
    const ws = uniqueWorkspace("conc");
    await createEntities(ws, ["A", "B"]);
    const results = await Promise.all(
      range(WRITERS).map((i) =>
        mcp.call("upsert_relation", { workspaceName: ws, from: "A", to: "B", relationType: "knows", metadata: { writer: i } }),
      ),
    );
    const relationIds = new Set(results.map((result) => ok<{ relationId: string }>(result).relationId));
    expect(relationIds.size).toBe(1);
    await expectRelationsStoredExactly(ws, [{ from: "A", to: "B", relationType: "knows" }]);
    // The three rows are written in one transaction, so whichever writer was last, they agree.
    const rows = (await rawRows(ws)).filter((row) => row.relationId === [...relationIds][0]);
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((row) => row.metadata)).size).toBe(1);
    expect(range(WRITERS).map((i) => JSON.stringify({ writer: i }))).toContain(rows[0]!.metadata);
  });
});
