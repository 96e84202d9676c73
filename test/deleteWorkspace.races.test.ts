import type { TableClient } from "@azure/data-tables";
import { describe, expect, test } from "@jest/globals";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import type { McpTestClient, TestServer } from "./support/harness.js";
import { failed, ok, uniqueWorkspace, withTestServers } from "./support/harness.js";
import { partitionRows, type RawRow } from "./support/rawRows.js";

/**
 * delete_workspace racing writers on two server instances (docs/navigate.md#delete_workspace). What must hold, checked on
 * the raw rows after every round: no row ever hangs off a row that is gone (an observation, tag link or edge without its
 * entity row, a tag link without its observation or index row, a relation without its canonical row, an edge row or an
 * endpoint), nothing written before the delete survives a delete that answered success, and an entity created again by
 * name afterwards shows nothing from before. Racing writes either fail with a clear error or land whole.
 */
const ROUNDS = Number(process.env.WSRACE_ROUNDS ?? 20);
const ENTITIES = 12;
const names = Array.from({ length: ENTITIES }, (_, i) => `E${i}`);

let first: TestServer;
let admin: McpTestClient;
let writerA: McpTestClient;
let writerB: McpTestClient;
let table: TableClient;

withTestServers(
  { servers: { first: {}, second: {} }, clients: { admin: { on: "first" }, writerA: { on: "first" }, writerB: { on: "second" } } },
  (started) => {
    ({ first, admin, writerA, writerB } = started);
    table = first.app.storage.table;
  },
);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Before the delete: entities with observations ("seed …"), relations of type "seed", tags on entities and observations. */
async function seed(ws: string): Promise<void> {
  ok(
    await admin.call("create_entities", {
      workspaceName: ws,
      entities: names.map((name) => ({ name, entityType: "seed", observations: Array.from({ length: 8 }, (_, k) => `seed ${name} ${k}`) })),
    }),
  );
  const relations = names.flatMap((name, i) => [
    { from: name, to: names[(i + 1) % ENTITIES], relationType: "seed" },
    { from: names[0], to: name, relationType: "seed-hub" },
  ]);
  ok(await admin.call("create_relations", { workspaceName: ws, relations }));
  ok(await admin.call("define_tag", { workspaceName: ws, name: "seed-tag", category: "c" }));
  for (const name of names.slice(0, 4)) {
    ok(await admin.call("tag_entity", { workspaceName: ws, entityName: name, tagNames: ["seed-tag"] }));
    ok(
      await admin.call("tag_observation", {
        workspaceName: ws,
        entityName: name,
        observationContent: `seed ${name} 0`,
        tagNames: ["seed-tag"],
      }),
    );
  }
}

/** One racing write, chosen by its step: every kind of write that hangs rows off an entity, or creates one. */
function write(client: McpTestClient, ws: string, who: string, step: number): Promise<CallToolResult> {
  const a = names[step % ENTITIES]!;
  const b = names[(step * 5 + 3) % ENTITIES]!;
  const text = `w ${who} ${step}`;
  switch (step % 8) {
    case 0:
      return client.call("add_observations", { workspaceName: ws, observations: [{ entityName: a, contents: [text, `${text} bis`] }] });
    case 1:
      return client.call("create_relations", {
        workspaceName: ws,
        relations: [
          { from: a, to: b, relationType: `w-${who}` },
          { from: b, to: a, relationType: `w-${who}` },
        ],
      });
    case 2:
      return client.call("upsert_relation", { workspaceName: ws, from: a, to: b, relationType: `w-up-${who}`, metadata: { by: text } });
    case 3:
      return client.call("tag_entity", { workspaceName: ws, entityName: a, tagNames: [`w-${who}`, "seed-tag"] });
    case 4:
      return client.call("tag_observation", {
        workspaceName: ws,
        entityName: a,
        observationContent: `seed ${a} 1`,
        tagNames: [`w-${who}`],
      });
    case 5:
      return client.call("execute_batch", {
        workspaceName: ws,
        atomic: true,
        operations: [
          { op: "add_observations", args: { observations: [{ entityName: a, contents: [text] }] } },
          { op: "upsert_relation", args: { from: a, to: b, relationType: `wb-${who}` } },
        ],
      });
    case 6:
      return client.call("create_entities", {
        workspaceName: ws,
        entities: [{ name: a, entityType: `fresh-${who}`, observations: [text] }],
      });
    default:
      return client.call("upsert_entity", { workspaceName: ws, name: b, entityType: `fresh-${who}`, observations: [text] });
  }
}

