import { describe, expect, test } from "@jest/globals";

import { entityId } from "../src/domain/model/ids.js";
import { failed, type McpTestClient, ok, uniqueWorkspace, withTestServers } from "./support/harness.js";
import { partitionRows, type RawRow, rawTable } from "./support/rawRows.js";

/**
 * Supersession races (docs/history.md#two-times), on two instances of one deployment (two servers, one table): two
 * clients superseding one observation at once, and two clients writing one single-valued key at once. Raw rows and the
 * history are checked every round.
 */
let one: McpTestClient;
let two: McpTestClient;
withTestServers({ servers: { a: {}, b: {} }, clients: { one: { on: "a" }, two: { on: "b" } } }, (started) => {
  ({ one, two } = started);
});

const ROUNDS = 20;
const table = rawTable();

async function observations(ws: string, name: string): Promise<Map<string, RawRow>> {
  const id = entityId(ws, name);
  const rows = await partitionRows(table, ws, { only: ["observation"] });
  return new Map(rows.filter((row) => row.entityId === id).map((row) => [String(row.content), row]));
}

/** Every change the entity's history holds, in order, as "kind content". */
async function historyLines(mcp: McpTestClient, ws: string, name: string): Promise<string[]> {
  const { events } = ok<{ events: { changes: { kind: string; content?: string; validity?: { supersededBy?: string } }[] }[] }>(
    await mcp.call("get_entity_history", { workspaceName: ws, entityName: name, limit: 1000 }),
  );
  return events.flatMap((event) =>
    event.changes
      .filter((change) => change.kind.startsWith("observation."))
      .map((change) => `${change.kind} ${change.content}${change.validity?.supersededBy ? ` -> ${change.validity.supersededBy}` : ""}`),
  );
}

describe("two clients superseding the same observation at once", () => {
  test(`${ROUNDS} rounds: exactly one wins, the other is a ConflictError; one closed old row, the winner current, no loser row`, async () => {
    const ws = uniqueWorkspace("race");
    for (let round = 0; round < ROUNDS; round++) {
      const name = `E${round}`;
      ok(await one.call("upsert_entity", { workspaceName: ws, name, entityType: "t", observations: ["state: old"] }));
      const replacements = [`state: one ${round}`, `state: two ${round}`];
      const results = await Promise.all(
        [one, two].map((mcp, i) =>
          mcp.call("supersede_observation", {
            workspaceName: ws,
            entityName: name,
            observation: "state: old",
            replacement: replacements[i],
          }),
        ),
      );
      const winners = results.flatMap((result, i) => (result.isError ? [] : [i]));
      expect(winners).toHaveLength(1);
      const winner = replacements[winners[0]!]!;
      const loser = replacements[1 - winners[0]!]!;
      const lost = failed(results[1 - winners[0]!]!);
      expect(lost.error).toBe("ConflictError");
      expect(lost.message).toContain(`already superseded by '${winner}'`);

      const rows = await observations(ws, name);
      expect([...rows.keys()].sort()).toEqual(["state: old", winner].sort());
      expect(rows.get("state: old")).toMatchObject({ supersededBy: winner, validTo: expect.any(String) });
      expect(rows.get(winner)!.supersededBy).toBeUndefined();
      expect(rows.has(loser)).toBe(false);
      // Linear history: created, then one supersession and its replacement.
      expect(await historyLines(one, ws, name)).toEqual([
        "observation.created state: old",
        `observation.updated state: old -> ${winner}`,
        `observation.created ${winner}`,
      ]);
    }
  });
});

describe("two clients writing one single-valued key at once", () => {
  test(`${ROUNDS} rounds: both land, exactly one is current, the other superseded by it; nothing lost, the chain linear`, async () => {
    const ws = uniqueWorkspace("race");
    ok(await one.call("declare_fact_keys", { workspaceName: ws, keys: [{ key: "owner", singleValued: true }] }));
    for (let round = 0; round < ROUNDS; round++) {
      const name = `S${round}`;
      // Every other round starts with no value, where only the entity's ETag can serialise the two writers.
      const start = round % 2 === 0 ? ["owner: first"] : [];
      ok(await one.call("upsert_entity", { workspaceName: ws, name, entityType: "service", observations: start }));
      const values = [`owner: one ${round}`, `owner: two ${round}`];
      const results = await Promise.all(
        [one, two].map((mcp, i) =>
          mcp.call("add_observations", { workspaceName: ws, observations: [{ entityName: name, contents: [values[i]] }] }),
        ),
      );
      results.forEach((result, i) =>
        expect(ok<{ results: { addedObservations: string[] }[] }>(result).results[0]!.addedObservations).toEqual([values[i]]),
      );

      const rows = await observations(ws, name);
      expect([...rows.keys()].sort()).toEqual([...start, ...values].sort());
      const current = [...rows.values()].filter((row) => !row.supersededBy);
      expect(current).toHaveLength(1);
      const last = String(current[0]!.content);
      const earlier = values.find((value) => value !== last)!;
      expect(rows.get(earlier)).toMatchObject({ supersededBy: last });
      if (start.length > 0) expect(rows.get("owner: first")).toMatchObject({ supersededBy: earlier });
      // The feed tells the same chain, in order.
      const lines = await historyLines(two, ws, name);
      const chain = lines.filter((line) => line.startsWith("observation.updated"));
      expect(chain).toEqual([
        ...(start.length > 0 ? [`observation.updated owner: first -> ${earlier}`] : []),
        `observation.updated ${earlier} -> ${last}`,
      ]);
      expect(lines.indexOf(`observation.created ${earlier}`)).toBeLessThan(lines.indexOf(`observation.created ${last}`));
    }
  });
});
