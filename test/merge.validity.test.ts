import { describe, expect, test } from "@jest/globals";

import { entityId } from "../src/domain/model/ids.js";
import { connectClient, type McpTestClient, ok, startTestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import { partitionRows, type RawRow, rawTable } from "./support/rawRows.js";

/**
 * merge_entities moves facts with their two times (docs/curate.md#merge_entities, docs/history.md#two-times): a superseded
 * observation, a pinned one, one that expires, an ended relation, a backdated one and a pinned one keep their valid time,
 * expiry and pin on the target. Checked three ways against the raw rows after the merge: an index built before the merge
 * and brought current by the feed, `read_graph asOf` (a replay of the feed) on a fresh instance, and a fresh instance's
 * index (its own scan). The checker found the first two showing a moved superseded observation as current.
 */
let mcp: McpTestClient;
withServerAndClient((_server, client) => {
  mcp = client;
});

type Args = Record<string, unknown>;
type Validity = Record<string, unknown>;
type Entity = { name: string; observations: string[]; observationValidity?: Record<string, Validity> };
type Relation = { from: string; to: string; relationType: string } & Validity;
type Graph = { entities: Entity[]; relations: Relation[] };

const COLUMNS = ["validFrom", "validTo", "supersededBy", "expiresAt", "pinned"] as const;
const FAR = new Date(Date.now() + 30 * 24 * 60 * 60 * 1000).toISOString();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A row's or a view's validity fields that are set, in one order (`status` is a read's, not storage's). */
function validityOf(item: Record<string, unknown>): Validity {
  return Object.fromEntries(COLUMNS.filter((c) => item[c] !== undefined && item[c] !== "" && item[c] !== false).map((c) => [c, item[c]]));
}

/** What storage holds: each observation of `entity` and each relation, with its validity. */
function storedFacts(rows: RawRow[], entityId: string) {
  const observations = Object.fromEntries(
    rows.filter((row) => row.kind === "observation" && row.entityId === entityId).map((row) => [String(row.content), validityOf(row)]),
  );
  const relations = Object.fromEntries(
    rows
      .filter((row) => row.kind === "relation")
      .map((row) => [`${String(row.fromName)} ${String(row.relationType)} ${String(row.toName)}`, validityOf(row)]),
  );
  return { observations, relations };
}

/** The same, as a read_graph with includeSuperseded shows it. */
function viewedFacts(graph: Graph, name: string) {
  const entity = graph.entities.find((e) => e.name === name);
  const observations = Object.fromEntries(
    (entity?.observations ?? []).map((content) => [content, validityOf(entity?.observationValidity?.[content] ?? {})]),
  );
  const relations = Object.fromEntries(graph.relations.map((r) => [`${r.from} ${r.relationType} ${r.to}`, validityOf(r)]));
  return { observations, relations };
}

describe("merge_entities keeps each moved fact's valid time, expiry and pin", () => {
  test("storage, an index kept by the feed, asOf on a fresh instance and a fresh index agree after the merge", async () => {
    const ws = uniqueWorkspace("mergevalid");
    const call = async (client: McpTestClient, name: string, args: Args = {}) =>
      ok<Args>(await client.call(name, { workspaceName: ws, ...args }));

    await call(mcp, "create_entities", {
      entities: [
        { name: "Acme", entityType: "company", observations: ["hq: Oslo"] },
        { name: "ACME Corp", entityType: "company", observations: ["ceo: Ann", "founded 1990", "motto: ship it"] },
        { name: "Globex", entityType: "company", observations: [] },
        { name: "Initech", entityType: "company", observations: [] },
        { name: "Umbrella", entityType: "company", observations: [] },
      ],
    });
    // The source's facts with times: superseded (backdated), expiring, pinned; ended, backdated and pinned relations.
    await call(mcp, "supersede_observation", {
      entityName: "ACME Corp",
      observation: "ceo: Ann",
      replacement: "ceo: Bea",
      validFrom: "2025-01-01",
    });
    await call(mcp, "add_observations", { observations: [{ entityName: "ACME Corp", contents: ["promo: spring"] }], expiresAt: FAR });
    await call(mcp, "set_expiry", { entityName: "ACME Corp", observation: "motto: ship it", pinned: true });
    await call(mcp, "upsert_relation", { from: "ACME Corp", to: "Globex", relationType: "supplies", validFrom: "2024-01-01" });
    await call(mcp, "end_relation", { from: "ACME Corp", to: "Globex", relationType: "supplies", validTo: "2025-06-30" });
    await call(mcp, "upsert_relation", {
      from: "Initech",
      to: "ACME Corp",
      relationType: "buys_from",
      validFrom: "2023-03-01",
      expiresAt: FAR,
    });
    await call(mcp, "upsert_relation", { from: "ACME Corp", to: "Umbrella", relationType: "partners_with" });
    await call(mcp, "set_expiry", { entityName: "ACME Corp", relation: { to: "Umbrella", relationType: "partners_with" }, pinned: true });
    // This instance's index is built now, before the merge: the merge reaches it through the feed's tail.
    await call(mcp, "read_graph", { includeSuperseded: true });

    const before = storedFacts(await partitionRows(rawTable(), ws, ["event", "workspace"]), entityId(ws, "ACME Corp"));
    expect(before.observations["ceo: Ann"]).toMatchObject({ supersededBy: "ceo: Bea", validTo: "2025-01-01T00:00:00.000Z" });

    const merge = { target: "Acme", sources: ["ACME Corp"], confirm: true };
    const dryRun = await call(mcp, "merge_entities", { ...merge, dryRun: true });
    const merged = await call(mcp, "merge_entities", merge);
    // The dry run reports what the merge did: every observation moves, the superseded one too.
    for (const part of ["observations", "relations", "tags"]) expect(dryRun[part]).toEqual(merged[part]);
    expect(merged.observations).toEqual({ moved: 5, droppedDuplicates: 0 });
    await pause(20);
    const asOf = new Date().toISOString();
    await pause(20);

    const rows = await partitionRows(rawTable(), ws, ["event", "workspace"]);
    const stored = storedFacts(rows, entityId(ws, "Acme"));
    // Storage kept every moved fact's times, as they were on the source (the relations' names are the target's now).
    expect(stored.observations).toEqual({ ...before.observations, "hq: Oslo": {} });
    const renamed = (label: string) => label.replace("ACME Corp", "Acme");
    expect(stored.relations).toEqual(Object.fromEntries(Object.entries(before.relations).map(([label, v]) => [renamed(label), v])));

    const fresh = await startTestServer();
    const freshMcp = await connectClient(fresh.url);
    try {
      const kept = await call(mcp, "read_graph", { includeSuperseded: true });
      const replayed = await call(freshMcp, "read_graph", { includeSuperseded: true, asOf });
      const scanned = await call(freshMcp, "read_graph", { includeSuperseded: true });
      for (const graph of [kept, replayed, scanned]) expect(viewedFacts(graph as Graph, "Acme")).toEqual(stored);

      // What shows by default: the superseded observation and the ended relation do not.
      const current = (await call(mcp, "read_graph")) as Graph;
      expect(current.entities.find((e) => e.name === "Acme")?.observations.sort()).toEqual(
        ["ceo: Bea", "founded 1990", "hq: Oslo", "motto: ship it", "promo: spring"].sort(),
      );
      expect(current.relations.map((r) => `${r.from} ${r.relationType} ${r.to}`).sort()).toEqual([
        "Acme partners_with Umbrella",
        "Initech buys_from Acme",
      ]);
      const currentAsOf = (await call(freshMcp, "read_graph", { asOf })) as Graph;
      expect(currentAsOf.entities.find((e) => e.name === "Acme")?.observations.sort()).toEqual(
        current.entities.find((e) => e.name === "Acme")?.observations.sort(),
      );
    } finally {
      await freshMcp.close();
      await fresh.close();
    }
  });
});
