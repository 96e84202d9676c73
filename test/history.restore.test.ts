import { describe, expect, test } from "@jest/globals";

import { entityId, observationId } from "../src/domain/model/ids.js";
import { rowKey } from "../src/storage/rows/keys.js";
import { failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withTestServers } from "./support/harness.js";
import { injectRaces, type RaceInjector } from "./support/raceInjector.js";
import { eventRowKeys, partitionRows, type RawRow } from "./support/rawRows.js";

/**
 * restore_entity's edges (docs/history.md#restoring-a-deleted-entity), through the real MCP Client, checked on raw rows:
 * after retention pruned the entity's early history, racing other restores and creates, and on a merged-away entity;
 * and get_entity_history showing only the entity's own changes.
 */
const DAY_MS = 86_400_000;

let server: TestServer;
let mcp: McpTestClient;
/** A client of an instance whose clock is ten days behind: what it writes is history a one-day retention prunes. */
let pastMcp: McpTestClient;
let races: RaceInjector;
withTestServers(
  {
    servers: { server: { storage: { historyRetentionDays: 1 } }, past: { storage: { clock: () => Date.now() - 10 * DAY_MS } } },
    clients: { mcp: { on: "server" }, pastMcp: { on: "past" } },
  },
  (started) => {
    ({ server, mcp, pastMcp } = started);
    races = injectRaces(server.app.storage.table);
  },
);

type Args = Record<string, unknown>;
const call = (ws: string, name: string, args: Args = {}) => mcp.call(name, { workspaceName: ws, ...args });
const pause = () => new Promise((resolve) => setTimeout(resolve, 15));
const rawRows = (ws: string) => partitionRows(server.app.storage.table, ws, ["event", "workspace", "history-pruned"]);

const eventKeys = (ws: string): Promise<string[]> => eventRowKeys(server.app.storage.table, ws);

/** One entity's state in raw rows: its type, observations and tags (sorted), or undefined when it has no entity row. */
function stateOf(rows: readonly RawRow[], name: string) {
  const head = rows.find((row) => row.kind === "entity" && row.name === name);
  if (!head) return undefined;
  const id = head.rowKey;
  const mine = rows.filter((row) => row.rowKey.startsWith(id));
  return {
    entityType: head.entityType,
    observations: mine
      .filter((row) => row.kind === "observation")
      .map((row) => String(row.content))
      .sort(),
    tags: mine
      .filter((row) => row.kind === "entity-tag")
      .map((row) => String(row.tagName))
      .sort(),
  };
}

/** Rows whose entity is gone: observations, tag links and relation rows left hanging. */
function orphans(rows: readonly RawRow[]): RawRow[] {
  const entities = new Set(rows.filter((row) => row.kind === "entity").map((row) => row.rowKey));
  return rows.filter((row) => {
    if (row.kind === "observation" || row.kind === "entity-tag" || row.kind === "observation-tag")
      return !entities.has(String(row.entityId));
    if (row.kind === "relation" || row.kind === "edge-in" || row.kind === "edge-out") {
      return !(entities.has(String(row.fromId)) && entities.has(String(row.toId)));
    }
    return false;
  });
}

