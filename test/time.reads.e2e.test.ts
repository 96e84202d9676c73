import { describe, expect, test } from "@jest/globals";

import { entityId } from "../src/domain/model/ids.js";
import { failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withTestServers } from "./support/harness.js";
import { partitionRows, rawTable } from "./support/rawRows.js";

/**
 * The graph reads through the time lens (docs/history.md#two-times), end to end through MCP: read_graph, open_nodes,
 * search_nodes and get_entity_relations, each by default (true now, as held now), at a `validAt`, and with
 * `includeSuperseded`. The fixture is written with the tools, then its validity columns are merged onto the stored rows
 * with a raw table client, as the writes of supersede_observation, end_relation and set_expiry leave them; each case
 * uses a fresh workspace, written before its first read, so the index learns the columns by its first scan.
 */

let server: TestServer;
let mcp: McpTestClient;
let plain: McpTestClient;
withTestServers(
  { servers: { server: {} }, clients: { mcp: {}, plain: { path: "/api/mcp?toolsets=core,graph" } } },
  (started) => void ({ server, mcp, plain } = started),
);

const table = rawTable();
const PAST = "2026-01-01T00:00:00.000Z";
const FEB = "2025-02-01T00:00:00.000Z";

/** Writes the fixture and merges its validity onto the rows; returns the workspace. */
async function seed(): Promise<string> {
  const ws = uniqueWorkspace("tread");
  ok(
    await mcp.call("create_entities", {
      workspaceName: ws,
      entities: [
        { name: "Alice", entityType: "person", observations: ["likes tea", "lead: payments", "lead: billing", "old fact", "future plan"] },
        { name: "Bob", entityType: "person", observations: ["pinned obs", "gone obs"] },
        { name: "Temp", entityType: "note", observations: ["temporary"] },
        { name: "Acme", entityType: "company", observations: [] },
      ],
    }),
  );
  ok(
    await mcp.call("create_relations", {
      workspaceName: ws,
      relations: [
        { from: "Alice", to: "Acme", relationType: "works_at" },
        { from: "Alice", to: "Bob", relationType: "knows" },
        { from: "Bob", to: "Temp", relationType: "knows" },
      ],
    }),
  );
  const rows = await partitionRows(table, ws, ["event", "workspace"]);
  const merge = async (rowKey: string, patch: Record<string, unknown>) =>
    table.updateEntity({ partitionKey: ws, rowKey, ...patch }, "Merge");
  const observation = async (entity: string, content: string, patch: Record<string, unknown>) => {
    const row = rows.find((r) => r.kind === "observation" && r.entityId === entityId(ws, entity) && r.content === content);
    if (!row) throw new Error(`no observation row '${content}'`);
    await merge(row.rowKey, patch);
  };
  await observation("Alice", "likes tea", { validFrom: "2024-01-01T00:00:00.000Z" });
  await observation("Alice", "lead: payments", {
    validFrom: "2025-01-01T00:00:00.000Z",
    validTo: "2025-06-01T00:00:00.000Z",
    supersededBy: "lead: billing",
  });
  await observation("Alice", "lead: billing", { validFrom: "2025-06-01T00:00:00.000Z" });
  await observation("Alice", "old fact", { validFrom: "2025-01-01T00:00:00.000Z", validTo: "2025-03-01T00:00:00.000Z" });
  await observation("Alice", "future plan", { validFrom: "2099-01-01T00:00:00.000Z" });
  await observation("Bob", "pinned obs", { expiresAt: PAST, pinned: true });
  await observation("Bob", "gone obs", { expiresAt: PAST });
  await merge(entityId(ws, "Temp"), { expiresAt: PAST });
  const worksAt = rows.filter((r) => r.relationType === "works_at");
  expect(worksAt).toHaveLength(3); // the canonical row and both edge rows
  for (const row of worksAt) await merge(row.rowKey, { validFrom: "2025-01-01T00:00:00.000Z", validTo: "2025-06-01T00:00:00.000Z" });
  return ws;
}

interface GraphEntity {
  name: string;
  observations?: string[];
  observationValidity?: Record<string, { validFrom?: string; validTo?: string; supersededBy?: string; status?: string; pinned?: boolean }>;
  expiresAt?: string;
}
interface GraphRelation {
  from: string;
  to: string;
  relationType: string;
  validTo?: string;
  status?: string;
}
interface Graph {
  entities: GraphEntity[];
  relations: GraphRelation[];
}

const names = (graph: Graph) => graph.entities.map((e) => e.name).sort();
const observationsOf = (graph: Graph, name: string) => graph.entities.find((e) => e.name === name)?.observations;
const relationKeys = (graph: Graph) => graph.relations.map((r) => `${r.from} ${r.relationType} ${r.to}`).sort();
const statuses = (entity: GraphEntity | undefined) =>
  Object.fromEntries(Object.entries(entity?.observationValidity ?? {}).map(([content, v]) => [content, v.status ?? "current"]));

