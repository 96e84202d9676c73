import type { TableClient } from "@azure/data-tables";
import { describe, expect, test } from "@jest/globals";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { entityId } from "../src/domain/model/ids.js";
import { ownerOf, relationRowKeys } from "../src/storage/rows/keys.js";
import type { McpTestClient } from "./support/harness.js";
import { failed, ok, uniqueWorkspace, withTestServers } from "./support/harness.js";
import { partitionRows, type RawRow, rawTable } from "./support/rawRows.js";

/**
 * merge_entities racing other writes (docs/curate.md#merge_entities, docs/architecture.md "Concurrency rules"), through
 * two server instances on one Azurite, checked on the raw rows. What must hold whatever the answers: every acknowledged
 * observation, relation and tag is on an entity that exists, no row outlives its entity, and a merge answers success or
 * a ConflictError that says what to do.
 */
let clients: McpTestClient[] = [];
let table: TableClient;

withTestServers({ servers: { first: {}, second: {} }, clients: { one: { on: "first" }, two: { on: "second" } } }, ({ one, two }) => {
  clients = [one, two];
  table = rawTable();
});

const ROUNDS = 20;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const contents = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix} fact ${i}`);
const call = (client: McpTestClient, ws: string, name: string, args: Record<string, unknown>) =>
  client.call(name, { workspaceName: ws, ...args });
const rawRows = (ws: string) => partitionRows(table, ws, ["event", "workspace", "history-pruned"]);

/** What the rows hold, and what is wrong with them: rows whose entity (or tag link, or observation) is gone. */
function inspect(rows: RawRow[]) {
  const keys = new Set(rows.map((row) => row.rowKey));
  const entities = new Map(rows.filter((row) => row.kind === "entity").map((row) => [row.rowKey, String(row.name)]));
  const orphans: string[] = [];
  for (const row of rows) {
    switch (row.kind) {
      case "observation":
      case "entity-tag":
      case "edge-in":
      case "edge-out":
        if (!entities.has(ownerOf(row.rowKey))) orphans.push(`${row.kind} ${row.rowKey}`);
        break;
      case "observation-tag": {
        const observationKey = row.rowKey.slice(0, row.rowKey.lastIndexOf("~t~"));
        if (!keys.has(observationKey) || !entities.has(ownerOf(row.rowKey))) orphans.push(`${row.kind} ${row.rowKey}`);
        break;
      }
      case "relation": {
        const ref = { id: String(row.relationId), fromEntityId: String(row.fromId), toEntityId: String(row.toId) };
        if (!relationRowKeys(ref).every((key) => keys.has(key))) orphans.push(`relation without its edges ${row.rowKey}`);
        break;
      }
      default:
    }
  }
  const observations = rows.filter((row) => row.kind === "observation" && entities.has(ownerOf(row.rowKey)));
  const perEntity = new Map<string, string[]>();
  for (const row of observations) perEntity.set(ownerOf(row.rowKey), [...(perEntity.get(ownerOf(row.rowKey)) ?? []), String(row.content)]);
  const duplicates = [...perEntity.values()].flatMap((list) => list.filter((content, i) => list.indexOf(content) !== i));
  const relations = rows
    .filter((row) => row.kind === "relation")
    .map((row) => ({ from: String(row.fromId), type: String(row.relationType), to: String(row.toId) }));
  const entityTags = rows
    .filter((row) => row.kind === "entity-tag" && entities.has(ownerOf(row.rowKey)))
    .map((row) => ({ entity: ownerOf(row.rowKey), tag: String(row.tagName) }));
  // "content tag" for each tag on an observation of an entity that exists.
  const contentOf = new Map(observations.map((row) => [row.rowKey, String(row.content)]));
  const observationTags = new Set(
    rows
      .filter((row) => row.kind === "observation-tag" && entities.has(ownerOf(row.rowKey)))
      .map((row) => `${contentOf.get(row.rowKey.slice(0, row.rowKey.lastIndexOf("~t~")))} ${String(row.tagName)}`),
  );
  const held = new Set(observations.map((row) => String(row.content)));
  return { entities, orphans, duplicates, held, relations, entityTags, observationTags };
}

/** A merge's answer: success, or a ConflictError (NotFoundError when its target went first) whose message says what to do. */
/** One problem line per non-empty list: how many, and the first three. */
function reportLosses(problems: string[], round: number, lists: readonly (readonly [string, readonly string[]])[]): void {
  for (const [what, list] of lists) {
    if (list.length > 0) problems.push(`round ${round}: ${list.length} ${what}, e.g. ${list.slice(0, 3).join("; ")}`);
  }
}

/** T with 10 facts and S with 100 (returned), plus `more` entities, written through `client`. */
async function seedTargetAndSource(
  client: McpTestClient,
  ws: string,
  more: { name: string; entityType: string; observations: string[] }[] = [],
) {
  const sFacts = contents("s", 100);
  ok(
    await call(client, ws, "create_entities", {
      entities: [
        { name: "T", entityType: "t", observations: contents("t", 10) },
        { name: "S", entityType: "t", observations: sFacts },
        ...more,
      ],
    }),
  );
  return sFacts;
}

function outcome(result: CallToolResult): "ok" | "conflict" | "gone" {
  if (!result.isError) return "ok";
  const error = failed(result);
  if (error.error === "ConflictError") {
    expect(error.message).toMatch(/[Rr]etry|merge again/);
    return "conflict";
  }
  expect([error.error, error.message]).toEqual(["NotFoundError", expect.stringMatching(/not found/)]);
  return "gone";
}

describe("crossed merges: A into B on one instance while B into A on another", () => {
  const PER_ENTITY = 120;
  const NEIGHBOURS = 4;

  test(`${ROUNDS} rounds: every observation, relation and tag survives on an entity that exists`, async () => {
    const figures: string[] = [];
    let lostTotal = 0;
    const problems: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const ws = uniqueWorkspace("xmerge");
      const [one, two] = clients as [McpTestClient, McpTestClient];
      const shared = contents("shared", 5); // on both: a duplicate for either merge
      const aFacts = [...contents("a", PER_ENTITY), ...shared];
      const bFacts = [...contents("b", PER_ENTITY), ...shared];
      const neighbours = Array.from({ length: NEIGHBOURS }, (_, i) => `N${i}`);
      ok(
        await call(one, ws, "create_entities", {
          entities: [
            { name: "A", entityType: "t", observations: aFacts },
            { name: "B", entityType: "t", observations: bFacts },
            ...neighbours.map((name) => ({ name, entityType: "n", observations: [] })),
          ],
        }),
      );
      // Both relate to every neighbour the same way (duplicates for either merge), and each has one of its own.
      ok(
        await call(one, ws, "create_relations", {
          relations: [
            ...neighbours.flatMap((to) => ["A", "B"].map((from) => ({ from, to, relationType: "knows" }))),
            { from: "A", to: "N0", relationType: "a_only" },
            { from: "N1", to: "B", relationType: "b_only" },
          ],
        }),
      );
      ok(await call(one, ws, "tag_entity", { entityName: "A", tagNames: ["shared-tag", "a-tag"] }));
      ok(await call(one, ws, "tag_entity", { entityName: "B", tagNames: ["shared-tag", "b-tag"] }));
      ok(await call(one, ws, "tag_observation", { entityName: "A", observationContent: "a fact 3", tagNames: ["a-obs-tag"] }));

      const [intoB, intoA] = await Promise.all([
        call(one, ws, "merge_entities", { target: "B", sources: ["A"], confirm: true }),
        pause(round % 5).then(() => call(two, ws, "merge_entities", { target: "A", sources: ["B"], confirm: true })),
      ]);
      const answers = [outcome(intoB), outcome(intoA)];

      const state = inspect(await rawRows(ws));
      const lost = [...aFacts, ...bFacts].filter((content) => !state.held.has(content));
      lostTotal += lost.length;
      const ids = { A: entityId(ws, "A"), B: entityId(ws, "B") };
      const merged = [ids.A, ids.B].filter((id) => state.entities.has(id));
      const related = (type: string, neighbour: string) =>
        state.relations.some(
          (r) =>
            r.type === type &&
            ((merged.includes(r.from) && r.to === entityId(ws, neighbour)) ||
              (merged.includes(r.to) && r.from === entityId(ws, neighbour))),
        );
      const lostRelations = [
        ...neighbours.filter((n) => !related("knows", n)).map((n) => `knows ${n}`),
        ...(related("a_only", "N0") ? [] : ["a_only N0"]),
        ...(related("b_only", "N1") ? [] : ["b_only N1"]),
      ];
      const lostTags = [
        ...["shared-tag", "a-tag", "b-tag"].filter(
          (tag) => !state.entityTags.some((link) => link.tag === tag && merged.includes(link.entity)),
        ),
        ...(state.observationTags.has("a fact 3 a-obs-tag") ? [] : ["a-obs-tag"]),
      ];
      figures.push(`${answers.join("/")} lost ${lost.length} obs, ${lostRelations.length} rel, ${lostTags.length} tags`);
      if (merged.length === 0) problems.push(`round ${round}: both A and B are gone`);
      if (answers.filter((answer) => answer === "ok").length > 1) problems.push(`round ${round}: both merges succeeded`);
      if (answers[0] === "ok" && state.entities.has(ids.A)) problems.push(`round ${round}: A into B succeeded but A is there`);
      if (answers[1] === "ok" && state.entities.has(ids.B)) problems.push(`round ${round}: B into A succeeded but B is there`);
      reportLosses(problems, round, [
        ["lost observations", lost],
        ["lost relations", lostRelations],
        ["lost tags", lostTags],
        ["orphan rows", state.orphans],
        ["duplicate contents", state.duplicates],
      ]);
    }
    console.log(`crossed merges, ${ROUNDS} rounds: ${lostTotal} observations lost\n${figures.join("\n")}`);
    expect(problems).toEqual([]);
  }, 240_000);
});

/** The changes of the workspace's raw event rows (docs/history.md: JSON split over c0, c1, ...). */
async function rawChanges(ws: string): Promise<{ kind: string; entityId?: string; content?: string }[]> {
  const events = (await partitionRows(table, ws)).filter((row) => row.kind === "event");
  return events.flatMap((row) => {
    const json = Array.from({ length: Number(row.chunks) }, (_, i) => String(row[`c${i}`])).join("");
    return JSON.parse(json) as { kind: string; entityId?: string; content?: string }[];
  });
}

describe("merge_entities racing add_observations on its source (two instances)", () => {
  test(`${ROUNDS} rounds: every acknowledged observation ends on an entity that exists`, async () => {
    const problems: string[] = [];
    const answers: string[] = [];
    let refused = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const ws = uniqueWorkspace("xadd");
      const [one, two] = clients as [McpTestClient, McpTestClient];
      const sFacts = await seedTargetAndSource(one, ws);
      const acknowledged = [...sFacts, ...contents("t", 10)];
      const adding = async () => {
        await pause((round % 10) * 4);
        for (let i = 0; i < 4; i++) {
          const fresh = [`late ${i} a`, `late ${i} b`, "s fact 1"];
          const result = await call(two, ws, "add_observations", { observations: [{ entityName: "S", contents: fresh }] });
          if (result.isError) {
            // Only an absent S (merged away) may refuse it.
            expect(failed(result).error).toBe("NotFoundError");
            refused += 1;
            continue;
          }
          acknowledged.push(...fresh);
        }
      };
      const [merged] = await Promise.all([call(one, ws, "merge_entities", { target: "T", sources: ["S"], confirm: true }), adding()]);
      const answer = outcome(merged);
      answers.push(answer);
      const state = inspect(await rawRows(ws));
      const lost = acknowledged.filter((content) => !state.held.has(content));
      if (answer === "ok" && state.entities.has(entityId(ws, "S"))) problems.push(`round ${round}: merged, but S is there`);
      reportLosses(problems, round, [
        ["lost observations", lost],
        ["orphan rows", state.orphans],
      ]);
    }
    console.log(
      `merge racing add_observations, ${ROUNDS} rounds: ${answers.join(" ")}; adds refused (S gone): ${refused} of ${4 * ROUNDS}`,
    );
    expect(problems).toEqual([]);
  }, 240_000);
});

describe("merge_entities racing delete_entities of its target (two instances)", () => {
  test(`${ROUNDS} rounds: no row outlives its entity, and a source observation is on the source or went with the target`, async () => {
    const problems: string[] = [];
    const answers: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const ws = uniqueWorkspace("xdel");
      const [one, two] = clients as [McpTestClient, McpTestClient];
      const sFacts = await seedTargetAndSource(one, ws, [{ name: "N", entityType: "n", observations: [] }]);
      ok(await call(one, ws, "create_relations", { relations: [{ from: "S", to: "N", relationType: "knows" }] }));
      ok(await call(one, ws, "tag_entity", { entityName: "S", tagNames: ["s-tag"] }));
      // Over the rounds the delete starts from a little before the merge to well into it.
      const offset = (round % 10) * 4 - 8;
      const [merged, deleted] = await Promise.all([
        pause(Math.max(0, -offset)).then(() => call(one, ws, "merge_entities", { target: "T", sources: ["S"], confirm: true })),
        pause(Math.max(0, offset)).then(() => call(two, ws, "delete_entities", { entityNames: ["T"] })),
      ]);
      const answer = outcome(merged);
      answers.push(`${answer}/${deleted.isError ? failed(deleted).error : "ok"}`);
      const state = inspect(await rawRows(ws));
      const ids = { S: entityId(ws, "S"), T: entityId(ws, "T") };
      // What the merge moved onto T before T was deleted went with T (the delete was acknowledged for T and all it held).
      const movedOntoT = new Set(
        (await rawChanges(ws)).filter((c) => c.kind === "observation.created" && c.entityId === ids.T).map((c) => String(c.content)),
      );
      const unaccounted = sFacts.filter((content) => !state.held.has(content) && !movedOntoT.has(content));
      if (!deleted.isError && state.entities.has(ids.T)) problems.push(`round ${round}: T deleted, but there`);
      if (answer === "ok" && state.entities.has(ids.S)) problems.push(`round ${round}: merged, but S is there`);
      if (answer !== "ok" && !state.entities.has(ids.S)) problems.push(`round ${round}: the merge failed, but S is gone`);
      reportLosses(problems, round, [
        ["unaccounted source observations", unaccounted],
        ["orphan rows", state.orphans],
      ]);
    }
    console.log(`merge racing delete_entities of its target, ${ROUNDS} rounds (merge/delete): ${answers.join(" ")}`);
    expect(problems).toEqual([]);
  }, 240_000);
});

describe("merges sharing entities (two instances)", () => {
  test(`${ROUNDS} rounds: one source into two targets, and two merges into one target sharing a source: nothing lost`, async () => {
    const problems: string[] = [];
    const answers: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const ws = uniqueWorkspace("xshare");
      const [one, two] = clients as [McpTestClient, McpTestClient];
      const names = ["T1", "T2", "S1", "S2", "S3"];
      const facts = new Map(names.map((name) => [name, [...contents(name, 40), "common fact"]]));
      ok(
        await call(one, ws, "create_entities", {
          entities: names.map((name) => ({ name, entityType: "t", observations: facts.get(name) })),
        }),
      );
      // Even rounds: S1 into T1 racing S1 into T2. Odd rounds: S1, S2 into T1 racing S2, S3 into T1.
      const [first, second] =
        round % 2 === 0
          ? [
              { target: "T1", sources: ["S1"] },
              { target: "T2", sources: ["S1"] },
            ]
          : [
              { target: "T1", sources: ["S1", "S2"] },
              { target: "T1", sources: ["S2", "S3"] },
            ];
      const results = await Promise.all([
        call(one, ws, "merge_entities", { ...first, confirm: true }),
        pause(round % 5).then(() => call(two, ws, "merge_entities", { ...second, confirm: true })),
      ]);
      answers.push(results.map(outcome).join("/"));
      const state = inspect(await rawRows(ws));
      const lost = [...new Set([...facts.values()].flat())].filter((content) => !state.held.has(content));
      reportLosses(problems, round, [
        ["lost observations", lost],
        ["orphan rows", state.orphans],
        ["duplicate contents", state.duplicates],
      ]);
    }
    console.log(`merges sharing entities, ${ROUNDS} rounds: ${answers.join(" ")}`);
    expect(problems).toEqual([]);
  }, 240_000);
});

describe("merge_entities racing tag_observation on its source's observations (two instances)", () => {
  test(`${ROUNDS} rounds: every acknowledged observation tag ends on that observation, on an entity that exists`, async () => {
    const problems: string[] = [];
    let acknowledgedTotal = 0;
    let lostTotal = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const ws = uniqueWorkspace("xtag");
      const [one, two] = clients as [McpTestClient, McpTestClient];
      const sFacts = await seedTargetAndSource(one, ws);
      const acknowledged: { content: string; tag: string }[] = [];
      // Observations the merge moves last (it moves them in the order they were added), tagged in parallel.
      const tagging = async () => {
        await pause((round % 10) * 3);
        await Promise.all(
          Array.from({ length: 6 }, async (_, i) => {
            const content = sFacts[sFacts.length - 1 - ((i * 3 + round) % 20)]!;
            const tag = `tag-${i}`;
            const result = await call(two, ws, "tag_observation", { entityName: "S", observationContent: content, tagNames: [tag] });
            if (!result.isError) acknowledged.push({ content, tag });
          }),
        );
      };
      const [merged] = await Promise.all([call(one, ws, "merge_entities", { target: "T", sources: ["S"], confirm: true }), tagging()]);
      outcome(merged);
      acknowledgedTotal += acknowledged.length;
      const state = inspect(await rawRows(ws));
      const lost = acknowledged.map(({ content, tag }) => `${content} ${tag}`).filter((pair) => !state.observationTags.has(pair));
      lostTotal += lost.length;
      reportLosses(problems, round, [
        ["lost observation tags", lost],
        ["orphan rows", state.orphans],
      ]);
    }
    console.log(`merge racing tag_observation, ${ROUNDS} rounds: ${acknowledgedTotal} tags acknowledged, ${lostTotal} lost`);
    expect(problems).toEqual([]);
  }, 240_000);
});