describe("restore_entity after retention (defect 6)", () => {
  test("the entity's early events were pruned: the restore brings back its whole state from the deleting call's before-images", async () => {
    const ws = uniqueWorkspace("restore-pruned");
    // Ten days ago: the entity with 3 observations, a tag, an observation tag and a relation to a peer.
    ok(await pastMcp.call("upsert_entity", { workspaceName: ws, name: "Peer", entityType: "service" }));
    ok(
      await pastMcp.call("upsert_entity", {
        workspaceName: ws,
        name: "Kept",
        entityType: "service",
        metadata: { tier: 1 },
        observations: ["old one", "old two", "old three"],
      }),
    );
    ok(await pastMcp.call("tag_entity", { workspaceName: ws, entityName: "Kept", tagNames: ["core"] }));
    ok(
      await pastMcp.call("tag_observation", {
        workspaceName: ws,
        entityName: "Kept",
        observationContent: "old two",
        tagNames: ["checked"],
      }),
    );
    ok(await pastMcp.call("create_relations", { workspaceName: ws, relations: [{ from: "Kept", to: "Peer", relationType: "calls" }] }));
    const oldKeys = await eventKeys(ws);
    expect(oldKeys).toHaveLength(5);

    // Today: one new observation, then the delete. The two writes take the two pruning steps (read the expired keys, delete them).
    ok(await call(ws, "upsert_entity", { name: "Kept", entityType: "service", observations: ["new one"] }));
    const before = ok<{ entities: unknown[] }>(await call(ws, "open_nodes", { names: ["Kept"] }));
    ok(await call(ws, "delete_entities", { entityNames: ["Kept"] }));
    const kept = await eventKeys(ws);
    expect(kept.filter((key) => oldKeys.includes(key))).toEqual([]); // the early history is gone
    expect(stateOf(await rawRows(ws), "Kept")).toBeUndefined();

    const restored = ok<Args>(await call(ws, "restore_entity", { entityName: "Kept" }));
    expect(restored).toMatchObject({
      entityName: "Kept",
      observations: 4,
      relations: 1,
      relationsSkipped: 0,
      tags: ["core"],
      observationTags: 1,
    });
    const rows = await rawRows(ws);
    expect(stateOf(rows, "Kept")).toEqual({
      entityType: "service",
      observations: ["new one", "old one", "old three", "old two"],
      tags: ["core"],
    });
    expect(rows.filter((row) => row.kind === "observation-tag").map((row) => row.tagName)).toEqual(["checked"]);
    expect(rows.filter((row) => row.kind === "relation")).toHaveLength(1);
    expect(orphans(rows)).toEqual([]);
    expect(JSON.parse(String(rows.find((row) => row.kind === "entity" && row.name === "Kept")!.metadata))).toEqual({ tier: 1 });
    const after = ok<{ entities: { observations: string[] }[] }>(await call(ws, "open_nodes", { names: ["Kept"] }));
    // Those whose addition was pruned come first (their order is not kept), then the kept history's in order.
    expect(after.entities[0]!.observations.at(-1)).toBe("new one");
    expect({ ...after.entities[0]!, observations: [...after.entities[0]!.observations].sort() }).toEqual({
      ...(before.entities[0] as Args),
      observations: ["new one", "old one", "old three", "old two"],
    });
  });

  test("an entity written before history began (no creation event): the restore brings it back whole from its deletion's before-images", async () => {
    const ws = uniqueWorkspace("restore-prehistory");
    const id = entityId(ws, "Legacy");
    const at = new Date(Date.now() - 400 * DAY_MS).toISOString();
    // Rows as a version before the change feed wrote them: no event.
    await server.app.storage.table.createEntity({
      partitionKey: ws,
      rowKey: rowKey.entity(id),
      kind: "entity",
      name: "Legacy",
      entityType: "system",
      metadata: "{}",
      createdAt: at,
      updatedAt: at,
    });
    for (const [i, content] of ["first", "second"].entries()) {
      await server.app.storage.table.createEntity({
        partitionKey: ws,
        rowKey: rowKey.observation(id, observationId(id, content)),
        kind: "observation",
        entityId: id,
        content,
        order: `${at}#${i}`,
        createdAt: at,
      });
    }
    ok(await call(ws, "add_observations", { observations: [{ entityName: "Legacy", contents: ["third"] }] }));
    ok(await call(ws, "delete_entities", { entityNames: ["Legacy"] }));
    expect(ok<Args>(await call(ws, "restore_entity", { entityName: "Legacy" }))).toMatchObject({ observations: 3 });
    const restored = ok<{ entities: { observations: string[] }[] }>(await call(ws, "open_nodes", { names: ["Legacy"] }));
    expect(restored.entities[0]!.observations.at(-1)).toBe("third");
    expect(stateOf(await rawRows(ws), "Legacy")).toEqual({ entityType: "system", observations: ["first", "second", "third"], tags: [] });
  });

  test("part of the deleting call's own events were pruned: the restore is refused, says why and what to do, and writes nothing", async () => {
    const ws = uniqueWorkspace("restore-cut");
    ok(await pastMcp.call("upsert_entity", { workspaceName: ws, name: "Peer", entityType: "t" }));
    // 150 observations: more than one transaction holds, so the delete takes several, each with its event.
    const observations = Array.from({ length: 150 }, (_, i) => `fact ${i}`);
    ok(await pastMcp.call("upsert_entity", { workspaceName: ws, name: "Cut", entityType: "t", observations }));
    ok(await pastMcp.call("create_relations", { workspaceName: ws, relations: [{ from: "Cut", to: "Peer", relationType: "r" }] }));
    const created = await eventKeys(ws);
    ok(await pastMcp.call("delete_entities", { workspaceName: ws, entityNames: ["Cut"] }));
    const deleting = (await eventKeys(ws)).filter((key) => !created.includes(key));
    expect(deleting.length).toBeGreaterThan(1); // dependents first, then the entity row with its event
    // A pruning step that ended inside the deleting call (as the pruner writes it: its keys gone, the marker at the last).
    const pruned = [...created, deleting[0]!];
    for (const key of pruned) await server.app.storage.table.deleteEntity(ws, key);
    await server.app.storage.table.upsertEntity(
      { partitionKey: ws, rowKey: rowKey.historyPruned, kind: "history-pruned", before: pruned.at(-1)! },
      "Replace",
    );
    const error = failed(await call(ws, "restore_entity", { entityName: "Cut" }));
    expect(error.error).toBe("ValidationError");
    expect(error.message).toMatch(/pruned \(MEMORY_HISTORY_RETENTION_DAYS\)/);
    expect(error.message).toMatch(/upsert_entity/);
    const rows = await rawRows(ws);
    expect(stateOf(rows, "Cut")).toBeUndefined();
    expect(rows.filter((row) => row.kind === "observation")).toEqual([]);
  });
});