/** What hangs off a row that is gone: each as "<kind> <key>: <what is missing>". */
function danglingRows(rows: readonly RawRow[]): string[] {
  const keys = new Set(rows.map((row) => row.rowKey));
  const problems: string[] = [];
  const need = (row: RawRow, key: string, what: string) => {
    if (!keys.has(key)) problems.push(`${String(row.kind)} ${row.rowKey}: no ${what}`);
  };
  for (const row of rows) {
    const kind = String(row.kind);
    const owner = row.rowKey.split("~")[0]!;
    if (["observation", "edge-in", "edge-out", "entity-tag", "observation-tag"].includes(kind)) need(row, owner, "entity row");
    if (["relation", "edge-in", "edge-out"].includes(kind)) {
      const id = String(row.relationId);
      need(row, id, "canonical relation row");
      need(row, `${String(row.fromId)}~r~out~${id}`, "outgoing edge");
      need(row, `${String(row.toId)}~r~in~${id}`, "incoming edge");
      need(row, String(row.fromId), "source entity");
      need(row, String(row.toId), "target entity");
    }
    if (kind === "observation-tag") need(row, row.rowKey.slice(0, row.rowKey.lastIndexOf("~t~")), "observation row");
    const target = row.observationId ? `${String(row.entityId)}~o~${String(row.observationId)}` : String(row.entityId);
    if (kind === "entity-tag" || kind === "observation-tag") need(row, `tagidx~${String(row.tagId)}~${target}`, "tag index row");
    if (kind === "tag-index") need(row, `${target}~t~${String(row.tagId)}`, "tag link");
  }
  return problems;
}

/** Rows written before the delete started: they must not survive a delete that answered success. */
const fromBefore = (rows: readonly RawRow[]) =>
  rows
    .filter(
      (row) =>
        row.entityType === "seed" ||
        String(row.content ?? "").startsWith("seed") ||
        String(row.relationType ?? "").startsWith("seed") ||
        row.category === "c",
    )
    .map((row) => `${String(row.kind)} ${row.rowKey}`);

