import { describe, expect, test } from "@jest/globals";

import { entityId } from "../src/domain/model/ids.js";
import { toChangeEvent } from "../src/storage/rows/events.js";
import { keyRange } from "../src/storage/rows/keys.js";
import type { StoredRow } from "../src/storage/rows/rows.js";
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

/** Waits (not a timed assertion: a condition) until the wall clock is past `iso`. */
async function until(iso: string): Promise<void> {
  while (Date.now() <= Date.parse(iso)) await pause(Math.max(10, Date.parse(iso) - Date.now() + 5));
}

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

/**
 * A dropped duplicate must not take a current fact with it (docs/curate.md#merge_entities): the target's copy that is
 * superseded, ended, not yet valid or expired takes a current source copy's times, through a validity-only
 * observation.updated; both current or both not: the target's stay. Before the fix the target's copies stayed as they were.
 */
describe("merge_entities keeps a current fact current when it drops a duplicate", () => {
  test("the target's copy that is not current takes the current source copy's times; the others stay the target's", async () => {
    const ws = uniqueWorkspace("mergecurrent");
    const call = async (client: McpTestClient, name: string, args: Args = {}) =>
      ok<Args>(await client.call(name, { workspaceName: ws, ...args }));
    const add = (entityName: string, contents: string[], times: Args = {}) =>
      call(mcp, "add_observations", { observations: [{ entityName, contents }], ...times });

    await call(mcp, "create_entities", {
      entities: [
        { name: "Acme", entityType: "company", observations: ["ceo: Ann", "hq: Oslo", "size: 50"] },
        { name: "ACME Corp", entityType: "company", observations: [] },
        { name: "Acme Inc", entityType: "company", observations: [] },
      ],
    });
    // The target's copies that are not current: superseded, ended, not yet valid, expired.
    await call(mcp, "supersede_observation", {
      entityName: "Acme",
      observation: "ceo: Ann",
      replacement: "ceo: Bea",
      validFrom: "2025-01-01",
    });
    await add("Acme", ["office: Bergen"], { validFrom: "2020-01-01", validTo: "2024-01-01" });
    await add("Acme", ["launch: Mars"], { validFrom: "2099-01-01" });
    await add("Acme", ["promo: spring"]);
    await call(mcp, "tag_observation", { entityName: "Acme", observationContent: "promo: spring", tagNames: ["q1"] });
    const soon = new Date(Date.now() + 300).toISOString();
    await call(mcp, "set_expiry", { entityName: "Acme", observation: "promo: spring", expiresAt: soon });
    await add("Acme", ["motto: old"], { validFrom: "2019-01-01", validTo: "2021-01-01" });
    await add("Acme", ["region: EU"], { validFrom: "2015-01-01", validTo: "2016-01-01" });
    // The first source's copies: current where the target's are not; both not current; both current; only the target's current.
    await add("ACME Corp", ["ceo: Ann"], { validFrom: "2021-01-01" });
    await call(mcp, "set_expiry", { entityName: "ACME Corp", observation: "ceo: Ann", pinned: true });
    await add("ACME Corp", ["office: Bergen"], { expiresAt: FAR });
    await add("ACME Corp", ["launch: Mars", "hq: Oslo"], { validFrom: "2010-01-01" });
    await add("ACME Corp", ["promo: spring"], { validFrom: "2024-03-01" });
    await call(mcp, "tag_observation", { entityName: "ACME Corp", observationContent: "promo: spring", tagNames: ["q1", "marketing"] });
    await add("ACME Corp", ["motto: old"], { validFrom: "2018-01-01", validTo: "2020-01-01" });
    await add("ACME Corp", ["size: 50", "cfo: Cy", "region: EU"], { validFrom: "2017-01-01", validTo: "2018-01-01" });
    // The second source's, current: "cfo: Cy" reaches the target by the first source's move, "region: EU" was dropped there.
    await add("Acme Inc", ["cfo: Cy"], { validFrom: "2023-01-01", expiresAt: FAR });
    await add("Acme Inc", ["region: EU"]);
    await call(mcp, "set_expiry", { entityName: "Acme Inc", observation: "region: EU", pinned: true });
    await until(soon);
    // This instance's index is built now, before the merge: the merge reaches it through the feed's tail.
    await call(mcp, "read_graph", { includeSuperseded: true });

    const rowsBefore = await partitionRows(rawTable(), ws, ["event", "workspace"]);
    const [target, first, second] = ["Acme", "ACME Corp", "Acme Inc"].map(
      (name) => storedFacts(rowsBefore, entityId(ws, name)).observations,
    );
    expect(target!["promo: spring"]).toEqual({ expiresAt: soon });

    const merge = { target: "Acme", sources: ["ACME Corp", "Acme Inc"], confirm: true };
    const dryRun = await call(mcp, "merge_entities", { ...merge, dryRun: true });
    const strip = (rows: RawRow[]) => rows.map(({ etag: _etag, timestamp: _timestamp, ...rest }) => rest);
    expect(strip(await partitionRows(rawTable(), ws, ["event", "workspace"]))).toEqual(strip(rowsBefore));
    const merged = await call(mcp, "merge_entities", merge);
    for (const part of ["observations", "relations", "tags", "alreadyMerged"]) expect(dryRun[part]).toEqual(merged[part]);
    expect(merged.observations).toEqual({ moved: 1, droppedDuplicates: 10 });
    expect(merged.tags).toEqual({ moved: 1, droppedDuplicates: 1 });
    await pause(20);
    const asOf = new Date().toISOString();
    await pause(20);

    const rows = await partitionRows(rawTable(), ws, ["event", "workspace"]);
    const stored = storedFacts(rows, entityId(ws, "Acme"));
    expect(stored.observations).toEqual({
      // Not current on the target, current on a source: the source's times.
      "ceo: Ann": first!["ceo: Ann"],
      "office: Bergen": first!["office: Bergen"],
      "launch: Mars": first!["launch: Mars"],
      "promo: spring": first!["promo: spring"],
      "cfo: Cy": second!["cfo: Cy"],
      "region: EU": second!["region: EU"],
      // Both not current, both current, or only the target's current: the target's.
      "motto: old": target!["motto: old"],
      "hq: Oslo": target!["hq: Oslo"],
      "size: 50": target!["size: 50"],
      "ceo: Bea": target!["ceo: Bea"],
    });
    expect(stored.observations["ceo: Ann"]).toEqual({ validFrom: "2021-01-01T00:00:00.000Z", pinned: true });
    expect(rows.filter((row) => row.kind === "observation" && row.entityId !== entityId(ws, "Acme"))).toEqual([]);
    // The merge recorded each change of the target's copies as a validity-only observation.updated ("cfo: Cy" is created
    // by the first source's move with the second's times), and the fold of the feed agrees with storage (below).
    const events = (await partitionRows(rawTable(), ws, { range: keyRange.events() })).map((row) =>
      toChangeEvent(row as unknown as StoredRow),
    );
    const updated = events
      .filter((event) => event.tool === "merge_entities")
      .flatMap((event) => event.changes)
      .filter((change) => change.kind === "observation.updated");
    expect(updated.map((change) => [change.entityName, change.content, Object.keys(change).sort()]).sort()).toEqual(
      ["ceo: Ann", "launch: Mars", "office: Bergen", "promo: spring", "region: EU"].map((content) => [
        "Acme",
        content,
        ["content", "entityId", "entityName", "kind", "observationId", "validity", "validityBefore"],
      ]),
    );
    expect(updated.find((change) => change.content === "ceo: Ann")?.validity).toEqual({
      validFrom: "2021-01-01T00:00:00.000Z",
      validTo: "",
      supersededBy: "",
      pinned: true,
    });

    const fresh = await startTestServer();
    const freshMcp = await connectClient(fresh.url);
    try {
      const kept = await call(mcp, "read_graph", { includeSuperseded: true });
      const replayed = await call(freshMcp, "read_graph", { includeSuperseded: true, asOf });
      const scanned = await call(freshMcp, "read_graph", { includeSuperseded: true });
      for (const graph of [kept, replayed, scanned]) expect(viewedFacts(graph as Graph, "Acme")).toEqual(stored);

      const showing = [
        "ceo: Ann",
        "ceo: Bea",
        "office: Bergen",
        "launch: Mars",
        "promo: spring",
        "cfo: Cy",
        "region: EU",
        "hq: Oslo",
        "size: 50",
      ];
      for (const [client, args] of [
        [mcp, {}],
        [freshMcp, { asOf }],
      ] as const) {
        const graph = (await call(client, "read_graph", args)) as Graph & {
          entities: (Entity & { observationTags?: Record<string, string[]> })[];
        };
        expect(graph.entities.find((e) => e.name === "Acme")?.observations.sort()).toEqual(showing.sort());
      }
      // The dropped copy's tags hang on the kept one (the one it carried already dropped).
      const tagged = (await call(mcp, "open_nodes", { names: ["Acme"], includeSuperseded: true })) as {
        entities: { observationTags?: Record<string, string[]> }[];
      };
      expect(tagged.entities[0]?.observationTags?.["promo: spring"]?.sort()).toEqual(["marketing", "q1"]);
    } finally {
      await freshMcp.close();
      await fresh.close();
    }
  });
});