/** E at t1 (draft: a, b; tag one) and at t2 (final: b, c; tag two), then deleted. */
async function twoPastStates(ws: string) {
  ok(await call(ws, "upsert_entity", { name: "E", entityType: "draft", observations: ["a", "b"] }));
  ok(await call(ws, "tag_entity", { entityName: "E", tagNames: ["one"] }));
  await pause();
  const t1 = new Date().toISOString();
  await pause();
  ok(await call(ws, "upsert_entity", { name: "E", entityType: "final", observations: ["c"] }));
  ok(await call(ws, "delete_observations", { deletions: [{ entityName: "E", observations: ["a"] }] }));
  ok(await call(ws, "remove_tags_from_entity", { entityName: "E", tagNames: ["one"] }));
  ok(await call(ws, "tag_entity", { entityName: "E", tagNames: ["two"] }));
  await pause();
  const t2 = new Date().toISOString();
  await pause();
  ok(await call(ws, "delete_entities", { entityNames: ["E"] }));
  return {
    t1,
    t2,
    states: {
      [t1]: { entityType: "draft", observations: ["a", "b"], tags: ["one"] },
      [t2]: { entityType: "final", observations: ["b", "c"], tags: ["two"] },
    },
  };
}

describe("concurrent restore_entity (defect 9)", () => {
  const ROUNDS = 20;

  test(`two restores of one entity at two asOf times, the second landing inside the first: one wins, the other is a ConflictError (${ROUNDS} rounds)`, async () => {
    const ws = uniqueWorkspace("restore-race");
    const { t1, t2, states } = await twoPastStates(ws);
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const [mine, theirs] = round % 2 === 0 ? [t1, t2] : [t2, t1];
      let raced: Awaited<ReturnType<typeof call>> | undefined;
      // The other restore runs whole between this one's reads and its first transaction.
      races.beforeNextTransaction(async () => (raced = await call(ws, "restore_entity", { entityName: "E", asOf: theirs })));
      const first = await call(ws, "restore_entity", { entityName: "E", asOf: mine });
      const rows = await rawRows(ws);
      const outcome = JSON.stringify([first.isError ? failed(first).error : "ok", raced?.isError ? failed(raced).error : "ok"]);
      if (outcome !== JSON.stringify(["ConflictError", "ok"])) failures.push(`round ${round}: ${outcome}`);
      else {
        expect(failed(first).message).toMatch(/delete_entities/);
        if (JSON.stringify(stateOf(rows, "E")) !== JSON.stringify(states[theirs]))
          failures.push(`round ${round}: ${JSON.stringify(stateOf(rows, "E"))}`);
      }
      expect(orphans(rows)).toEqual([]);
      ok(await call(ws, "delete_entities", { entityNames: ["E"] }));
    }
    expect(failures).toEqual([]);
  });

  test(`two restores of one entity at two asOf times sent at once: exactly one succeeds, and the rows are its state (${ROUNDS} rounds)`, async () => {
    const ws = uniqueWorkspace("restore-race-free");
    const { t1, t2, states } = await twoPastStates(ws);
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const results = await Promise.all([t1, t2].map((asOf) => call(ws, "restore_entity", { entityName: "E", asOf })));
      const winners = [t1, t2].filter((_, i) => !results[i]!.isError);
      const losers = results.filter((result) => result.isError).map((result) => failed(result).error);
      const state = stateOf(await rawRows(ws), "E");
      if (winners.length !== 1 || losers.join() !== "ConflictError")
        failures.push(`round ${round}: ${winners.length} won, ${losers.join()}`);
      else if (JSON.stringify(state) !== JSON.stringify(states[winners[0]!])) failures.push(`round ${round}: ${JSON.stringify(state)}`);
      ok(await call(ws, "delete_entities", { entityNames: ["E"] }));
    }
    expect(failures).toEqual([]);
  });

  test(`a restore racing a create or an upsert of the same name: the restore that loses is a ConflictError and writes nothing (${ROUNDS} rounds)`, async () => {
    const ws = uniqueWorkspace("restore-create");
    const { t2, states } = await twoPastStates(ws);
    const restore = () => call(ws, "restore_entity", { entityName: "E", asOf: t2 });
    const fresh = { entityType: "fresh", observations: ["new"], tags: [] };
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const create =
        round % 2 === 0
          ? () => call(ws, "create_entities", { entities: [{ name: "E", entityType: "fresh", observations: ["new"] }] })
          : () => call(ws, "upsert_entity", { name: "E", entityType: "fresh", observations: ["new"] });
      let raced: Awaited<ReturnType<typeof call>> | undefined;
      if (round % 4 < 2) {
        // The create lands between the restore's reads and its first transaction: the restore must lose.
        races.beforeNextTransaction(async () => (raced = await create()));
        const restored = await restore();
        const state = stateOf(await rawRows(ws), "E");
        if (!restored.isError || failed(restored).error !== "ConflictError" || raced?.isError) {
          failures.push(`round ${round}: restore ${restored.isError ? failed(restored).error : "ok"}`);
        } else if (JSON.stringify(state) !== JSON.stringify(fresh)) failures.push(`round ${round}: ${JSON.stringify(state)}`);
      } else {
        // The restore lands inside the create: the create's own rules apply to the restored entity (skip it, or update it).
        races.beforeNextTransaction(async () => (raced = await restore()));
        ok(await create());
        const state = stateOf(await rawRows(ws), "E");
        const expected =
          round % 2 === 0 ? states[t2] : { ...states[t2], entityType: "fresh", observations: [...states[t2]!.observations, "new"].sort() };
        if (raced?.isError) failures.push(`round ${round}: restore ${failed(raced).error}`);
        else if (JSON.stringify(state) !== JSON.stringify(expected)) failures.push(`round ${round}: ${JSON.stringify(state)}`);
      }
      expect(orphans(await rawRows(ws))).toEqual([]);
      ok(await call(ws, "delete_entities", { entityNames: ["E"] }));
    }
    expect(failures).toEqual([]);
  });
});

