import { describe, expect, test } from "@jest/globals";
import fc from "fast-check";

import { fitBudget } from "../../src/domain/model/budget.js";
import type { Direction, EntityNode, Relation } from "../../src/domain/model/model.js";
import { neighbors, shortestPath, type TraversalPort } from "../../src/domain/rules/navigation.js";

/**
 * The traversal rules and the budget search, without storage: the port is an in-memory graph (the
 * domain's own interface, as the search index will implement it), the budget a pure function.
 */
function graphPort(edges: [string, string, string?][]): { port: TraversalPort; reads: string[][] } {
  const relations: Relation[] = edges.map(([from, to, type], i) => ({
    id: `r${i}`,
    fromEntityId: from,
    fromName: from,
    toEntityId: to,
    toName: to,
    relationType: type ?? "r",
    metadata: {},
    createdAt: "",
    updatedAt: "",
    order: String(i).padStart(4, "0"),
  }));
  const ids = new Set(edges.flatMap(([from, to]) => [from, to]));
  const node = (id: string, direction: Direction): EntityNode | undefined =>
    ids.has(id)
      ? {
          entity: {
            id,
            name: id,
            entityType: "t",
            observations: [],
            tags: [],
            observationTags: new Map(),
            metadata: {},
            createdAt: "",
            updatedAt: "",
            order: id,
          },
          relations: relations.filter((r) => (direction !== "in" && r.fromEntityId === id) || (direction !== "out" && r.toEntityId === id)),
        }
      : undefined;
  const reads: string[][] = [];
  return {
    reads,
    port: {
      nodes: async (_ws, list) => (reads.push([...list]), list.map((id) => node(id, "both"))),
      edges: async (_ws, list, direction) => (reads.push([...list]), list.map((id) => node(id, direction))),
    },
  };
}
const key = (id: string) => ({ id, label: id });
const hopsOf = (result: Awaited<ReturnType<typeof shortestPath>>) => (result.found ? result.hops : undefined);

describe("shortestPath", () => {
  // a → b → c → d, and a shortcut a → x → d; plus e → a against the direction.
  const { port } = graphPort([
    ["a", "b"],
    ["b", "c"],
    ["c", "d"],
    ["a", "x"],
    ["x", "d"],
    ["e", "a"],
  ]);

  test("finds the shortest of several paths, and respects maxDepth exactly", async () => {
    const options = { direction: "out" as const };
    expect(hopsOf(await shortestPath(port, "w", key("a"), key("d"), { ...options, maxDepth: 6 }))).toBe(2);
    expect(hopsOf(await shortestPath(port, "w", key("a"), key("d"), { ...options, maxDepth: 2 }))).toBe(2);
    expect(await shortestPath(port, "w", key("a"), key("d"), { ...options, maxDepth: 1 })).toMatchObject({
      found: false,
      reason: "no-path-within-depth",
    });
    expect(hopsOf(await shortestPath(port, "w", key("a"), key("b"), { ...options, maxDepth: 1 }))).toBe(1);
  });

  test("direction: out forward only, in backward only, both either way", async () => {
    expect(hopsOf(await shortestPath(port, "w", key("d"), key("a"), { direction: "out", maxDepth: 6 }))).toBeUndefined();
    expect(hopsOf(await shortestPath(port, "w", key("d"), key("a"), { direction: "in", maxDepth: 6 }))).toBe(2);
    expect(hopsOf(await shortestPath(port, "w", key("d"), key("e"), { direction: "both", maxDepth: 6 }))).toBe(3);
  });

  test("the path alternates entities and relations from `from` to `to`", async () => {
    const result = await shortestPath(port, "w", key("a"), key("d"), { direction: "out", maxDepth: 6 });
    if (!result.found) throw new Error("expected a path");
    expect(result.path.map((step) => (step.kind === "entity" ? step.id : step.relation.id))).toEqual(["a", "r3", "x", "r4", "d"]);
  });

  test("the visit bound stops the search before it reads more entities", async () => {
    // Two stars that never meet: each side's second level is far wider than the bound allows.
    const star = graphPort([
      ...Array.from({ length: 50 }, (_, i): [string, string] => ["hub", `leaf${i}`]),
      ...Array.from({ length: 50 }, (_, i): [string, string] => ["farhub", `farleaf${i}`]),
      ["far", "farhub"],
    ]);
    const result = await shortestPath(star.port, "w", key("leaf0"), key("far"), { direction: "both", maxDepth: 6, maxVisited: 10 });
    expect(result).toMatchObject({ found: false, reason: "visit-limit" });
    expect(star.reads.flat().length).toBeLessThanOrEqual(10);
  });

  test("agrees with a plain BFS on random graphs, every direction", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 14 }), fc.integer({ min: 0, max: 14 })), { minLength: 1, maxLength: 40 }),
        fc.constantFrom<Direction>("out", "in", "both"),
        fc.integer({ min: 1, max: 6 }),
        async (pairs, direction, maxDepth) => {
          const edges = pairs.filter(([a, b]) => a !== b).map(([a, b]): [string, string] => [`n${a}`, `n${b}`]);
          if (edges.length < 2) return;
          const { port } = graphPort(edges);
          const [from, to] = [edges[0]![0], edges.at(-1)![1]];
          if (from === to) return;
          const distance = new Map([[from, 0]]);
          for (let frontier = [from], d = 1; d <= maxDepth; d++) {
            const next: string[] = [];
            for (const at of frontier)
              for (const [a, b] of edges)
                for (const [x, y] of direction === "out"
                  ? [[a, b]]
                  : direction === "in"
                    ? [[b, a]]
                    : [
                        [a, b],
                        [b, a],
                      ])
                  if (x === at && !distance.has(y!)) {
                    distance.set(y!, d);
                    next.push(y!);
                  }
            frontier = next;
          }
          expect(hopsOf(await shortestPath(port, "w", key(from), key(to), { direction, maxDepth }))).toBe(distance.get(to));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("neighbors", () => {
  test("depth d is d + 1 rounds at most, and each entity is read once", async () => {
    const { port, reads } = graphPort([
      ["a", "b"],
      ["b", "c"],
      ["c", "a"],
      ["c", "d"],
    ]);
    const hood = await neighbors(port, "w", key("a"), { depth: 3, direction: "out", limit: 100 });
    expect(hood.entities.map((e) => [e.entity.id, e.distance])).toEqual([
      ["a", 0],
      ["b", 1],
      ["c", 2],
      ["d", 3],
    ]);
    expect(reads).toEqual([["a"], ["b"], ["c"], ["d"]]);
    // Every relation between returned entities, once (c → a included although the walk never followed it).
    expect(hood.relations.map((r) => r.id)).toEqual(["r0", "r1", "r2", "r3"]);
  });
});

describe("fitBudget", () => {
  test("the longest prefix whose text fits, never over the budget", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ maxLength: 30 }), { maxLength: 40 }),
        fc.integer({ min: 60, max: 600 }),
        async (items, maxChars) => {
          const build = (count: number) => ({ items: items.slice(0, count), ...(count < items.length ? { cursor: String(count) } : {}) });
          const render = (answer: unknown) => JSON.stringify(answer);
          let result;
          try {
            result = await fitBudget(items.length, maxChars, build, render);
          } catch {
            // Refused only when not even the first item fits.
            expect(render(build(1)).length).toBeGreaterThan(maxChars);
            return;
          }
          expect(render(result.answer).length).toBeLessThanOrEqual(maxChars);
          if (result.count < items.length) expect(render(build(result.count + 1)).length).toBeGreaterThan(maxChars);
        },
      ),
    );
  });
});
