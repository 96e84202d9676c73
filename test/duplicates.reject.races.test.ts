import type { TableClient } from "@azure/data-tables";
import { describe, expect, test } from "@jest/globals";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { entityId } from "../src/domain/model/ids.js";
import { keyRange, rowKey } from "../src/storage/rows/keys.js";
import type { McpTestClient } from "./support/harness.js";
import { failed, ok, uniqueWorkspace, withTestServers } from "./support/harness.js";
import { partitionRows, rawTable } from "./support/rawRows.js";

/**
 * reject_duplicate_pair racing the writes that can meet it (docs/curate.md#rejecting-a-pair): merge_entities and
 * delete_entities of the same pair, another reject or undo of it, delete_workspace. Two server instances on one Azurite,
 * checked on the raw rows each round. What must hold whatever the interleaving: a call answers success or a NotFoundError
 * saying the entity is gone (no other error); a rejection row and its event commit together (the rows agree with the
 * feed's last word on the pair); rejecting twice leaves one row and one event; detection and merges keep working with a
 * row whose entity is gone.
 */
let clients: McpTestClient[] = [];
let table: TableClient;

withTestServers({ servers: { first: {}, second: {} }, clients: { one: { on: "first" }, two: { on: "second" } } }, ({ one, two }) => {
  clients = [one, two];
  table = rawTable();
});

const ROUNDS = 20;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const jitter = () => pause(Math.floor(Math.random() * 25));
const call = (client: McpTestClient, ws: string, name: string, args: Record<string, unknown> = {}) =>
  client.call(name, { workspaceName: ws, ...args });

interface Answer {
  rejected: boolean;
  changed: boolean;
}
interface Detected {
  pairs: { a: { name: string }; b: { name: string } }[];
  rejected: number;
}

/** success, or the one error a rejection racing a removal may answer: the entity is gone. */
function settled(result: CallToolResult): Answer | "gone" {
  if (!result.isError) return ok<Answer>(result);
  const error = failed(result);
  expect(error.error).toBe("NotFoundError");
  expect(error.message).toMatch(/does not exist|do not exist/);
  return "gone";
}

/** The raw rows: the rejection rows, the entity rows by name, and the rejection events in the feed's order. */
async function stored(ws: string) {
  const rejections = await partitionRows(table, ws, { range: keyRange.rejections });
  const entities = (await partitionRows(table, ws, { only: ["entity"] })).map((row) => String(row.name));
  const events = ok<{ events: { changes: { kind: string }[] }[] }>(
    await call(clients[0]!, ws, "get_changes", { kinds: ["rejection.created", "rejection.deleted"], order: "oldest", limit: 100 }),
  ).events.flatMap((event) => event.changes.map((change) => change.kind));
  return { rejections, entities, events };
}

async function seed(ws: string, names: string[]): Promise<void> {
  ok(
    await call(clients[0]!, ws, "create_entities", {
      entities: names.map((name, i) => ({ name, entityType: "person", observations: [`${name} fact ${i}`, "shared fact"] })),
    }),
  );
}

/** Detection answers on both instances (a row of a vanished entity breaks nothing) and leaves out rejected pairs. */
async function detectsOnBoth(ws: string): Promise<Detected[]> {
  return Promise.all(clients.map(async (client) => ok<Detected>(await call(client, ws, "detect_duplicate_entities", { threshold: 0.5 }))));
}

const keyOf = (ws: string, a: string, b: string) => rowKey.rejection(entityId(ws, a), entityId(ws, b));