describe("restore_entity on a merged-away entity", () => {
  test("is refused, naming the target and how to split it back; after the split by hand, restore with asOf brings it back", async () => {
    const ws = uniqueWorkspace("restore-merged");
    ok(await call(ws, "upsert_entity", { name: "Source", entityType: "t", observations: ["s1", "s2"] }));
    ok(await call(ws, "upsert_entity", { name: "Target", entityType: "t", observations: ["t1"] }));
    ok(await call(ws, "tag_entity", { entityName: "Source", tagNames: ["moved"] }));
    await pause();
    const beforeMerge = new Date().toISOString();
    await pause();
    ok(await call(ws, "merge_entities", { target: "Target", sources: ["Source"], confirm: true }));
    const merged = await rawRows(ws);

    const error = failed(await call(ws, "restore_entity", { entityName: "Source" }));
    expect(error.error).toBe("ValidationError");
    expect(error.message).toMatch(/^Entity 'Source' was merged into 'Target' \(merge_entities at \S+ by anonymous\)/);
    expect(error.message).toMatch(/delete_observations/);
    expect(error.message).toMatch(/restore_entity with asOf/);
    expect(await rawRows(ws)).toEqual(merged); // nothing written
    expect(stateOf(merged, "Target")).toEqual({ entityType: "t", observations: ["s1", "s2", "t1"], tags: ["moved"] });

    // The split the message describes: take the moved data off the target, then restore the source as it was before the merge.
    ok(await call(ws, "delete_observations", { deletions: [{ entityName: "Target", observations: ["s1", "s2"] }] }));
    ok(await call(ws, "remove_tags_from_entity", { entityName: "Target", tagNames: ["moved"] }));
    ok(await call(ws, "restore_entity", { entityName: "Source", asOf: beforeMerge }));
    const rows = await rawRows(ws);
    expect(stateOf(rows, "Source")).toEqual({ entityType: "t", observations: ["s1", "s2"], tags: ["moved"] });
    expect(stateOf(rows, "Target")).toEqual({ entityType: "t", observations: ["t1"], tags: [] });
  });
});

