import { describe, expect, test } from "@jest/globals";

import { relationRowKeys, rowKey, tagLinkKeys } from "../src/storage/rows/keys.js";
import { diffGraphs, diffKeyed, graphOfView, statsOf, statsOfView } from "./support/checker/compare.js";
import { type Call, lostWrites } from "./support/checker/history.js";
import { graphOfRows, orphans } from "./support/checker/model.js";
import { groupByInstance } from "./support/checker/run.js";
import type { RawRow } from "./support/rawRows.js";

/**
 * The checker checked (docs/reliability.md#the-consistency-checker): fed fabricated storage, views and histories with a
 * known fault, each of its rules reports it, and stays quiet when there is none. So the checker can fail whatever the
 * server does. No storage, no server.
 */

const A = "00000000-0000-0000-0000-00000000000a";
const B = "00000000-0000-0000-0000-00000000000b";
const R = "00000000-0000-0000-0000-0000000000r1";
const O = "00000000-0000-0000-0000-0000000000o1";
const T = "00000000-0000-0000-0000-0000000000t1";

/** A consistent partition: A (one observation, tagged) -knows-> B. */
function rows(): RawRow[] {
  const relation = {
    kind: "relation",
    relationId: R,
    fromId: A,
    toId: B,
    fromName: "A",
    toName: "B",
    relationType: "knows",
    metadata: '{"w":1}',
  };
  const [canonical, out, inbound] = relationRowKeys({ id: R, fromEntityId: A, toEntityId: B });
  const tag = tagLinkKeys({ entityId: A, observationId: O }, T);
  const link = { tagId: T, tagName: "t1", entityId: A, observationId: O };
  return [
    { rowKey: rowKey.entity(A), kind: "entity", name: "A", entityType: "person", metadata: '{"b":1,"a":2}' },
    { rowKey: rowKey.observation(A, O), kind: "observation", entityId: A, content: "A-o1" },
    { rowKey: tag.link, kind: "observation-tag", ...link },
    { rowKey: rowKey.entity(B), kind: "entity", name: "B", entityType: "person", metadata: "{}" },
    { ...relation, rowKey: canonical },
    { ...relation, rowKey: out, kind: "edge-out" },
    { ...relation, rowKey: inbound, kind: "edge-in" },
    { rowKey: rowKey.tag(T), kind: "tag", name: "t1", category: "c", description: "" },
    { rowKey: tag.index, kind: "tag-index", ...link },
  ];
}

/** read_graph's answer for the same graph (other order, metadata keys in another order). */
const view = (): { entities: Record<string, unknown>[]; relations: Record<string, unknown>[] } => ({
  entities: [
    { name: "B", entityType: "person", observations: [], metadata: {} },
    { name: "A", entityType: "person", observations: ["A-o1"], metadata: { a: 2, b: 1 }, observationTags: { "A-o1": ["t1"] } },
  ],
  relations: [{ from: "A", to: "B", relationType: "knows", metadata: { w: 1 } }],
});

describe("the checker's comparison", () => {
  test("a view equal to storage up to order passes", () => {
    expect(diffGraphs("I0 read_graph", graphOfRows(rows()), graphOfView(view()))).toEqual([]);
    expect(orphans(rows())).toEqual([]);
  });

  test("a missing observation, an extra relation, a wrong metadata and a lost tag are each reported", () => {
    const observed = view();
    observed.entities[1]!.observations = [];
    delete observed.entities[1]!.observationTags;
    observed.relations.push({ from: "B", to: "A", relationType: "knows", metadata: { w: 1 } });
    observed.relations[0]!.metadata = { w: 2 };
    const problems = diffGraphs("I1 read_graph", graphOfRows(rows()), graphOfView(observed));
    expect(problems).toEqual([
      'I1 read_graph: entity A differs: observations view lacks [A-o1]; observationTags storage {"A-o1":["t1"]}, view {}',
      expect.stringMatching(/^I1 read_graph: relation A -knows-> B differs: storage metadata \{"w":1\}, view metadata \{"w":2\}/),
      expect.stringMatching(/^I1 read_graph: relation B -knows-> A is not in storage/),
    ]);
  });

  test("stats that miscount are reported", () => {
    const answer = {
      entities: 2,
      relations: 2,
      observations: 1,
      tags: 1,
      entityTypes: [{ entityType: "person", count: 2 }],
      relationTypes: [],
    };
    expect(diffKeyed("get_stats", "count", statsOf(graphOfRows(rows())), statsOfView(answer))).toEqual([
      "get_stats: count relations differs: storage 1, view 2",
      'get_stats: count relationTypes differs: storage {"knows":1}, view {}',
    ]);
  });

  test("the same problem on several instances is reported once, naming them", () => {
    expect(groupByInstance(["I0 get_stats: x", "I2 get_stats: x", "fresh get_stats: y", "orphan: z"])).toEqual([
      "[I0 I2] get_stats: x",
      "[fresh] get_stats: y",
      "orphan: z",
    ]);
  });
});