describe("read_graph", () => {
  test("by default: true now, as held now; with validAt: true then; with includeSuperseded: everything not expired, marked", async () => {
    const ws = await seed();
    const now = ok<Graph>(await mcp.call("read_graph", { workspaceName: ws }));
    expect(names(now)).toEqual(["Acme", "Alice", "Bob"]); // Temp expired
    expect(observationsOf(now, "Alice")).toEqual(["likes tea", "lead: billing"]);
    expect(observationsOf(now, "Bob")).toEqual(["pinned obs"]);
    expect(relationKeys(now)).toEqual(["Alice knows Bob"]); // works_at ended, Bob knows Temp: its end expired
    const alice = now.entities.find((e) => e.name === "Alice")!;
    expect(alice.observationValidity).toEqual({
      "likes tea": { validFrom: "2024-01-01T00:00:00.000Z" },
      "lead: billing": { validFrom: "2025-06-01T00:00:00.000Z" },
    });
    expect(now.entities.find((e) => e.name === "Bob")!.observationValidity).toEqual({ "pinned obs": { expiresAt: PAST, pinned: true } });

    const feb = ok<Graph>(await mcp.call("read_graph", { workspaceName: ws, validAt: FEB }));
    expect(names(feb)).toEqual(["Acme", "Alice", "Bob"]);
    expect(observationsOf(feb, "Alice")).toEqual(["likes tea", "lead: payments", "old fact"]);
    // "pinned obs" and "knows" hold from when they were written (after Feb 2025).
    expect(observationsOf(feb, "Bob")).toEqual([]);
    expect(relationKeys(feb)).toEqual(["Alice works_at Acme"]);

    const all = ok<Graph>(await mcp.call("read_graph", { workspaceName: ws, includeSuperseded: true }));
    expect(names(all)).toEqual(["Acme", "Alice", "Bob"]);
    expect(observationsOf(all, "Alice")).toEqual(["likes tea", "lead: payments", "lead: billing", "old fact", "future plan"]);
    expect(statuses(all.entities.find((e) => e.name === "Alice"))).toEqual({
      "likes tea": "current",
      "lead: payments": "superseded",
      "lead: billing": "current",
      "old fact": "ended",
      "future plan": "not-yet-valid",
    });
    expect(observationsOf(all, "Bob")).toEqual(["pinned obs"]); // expired stays hidden
    expect(all.relations.map((r) => [`${r.from} ${r.relationType} ${r.to}`, r.status ?? "current"]).sort()).toEqual([
      ["Alice knows Bob", "current"],
      ["Alice works_at Acme", "ended"],
    ]);
  });

  test("a page may hold fewer than limit entities; following the cursor still reaches every one that shows", async () => {
    const ws = await seed();
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = ok<Graph & { cursor?: string }>(
        await mcp.call("read_graph", { workspaceName: ws, limit: 1, ...(cursor ? { cursor } : {}) }),
      );
      expect(page.entities.length).toBeLessThanOrEqual(1);
      seen.push(...page.entities.map((e) => e.name));
      cursor = page.cursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(seen.sort()).toEqual(["Acme", "Alice", "Bob"]);
    expect(pages).toBeGreaterThanOrEqual(3);
  });
});

describe("open_nodes", () => {
  test("an expired entity is absent; the answer keeps the official shape unless valid time is asked for", async () => {
    const ws = await seed();
    const now = ok<Graph>(await mcp.call("open_nodes", { workspaceName: ws, names: ["Alice", "Temp", "Bob"] }));
    expect(now.entities.map((e) => e.name)).toEqual(["Alice", "Bob"]);
    expect(observationsOf(now, "Alice")).toEqual(["likes tea", "lead: billing"]);
    expect(now.entities.every((e) => e.observationValidity === undefined && e.expiresAt === undefined)).toBe(true);
    expect(relationKeys(now)).toEqual(["Alice knows Bob"]);

    const all = ok<Graph>(await mcp.call("open_nodes", { workspaceName: ws, names: ["Alice", "Temp"], includeSuperseded: true }));
    expect(all.entities.map((e) => e.name)).toEqual(["Alice"]);
    expect(statuses(all.entities[0])).toMatchObject({
      "lead: payments": "superseded",
      "old fact": "ended",
      "future plan": "not-yet-valid",
    });
    expect(relationKeys(all)).toEqual(["Alice knows Bob", "Alice works_at Acme"]);

    const feb = ok<Graph>(await mcp.call("open_nodes", { workspaceName: ws, names: ["Alice"], validAt: FEB }));
    expect(observationsOf(feb, "Alice")).toEqual(["likes tea", "lead: payments", "old fact"]);
    expect(feb.entities[0]!.observationValidity?.["lead: payments"]).toEqual({
      validFrom: "2025-01-01T00:00:00.000Z",
      validTo: "2025-06-01T00:00:00.000Z",
      supersededBy: "lead: billing",
    });
    expect(relationKeys(feb)).toEqual(["Alice works_at Acme"]);
  });

  test("without the tags toolset the shape stays exactly the official one, also with includeSuperseded", async () => {
    const ws = await seed();
    const all = ok<Graph>(await plain.call("open_nodes", { workspaceName: ws, names: ["Alice"], includeSuperseded: true }));
    expect(observationsOf(all, "Alice")).toHaveLength(5);
    expect(Object.keys(all.entities[0]!).sort()).toEqual(["entityType", "name", "observations"]);
  });
});