describe("reject_duplicate_pair races", () => {
  test(`against merge_entities of the same pair: the merge wins or the rejection lands first; no error soup (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const ws = uniqueWorkspace("rjmerge");
      await seed(ws, ["Ann Lee", "ann_lee", "Ann Leeds"]);
      const [first, second] = round % 2 ? [clients[0]!, clients[1]!] : [clients[1]!, clients[0]!];
      const [rejection, merge] = await Promise.all([
        jitter().then(() => call(first, ws, "reject_duplicate_pair", { a: "Ann Lee", b: "ann_lee" })),
        jitter().then(() => call(second, ws, "merge_entities", { target: "Ann Lee", sources: ["ann_lee"], confirm: true })),
      ]);
      ok(merge);
      const answer = settled(rejection);
      const { rejections, entities, events } = await stored(ws);
      expect(entities.sort()).toEqual(["Ann Lee", "Ann Leeds"]);
      // The row and its event committed together, or neither.
      if (answer === "gone") {
        expect(rejections).toEqual([]);
        expect(events).toEqual([]);
      } else {
        expect(answer).toMatchObject({ rejected: true, changed: true });
        expect(rejections.map((row) => row.rowKey)).toEqual([keyOf(ws, "Ann Lee", "ann_lee")]);
        expect(events).toEqual(["rejection.created"]);
      }
      // The row of the merged-away entity breaks neither detection nor a later merge.
      for (const detected of await detectsOnBoth(ws)) expect(detected.rejected).toBe(0);
      ok(await call(second, ws, "merge_entities", { target: "Ann Lee", sources: ["Ann Leeds"], confirm: true }));
    }
  }, 120_000);

  test(`against delete_entities of one side (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const ws = uniqueWorkspace("rjdelete");
      await seed(ws, ["Bo Chen", "bo_chen"]);
      const [first, second] = round % 2 ? [clients[0]!, clients[1]!] : [clients[1]!, clients[0]!];
      const [rejection, deletion] = await Promise.all([
        jitter().then(() => call(first, ws, "reject_duplicate_pair", { a: "bo_chen", b: "Bo Chen" })),
        jitter().then(() => call(second, ws, "delete_entities", { entityNames: ["bo_chen"] })),
      ]);
      ok(deletion);
      const answer = settled(rejection);
      const { rejections, entities, events } = await stored(ws);
      expect(entities).toEqual(["Bo Chen"]);
      expect(rejections).toHaveLength(answer === "gone" ? 0 : 1);
      expect(events).toEqual(answer === "gone" ? [] : ["rejection.created"]);
      await detectsOnBoth(ws);
    }
  }, 120_000);

  test(`two rejects of one pair, named both ways, on two instances: one row, one event (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const ws = uniqueWorkspace("rjtwice");
      await seed(ws, ["Cy Dunn", "cy dunn"]);
      const answers = await Promise.all([
        jitter().then(() => call(clients[0]!, ws, "reject_duplicate_pair", { a: "Cy Dunn", b: "cy dunn" })),
        jitter().then(() => call(clients[1]!, ws, "reject_duplicate_pair", { a: "cy dunn", b: "Cy Dunn" })),
      ]);
      const changed = answers.map((result) => ok<Answer>(result)).map((answer) => answer.changed);
      expect(changed.filter(Boolean)).toHaveLength(1);
      const { rejections, events } = await stored(ws);
      expect(rejections.map((row) => row.rowKey)).toEqual([keyOf(ws, "Cy Dunn", "cy dunn")]);
      expect(events).toEqual(["rejection.created"]);
      for (const detected of await detectsOnBoth(ws)) expect([detected.pairs.length, detected.rejected]).toEqual([0, 1]);
    }
  }, 120_000);

  test(`reject against undo, and undo against undo: the rows agree with the feed's last word on the pair (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const ws = uniqueWorkspace("rjundo");
      await seed(ws, ["Di Eve", "di-eve"]);
      const pair = { a: "Di Eve", b: "di-eve" };
      if (round % 2) {
        // Two undos of one rejection: one forgets it, the other finds nothing to forget.
        ok(await call(clients[0]!, ws, "reject_duplicate_pair", pair));
        const answers = await Promise.all(
          clients.map((client) => jitter().then(() => call(client, ws, "reject_duplicate_pair", { ...pair, undo: true }))),
        );
        expect(answers.map((result) => ok<Answer>(result).changed).filter(Boolean)).toHaveLength(1);
        const { rejections, events } = await stored(ws);
        expect(rejections).toEqual([]);
        expect(events).toEqual(["rejection.created", "rejection.deleted"]);
      } else {
        const [rejection, undo] = await Promise.all([
          jitter().then(() => call(clients[0]!, ws, "reject_duplicate_pair", pair)),
          jitter().then(() => call(clients[1]!, ws, "reject_duplicate_pair", { ...pair, undo: true })),
        ]);
        expect(ok<Answer>(rejection).changed).toBe(true);
        const undid = ok<Answer>(undo).changed;
        const { rejections, events } = await stored(ws);
        // The undo found the row (it ran after) or did not (before, writing nothing): either way one story.
        expect(events).toEqual(undid ? ["rejection.created", "rejection.deleted"] : ["rejection.created"]);
        expect(rejections).toHaveLength(undid ? 0 : 1);
        for (const detected of await detectsOnBoth(ws)) expect(detected.rejected).toBe(undid ? 0 : 1);
      }
    }
  }, 120_000);

  test(`against delete_workspace: the rows go with the partition and every index converges (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const ws = uniqueWorkspace("rjws");
      await seed(ws, ["Ed Fox", "ed_fox"]);
      await detectsOnBoth(ws);
      ok(await call(clients[1]!, ws, "read_graph")); // an index on the second instance, to converge
      const [rejection, deletion] = await Promise.all([
        jitter().then(() => call(clients[0]!, ws, "reject_duplicate_pair", { a: "Ed Fox", b: "ed_fox" })),
        jitter().then(() => call(clients[1]!, ws, "delete_workspace", { confirm: ws })),
      ]);
      ok(deletion);
      settled(rejection);
      const { rejections, entities } = await stored(ws);
      expect(rejections).toEqual([]);
      expect(entities).toEqual([]);
      // Re-created: the pair is proposed again everywhere, and every instance's graph is the new one.
      await seed(ws, ["Ed Fox", "ed_fox"]);
      for (const detected of await detectsOnBoth(ws)) expect([detected.pairs.length, detected.rejected]).toEqual([1, 0]);
      for (const client of clients) {
        const graph = ok<{ entities: { observations: string[] }[] }>(await call(client, ws, "read_graph"));
        expect(graph.entities).toHaveLength(2);
      }
    }
  }, 180_000);
});