describe("the checker's orphan rule", () => {
  test.each([
    [
      "an observation without its entity",
      (r: RawRow[]) => r.filter((row) => row.kind !== "entity" || row.name !== "A"),
      /its entity row is missing/,
    ],
    ["a relation without its incoming edge", (r: RawRow[]) => r.filter((row) => row.kind !== "edge-in"), /incoming edge .* is missing/],
    ["an edge without its relation", (r: RawRow[]) => r.filter((row) => row.kind !== "relation"), /its relation row is missing/],
    ["a tag link without its index row", (r: RawRow[]) => r.filter((row) => row.kind !== "tag-index"), /index row .* is missing/],
    ["a tag link without its definition", (r: RawRow[]) => r.filter((row) => row.kind !== "tag"), /definition of tag t1 is missing/],
  ])("%s is reported", (_what, damage, message) => {
    expect(orphans(damage(rows())).join("\n")).toMatch(message);
  });
});

describe("the checker's lost-write rule", () => {
  const call = (id: number, tool: string, args: Record<string, unknown>, start: number, end: number, ok = true): Call => ({
    id,
    instance: "I0",
    tool,
    args,
    ok,
    answer: {},
    start,
    end,
  });
  const stored = () => graphOfRows(rows());

  test("an acknowledged observation missing from storage is lost", () => {
    const history = [call(1, "add_observations", { observations: [{ entityName: "A", contents: ["A-o1", "A-o2"] }] }, 0, 10)];
    expect(lostWrites(history, stored())).toEqual([
      expect.stringMatching(/^lost 1 of 2 observation claims acknowledged by #1 add_observations on I0: A A-o2$/),
    ]);
  });

  test("crossed merges that both fail still cannot excuse a lost observation", () => {
    const history = [
      call(1, "upsert_entity", { name: "B", entityType: "person", observations: ["B-o1"] }, 0, 10),
      call(2, "merge_entities", { target: "B", sources: ["A"] }, 20, 40, false),
      call(3, "merge_entities", { target: "A", sources: ["B"] }, 21, 41, false),
    ];
    expect(lostWrites(history, stored()).join("\n")).toMatch(/lost 1 of 1 observation claims .* B B-o1/);
  });

  test("a merge moves the claim to its target; a concurrent or later delete excuses it; an earlier one does not", () => {
    const add = call(1, "upsert_entity", { name: "C", entityType: "person", observations: ["A-o1"] }, 0, 10);
    expect(lostWrites([add, call(2, "merge_entities", { target: "A", sources: ["C"] }, 20, 30)], stored())).toEqual([]);
    const gone = { entityNames: ["C"] };
    expect(lostWrites([add, call(2, "delete_entities", gone, 5, 8, false)], graphOfView({}))).toEqual([]);
    expect(lostWrites([call(0, "delete_entities", gone, -10, -5), add], graphOfView({})).length).toBeGreaterThan(0);
  });

  test("an acknowledged rejection whose row is missing is lost, unless an undo or delete_workspace may have run after it", () => {
    const reject = call(1, "reject_duplicate_pair", { a: "B", b: "A" }, 0, 10);
    expect(lostWrites([reject], stored())).toEqual([
      expect.stringMatching(/^lost 1 of 1 rejection claims acknowledged by #1 reject_duplicate_pair on I0: A ≈ B$/),
    ]);
    const held = graphOfRows([
      ...rows(),
      { rowKey: rowKey.rejection(A, B), kind: "duplicate-rejection", aId: A, aName: "A", bId: B, bName: "B" },
    ]);
    expect(lostWrites([reject], held)).toEqual([]);
    expect(lostWrites([reject, call(2, "reject_duplicate_pair", { a: "A", b: "B", undo: true }, 5, 20, false)], stored())).toEqual([]);
    expect(lostWrites([call(0, "reject_duplicate_pair", { a: "A", b: "B", undo: true }, -10, -5), reject], stored())).toHaveLength(1);
  });

  test("a rejection row whose key is not its pair's is reported", () => {
    const wrong = { rowKey: rowKey.rejection(A, A), kind: "duplicate-rejection", aId: A, aName: "A", bId: B, bName: "B" };
    expect(orphans([...rows(), wrong])).toEqual([expect.stringMatching(/its key is not its pair's/)]);
  });
});