describe("delete_workspace racing writes on two instances", () => {
  test(`${ROUNDS} rounds: no dangling row at any point, nothing from before survives, a re-created entity starts empty`, async () => {
    const leftPerRound: number[] = [];
    const outcomes: string[] = [];
    const found: Record<string, unknown>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const ws = uniqueWorkspace("wsrace");
      await seed(ws);
      // Each writer keeps writing until the delete has answered (and a little more), starting a little later each round.
      let deleting = true;
      const writer = async (client: McpTestClient, who: string) => {
        const results: CallToolResult[] = [];
        for (let step = round; deleting || step < round + 4; step++) results.push(await write(client, ws, who, step));
        return results;
      };
      const [deleted, ...writes] = await Promise.all([
        pause(round % 7).then(async () => {
          const answer = await admin.call("delete_workspace", { workspaceName: ws, confirm: ws });
          deleting = false;
          return answer;
        }),
        writer(writerA, "a"),
        writer(writerB, "b"),
      ]);
      // A racing write that failed says why, in a kind the caller can act on (never a bare storage failure).
      const unclear = writes
        .flat()
        .filter((result) => result.isError && !["NotFoundError", "ConflictError"].includes(failed(result).error))
        .map((result) => failed(result).message);

      const rows = await partitionRows(table, ws);
      const problems = danglingRows(rows);
      const survivors = deleted.isError ? [] : fromBefore(rows);
      leftPerRound.push(new Set([...problems, ...survivors].map((line) => line.split(":")[0])).size);
      outcomes.push(deleted.isError ? failed(deleted).error : "ok");

      // Every entity created again by name shows nothing from before the delete.
      ok(
        await admin.call("create_entities", {
          workspaceName: ws,
          entities: names.map((name) => ({ name, entityType: "again", observations: ["again"] })),
        }),
      );
      const opened = ok<{ entities: { name: string; observations: string[] }[] }>(
        await admin.call("open_nodes", { workspaceName: ws, names }),
      );
      const stale = opened.entities.flatMap((entity) =>
        entity.observations.filter((o) => o.startsWith("seed")).map((o) => `${entity.name}: ${o}`),
      );
      for (const name of deleted.isError ? [] : names) {
        const { relations } = ok<{ relations: { relationType: string }[] }>(
          await admin.call("get_entity_relations", { workspaceName: ws, entityName: name, direction: "both" }),
        );
        stale.push(...relations.filter((r) => r.relationType.startsWith("seed")).map((r) => `${name}: relation ${r.relationType}`));
      }
      const after = await partitionRows(table, ws);
      // A delete that did not finish says so as a conflict (retry once the writers stop); what it left is whole.
      const unfinished = deleted.isError && failed(deleted).error !== "ConflictError" ? [failed(deleted).message] : [];
      found.push({
        round,
        unclear,
        unfinished,
        problems,
        survivors,
        stale: deleted.isError ? [] : stale,
        afterwards: [...danglingRows(after), ...(deleted.isError ? [] : fromBefore(after))],
      });

      // Once the writers have stopped, a delete empties the workspace.
      ok(await admin.call("delete_workspace", { workspaceName: ws, confirm: ws }));
      const emptied = await partitionRows(table, ws);
      if (emptied.length > 0) found.push({ round, left: emptied.map((row) => row.rowKey) });
    }
    console.log(
      `delete_workspace races: rows left dangling or from before, per round: ${leftPerRound.join(" ")}; answers: ${outcomes.join(" ")}`,
    );
    const clean = (entry: Record<string, unknown>) => Object.values(entry).every((value) => !Array.isArray(value) || value.length === 0);
    expect(found.filter((entry) => !clean(entry))).toEqual([]);
    expect(outcomes.filter((outcome) => outcome === "ok").length).toBeGreaterThan(ROUNDS / 2);
  }, 300_000);
});

describe("delete_workspace on rows an older version left half", () => {
  test("a relation without its canonical row, a tag link without its index row, an orphan observation and a much-tagged observation all go", async () => {
    const ws = uniqueWorkspace("wshalf");
    await seed(ws);
    // An observation with more tags than fit one transaction with it (its tags go first, then it, then its entity).
    const many = Array.from({ length: 60 }, (_, i) => `many-${i}`);
    for (const tagNames of [many.slice(0, 30), many.slice(30)]) {
      ok(await admin.call("tag_observation", { workspaceName: ws, entityName: "E5", observationContent: "seed E5 3", tagNames }));
    }
    const rows = await partitionRows(table, ws);
    const relation = rows.find((row) => row.kind === "relation")!;
    await table.deleteEntity(ws, relation.rowKey);
    const index = rows.find((row) => row.kind === "tag-index")!;
    await table.deleteEntity(ws, index.rowKey);
    const observation = rows.find((row) => row.kind === "observation")!;
    const orphan = { ...observation, rowKey: `00000000-0000-5000-8000-000000000000~o~${String(observation.rowKey).split("~o~")[1]}` };
    delete (orphan as Record<string, unknown>).etag;
    delete (orphan as Record<string, unknown>).timestamp;
    await table.createEntity({ ...orphan, partitionKey: ws });
    expect(danglingRows(await partitionRows(table, ws)).length).toBeGreaterThan(0);

    const deleted = ok<{ rowsDeleted: number }>(await admin.call("delete_workspace", { workspaceName: ws, confirm: ws }));
    expect(deleted.rowsDeleted).toBe(rows.length + 1 - 2);
    expect(await partitionRows(table, ws)).toEqual([]);
  });
});