describe("search_nodes", () => {
  test("superseded text makes no hit by default; it does with includeSuperseded or at a validAt when it was true", async () => {
    const ws = await seed();
    const search = async (query: string, extra: Record<string, unknown> = {}) =>
      ok<Graph>(await mcp.call("search_nodes", { workspaceName: ws, query, ...extra }));
    expect((await search("payments")).entities).toEqual([]);
    expect((await search("billing")).entities.map((e) => e.name)).toEqual(["Alice"]);
    const all = await search("payments", { includeSuperseded: true });
    expect(all.entities.map((e) => e.name)).toEqual(["Alice"]);
    expect(statuses(all.entities[0])["lead: payments"]).toBe("superseded");
    expect((await search("payments", { validAt: FEB })).entities.map((e) => e.name)).toEqual(["Alice"]);
    expect((await search("old fact")).entities).toEqual([]);
    // Expired: not found by name, nor with includeSuperseded.
    expect((await search("Temp")).entities).toEqual([]);
    expect((await search("Temp", { includeSuperseded: true })).entities).toEqual([]);
    expect((await search("gone obs", { includeSuperseded: true })).entities).toEqual([]);
    // A default answer is the official shape with tags; relations through the lens.
    const person = await search("person");
    expect(person.entities.map((e) => e.name)).toEqual(["Alice", "Bob"]);
    expect(person.entities.every((e) => e.observationValidity === undefined)).toBe(true);
    // The ended works_at is hidden. (Bob knows Temp stays listed: Temp is not in the answer, and its expiry is not read
    // again for it; the sweep removes such relations.)
    expect(relationKeys(person)).toContain("Alice knows Bob");
    expect(relationKeys(person)).not.toContain("Alice works_at Acme");
  });

  test("limit counts entities that show: hidden matches do not use it up", async () => {
    const ws = uniqueWorkspace("tread");
    const entities = Array.from({ length: 6 }, (_, i) => ({ name: `Item ${i}`, entityType: "item", observations: [`colour: red ${i}`] }));
    ok(await mcp.call("create_entities", { workspaceName: ws, entities }));
    // The three oldest expire: the index ranks them first.
    for (const i of [0, 1, 2]) await table.updateEntity({ partitionKey: ws, rowKey: entityId(ws, `Item ${i}`), expiresAt: PAST }, "Merge");
    const hits = ok<Graph>(await mcp.call("search_nodes", { workspaceName: ws, query: "item", limit: 2 }));
    expect(hits.entities.map((e) => e.name)).toEqual(["Item 3", "Item 4"]);
  });
});

describe("get_entity_relations", () => {
  interface Relations {
    relations: { relationType: string; fromName: string; toName: string; status?: string; validTo?: string }[];
  }
  const types = (answer: Relations) => answer.relations.map((r) => `${r.relationType}${r.status ? `:${r.status}` : ""}`).sort();

  test("ended relations show only when asked; an expired entity is not found", async () => {
    const ws = await seed();
    const call = async (extra: Record<string, unknown>) =>
      ok<Relations>(await mcp.call("get_entity_relations", { workspaceName: ws, entityName: "Alice", direction: "both", ...extra }));
    expect(types(await call({}))).toEqual(["knows"]);
    expect(types(await call({ includeSuperseded: true }))).toEqual(["knows", "works_at:ended"]);
    expect(types(await call({ validAt: FEB }))).toEqual(["works_at"]);
    const expired = failed(await mcp.call("get_entity_relations", { workspaceName: ws, entityName: "Temp", direction: "both" }));
    expect(expired.error).toBe("NotFoundError");
    expect(expired.message).toContain("expired");
  });
});

describe("costs", () => {
  test("index-served reads stay at 1 storage request with the lens (read_graph, search_nodes)", async () => {
    const ws = await seed();
    ok(await mcp.call("read_graph", { workspaceName: ws })); // builds the index
    const count = async (name: string, args: Record<string, unknown>) => {
      const before = server.requests();
      ok(await mcp.call(name, { workspaceName: ws, ...args }));
      return server.requests() - before;
    };
    expect(await count("read_graph", {})).toBe(1);
    expect(await count("read_graph", { includeSuperseded: true })).toBe(1);
    expect(await count("read_graph", { validAt: FEB, limit: 2 })).toBe(1);
    expect(await count("search_nodes", { query: "payments" })).toBe(1);
    expect(await count("search_nodes", { query: "a", includeSuperseded: true })).toBe(1);
    // Store reads: one range read per name, one for an entity's relations, as before.
    expect(await count("open_nodes", { names: ["Alice"], includeSuperseded: true })).toBe(1);
    expect(await count("get_entity_relations", { entityName: "Alice", direction: "both" })).toBe(1);
  });
});