describe("get_entity_history", () => {
  test("an entity created by a call that created 50 others shows only its own changes, with their event's time and principal", async () => {
    const ws = uniqueWorkspace("history-own");
    const names = Array.from({ length: 51 }, (_, i) => `N${i}`);
    ok(await call(ws, "create_entities", { entities: names.map((name) => ({ name, entityType: "t", observations: [`${name} fact`] })) }));
    ok(await call(ws, "create_relations", { relations: [{ from: "N7", to: "N8", relationType: "next" }] }));
    type History = {
      events: { at: string; principal: string; tool: string; summary: string; changes: { kind: string; entityName?: string }[] }[];
    };
    const history = ok<History>(await call(ws, "get_entity_history", { entityName: "N7" }));
    expect(history.events.map((event) => [event.tool, event.principal, event.changes.map((change) => change.kind)])).toEqual([
      ["create_entities", "anonymous", ["entity.created", "observation.created"]],
      ["create_relations", "anonymous", ["relation.created"]],
    ]);
    expect(history.events[0]!.changes.map((change) => change.entityName)).toEqual(["N7", "N7"]);
    expect(history.events[0]!.summary).toBe("anonymous via create_entities: created entity 'N7' (t); added observation 'N7 fact' to 'N7'");
    expect(Date.parse(history.events[0]!.at)).not.toBeNaN();
    // get_changes still gives whole events.
    const all = ok<{ events: { changes: unknown[] }[] }>(await call(ws, "get_changes", { order: "oldest" }));
    expect(all.events.flatMap((event) => event.changes)).toHaveLength(51 * 2 + 1);
  });
});
