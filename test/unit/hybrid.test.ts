import { describe, expect, test } from "@jest/globals";

import { fuse, FUSION, type GraphEdge } from "../../src/search/hybrid.js";
import { textKey, VectorSpace } from "../../src/search/vectors.js";

/** The hybrid ranker's pure rules: reciprocal rank fusion, the graph ranker, and the vector space's bookkeeping. */

const unit = (...values: number[]) => {
  const length = Math.hypot(...values);
  return Float32Array.from(values.map((v) => v / length));
};

describe("fuse", () => {
  const noEdges = () => [];
  const all = () => true;

  test("an entity both rankers found outranks one found by either alone, with both ranks explained", () => {
    const fused = fuse(
      [
        { id: "a", score: 9 },
        { id: "b", score: 5 },
      ],
      [
        { id: "c", similarity: 0.9 },
        { id: "b", similarity: 0.8, observation: "owns the checkout service" },
      ],
      noEdges,
      all,
    );
    const { words, meaning } = FUSION.weights;
    expect(fused.map((hit) => hit.id)).toEqual(["b", ...(words >= meaning ? ["a", "c"] : ["c", "a"])]);
    const b = fused[0]!;
    expect(b.score).toBeCloseTo(words / (FUSION.k + 2) + meaning / (FUSION.k + 2), 10);
    expect(b.explain).toEqual({
      words: { rank: 2, score: 5 },
      meaning: { rank: 2, similarity: 0.8, observation: "owns the checkout service" },
    });
    // a (words rank 1) and c (meaning rank 1) score their rankers' weights.
    expect(fused.find((hit) => hit.id === "a")!.score).toBeCloseTo(words / (FUSION.k + 1), 10);
    expect(fused.find((hit) => hit.id === "c")!.score).toBeCloseTo(meaning / (FUSION.k + 1), 10);
  });

  test("the graph ranker brings in neighbours of the strongest hits, weighted by the seeds' ranks, and says through which relation", () => {
    const edges: Record<string, GraphEdge[]> = {
      a: [
        { neighbour: "n1", from: "A", relationType: "owns", to: "N1" },
        { neighbour: "n2", from: "N2", relationType: "depends_on", to: "A" },
      ],
      b: [{ neighbour: "n2", from: "B", relationType: "uses", to: "N2" }],
    };
    const fused = fuse(
      [
        { id: "a", score: 3 },
        { id: "b", score: 2 },
      ],
      [],
      (id) => edges[id] ?? [],
      (id) => id !== "n1-filtered",
    );
    const byId = new Map(fused.map((hit) => [hit.id, hit]));
    // n2 touches both seeds (1 + 1/2) and outranks n1 (1).
    expect(byId.get("n2")!.explain.graph).toEqual({ rank: 1, via: { from: "N2", relationType: "depends_on", to: "A" } });
    expect(byId.get("n1")!.explain.graph!.rank).toBe(2);
    expect(byId.get("a")!.explain.graph).toBeUndefined();
    expect(byId.get("n2")!.score).toBeCloseTo(FUSION.weights.graph / (FUSION.k + 1), 10);
  });

  test("a words hit counts by the share of the query's terms it matched", () => {
    const fused = fuse(
      [
        { id: "all", score: 1, coverage: 1 },
        { id: "half", score: 1, coverage: 0.5 },
      ],
      [],
      noEdges,
      all,
    );
    expect(fused.find((hit) => hit.id === "all")!.score).toBeCloseTo(FUSION.weights.words / (FUSION.k + 1), 10);
    expect(fused.find((hit) => hit.id === "half")!.score).toBeCloseTo(
      (FUSION.weights.words * 0.5 ** FUSION.coveragePower) / (FUSION.k + 2),
      10,
    );
  });

  test("the filters apply to what the graph brings in", () => {
    const fused = fuse(
      [{ id: "a", score: 1 }],
      [],
      () => [{ neighbour: "x", from: "A", relationType: "r", to: "X" }],
      (id) => id !== "x",
    );
    expect(fused.map((hit) => hit.id)).toEqual(["a"]);
  });

  test("only the first meaningDepth of the meaning ranking take part", () => {
    const many = Array.from({ length: FUSION.meaningDepth + 5 }, (_, i) => ({
      id: `m${String(i).padStart(3, "0")}`,
      similarity: 1 - i / 1000,
    }));
    expect(fuse([], many, noEdges, all)).toHaveLength(FUSION.meaningDepth);
  });
});

describe("VectorSpace", () => {
  test("texts are pending until filled; shared texts share one vector; untracking drops what no text needs", () => {
    const space = new VectorSpace("test@1");
    space.track("e1", ["Alpha (team)", "owns billing"]);
    space.track("e2", ["Beta (team)", "owns billing"]);
    expect(space.pendingCount).toBe(3);
    space.fill(new Map([[textKey("owns billing"), unit(1, 0)]]));
    expect(space.pendingCount).toBe(2);
    expect(space.vectorCount).toBe(1);
    space.untrack("e1");
    expect(space.vectorCount).toBe(1); // e2 still holds "owns billing"
    space.untrack("e2");
    expect(space.vectorCount).toBe(0);
    expect(space.pendingCount).toBe(0);
    expect(space.bytes()).toBe(0);
  });

  test("nearest ranks by each entity's best text, above the floor, and says which text", () => {
    const space = new VectorSpace("test@1");
    space.track("near", ["Near (x)", "far away", "close by"]);
    space.track("far", ["Far (x)", "opposite"]);
    space.fill(
      new Map([
        [textKey("Near (x)"), unit(0, 1)],
        [textKey("far away"), unit(-1, 0)],
        [textKey("close by"), unit(1, 0.1)],
        [textKey("Far (x)"), unit(-1, -1)],
        [textKey("opposite"), unit(-1, 0)],
      ]),
    );
    const found = space.nearest(unit(1, 0), () => true, 0);
    expect(found.map((hit) => [hit.id, hit.text])).toEqual([["near", 2]]);
    expect(space.textOf("near", 2)).toBe("close by");
    expect(space.nearest(unit(1, 0), () => false, -1)).toEqual([]);
    expect(space.nearest(unit(1, 0), () => true, -1).map((hit) => hit.id)).toEqual(["near", "far"]);
  });

  test("a rebuilt space adopts the vectors of the same model only", () => {
    const old = new VectorSpace("test@1");
    old.track("e", ["E (x)"]);
    old.fill(new Map([[textKey("E (x)"), unit(1)]]));
    const same = new VectorSpace("test@1");
    same.track("e", ["E (x)"]);
    same.adopt(old);
    expect(same.pendingCount).toBe(0);
    const other = new VectorSpace("test@2");
    other.track("e", ["E (x)"]);
    other.adopt(old);
    expect(other.pendingCount).toBe(1);
  });
});
