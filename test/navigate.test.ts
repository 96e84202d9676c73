import { beforeAll, describe, expect, test } from "@jest/globals";

import { entityId } from "../src/domain/model/ids.js";
import { LIMITS } from "../src/domain/model/limits.js";
import type { Direction, EntityNode } from "../src/domain/model/model.js";
import { neighbors, shortestPath, type TraversalPort } from "../src/domain/rules/navigation.js";
import { createServices } from "../src/runtime.js";
import { TableTraversal } from "../src/storage/reads/traversal.js";
import { failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";

/**
 * get_neighbors and find_path on a generated graph of 500 entities, checked against a plain BFS
 * written here over read_graph's relations, and their storage request counts: answered from the
 * workspace index (built by beforeAll's read_graph), each call is one request, the index's feed-tail
 * read; the storage port's rounds and reads are asserted below on the real Table adapter.
 */
let server: TestServer;
let mcp: McpTestClient;
withServerAndClient((started, client) => {
  server = started;
  mcp = client;
});

const N = 500;
const TYPES = ["knows", "uses", "cites"];
const ENTITY_TYPES = ["person", "project", "paper"];
const ws = uniqueWorkspace("nav");

/** A small deterministic generator (mulberry32), so the graph and the pairs are the same on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Rel {
  from: string;
  to: string;
  relationType: string;
}
let relations: Rel[] = [];
const typeOf = new Map<string, string>();

beforeAll(async () => {
  const next = random(15);
  const names = Array.from({ length: N }, (_, i) => `e${i}`);
  names.forEach((name, i) => typeOf.set(name, ENTITY_TYPES[i % 3]!));
  ok(
    await mcp.call("create_entities", {
      workspaceName: ws,
      entities: names.map((name) => ({ name, entityType: typeOf.get(name)!, observations: [`about ${name}`] })),
    }),
  );
  const wanted = new Map<string, Rel>();
  while (wanted.size < 1000) {
    const from = names[Math.floor(next() * N)]!;
    const to = names[Math.floor(next() * N)]!;
    const relationType = TYPES[Math.floor(next() * TYPES.length)]!;
    if (from !== to) wanted.set(`${from}|${relationType}|${to}`, { from, to, relationType });
  }
  const all = [...wanted.values()];
  ok(await mcp.call("create_relations", { workspaceName: ws, relations: all }));
  // The reference graph is what read_graph returns, not what was sent.
  const graph = ok<{ relations: Rel[] }>(await mcp.call("read_graph", { workspaceName: ws }));
  relations = graph.relations.map(({ from, to, relationType }) => ({ from, to, relationType }));
  expect(relations).toHaveLength(1000);
}, 120_000);

/** Plain BFS distances from `start`, following `direction`, only relations of `types`, only entities of `entityTypes`. */
function bfs(start: string, direction: Direction, maxDepth: number, types?: string[], entityTypes?: string[]): Map<string, number> {
  const distance = new Map([[start, 0]]);
  let frontier = [start];
  for (let d = 1; d <= maxDepth; d++) {
    const next: string[] = [];
    for (const at of frontier) {
      for (const r of relations) {
        if (types && !types.includes(r.relationType)) continue;
        const targets = [];
        if (direction !== "in" && r.from === at) targets.push(r.to);
        if (direction !== "out" && r.to === at) targets.push(r.from);
        for (const target of targets) {
          if (distance.has(target)) continue;
          if (entityTypes && !entityTypes.includes(typeOf.get(target)!)) continue;
          distance.set(target, d);
          next.push(target);
        }
      }
    }
    frontier = next;
  }
  return distance;
}

interface Neighbors {
  entities: { name: string; distance: number; id: string; observations: string[] }[];
  relations: { from: string; to: string; relationType: string }[];
  limited?: true;
}

interface Path {
  found: boolean;
  hops?: number;
  path: ({ kind: "entity"; name: string } | { kind: "relation"; from: string; to: string; relationType: string })[];
  message?: string;
  visitedEntities: number;
}

const DIRECTIONS: Direction[] = ["out", "in", "both"];
const key = (r: Rel) => `${r.from}|${r.relationType}|${r.to}`;

describe("traversal agrees with a plain BFS on 500 entities", () => {
  const next = random(42);
  // 30 pairs of different entities, the same on every run.
  const pairs: (readonly [string, string])[] = [];
  while (pairs.length < 30) {
    const [a, b] = [`e${Math.floor(next() * N)}`, `e${Math.floor(next() * N)}`];
    if (a !== b) pairs.push([a, b]);
  }
  const filters: (string[] | undefined)[] = [undefined, ["knows"], ["uses", "cites"]];

  test("get_neighbors: the same entities at the same distances, the relations between them once each, and one request per call", async () => {
    expect(pairs).toHaveLength(30);
    let checked = 0;
    for (const [i, [start]] of pairs.entries()) {
      for (const direction of DIRECTIONS) {
        const relationTypes = filters[i % filters.length];
        const depth = 1 + (i % 3);
        const before = server.requests();
        const got = ok<Neighbors>(
          await mcp.call("get_neighbors", {
            workspaceName: ws,
            entityName: start,
            depth,
            direction,
            limit: 1000,
            ...(relationTypes ? { relationTypes } : {}),
          }),
        );
        const requests = server.requests() - before;
        const expected = bfs(start, direction, depth, relationTypes);
        expect(Object.fromEntries(got.entities.map((e) => [e.name, e.distance]))).toEqual(Object.fromEntries(expected));
        expect(got.entities[0]).toMatchObject({ name: start, distance: 0, observations: [`about ${start}`] });
        // Distances never decrease along the answer: breadth-first order.
        expect(got.entities.map((e) => e.distance)).toEqual([...got.entities.map((e) => e.distance)].sort((a, b) => a - b));
        const between = relations.filter(
          (r) => expected.has(r.from) && expected.has(r.to) && (!relationTypes || relationTypes.includes(r.relationType)),
        );
        expect(got.relations.map(key).sort()).toEqual(between.map(key).sort());
        expect(new Set(got.relations.map(key)).size).toBe(got.relations.length);
        // The whole walk runs on the workspace index, brought current once: its feed-tail read, whatever the depth.
        expect(requests).toBe(1);
        checked += 1;
      }
    }
    expect(checked).toBe(90); // 30 pairs x 3 directions
  }, 300_000);

  test("get_neighbors with entityTypes walks only through entities of those types", async () => {
    for (const [start] of pairs.slice(0, 10)) {
      const entityTypes = [typeOf.get(start)!, "paper"];
      const got = ok<Neighbors>(
        await mcp.call("get_neighbors", { workspaceName: ws, entityName: start, depth: 3, direction: "both", entityTypes, limit: 1000 }),
      );
      expect(Object.fromEntries(got.entities.map((e) => [e.name, e.distance]))).toEqual(
        Object.fromEntries(bfs(start, "both", 3, undefined, entityTypes)),
      );
    }
  }, 120_000);

  test("find_path: a shortest path of the BFS's length, valid along the direction and types, or 'no path within N hops'", async () => {
    let found = 0;
    let missing = 0;
    for (const [i, [from, to]] of pairs.entries()) {
      for (const direction of DIRECTIONS) {
        const relationTypes = i % 3 === 2 ? ["knows", "uses"] : undefined;
        const maxDepth = 3 + (i % 4);
        const before = server.requests();
        const got = ok<Path>(
          await mcp.call("find_path", { workspaceName: ws, from, to, direction, maxDepth, ...(relationTypes ? { relationTypes } : {}) }),
        );
        // The whole search runs on the workspace index, brought current once; the visited bound still holds.
        expect(server.requests() - before).toBe(1);
        expect(got.visitedEntities).toBeLessThanOrEqual(LIMITS.pathVisitedEntities);
        const distance = bfs(from, direction, maxDepth, relationTypes).get(to);
        if (distance === undefined) {
          expect(got).toMatchObject({ found: false, path: [], message: `No path from '${from}' to '${to}' within ${maxDepth} hops.` });
          missing += 1;
          continue;
        }
        found += 1;
        expect(got.hops).toBe(distance);
        expect(got.path).toHaveLength(2 * distance + 1);
        expect(got.path[0]).toMatchObject({ kind: "entity", name: from });
        expect(got.path.at(-1)).toMatchObject({ kind: "entity", name: to });
        for (let step = 1; step < got.path.length; step += 2) {
          const [at, via, then] = [got.path[step - 1]!, got.path[step]!, got.path[step + 1]!];
          if (at.kind !== "entity" || via.kind !== "relation" || then.kind !== "entity") throw new Error("not alternating");
          expect(relations.map(key)).toContain(key(via));
          if (relationTypes) expect(relationTypes).toContain(via.relationType);
          const forward = via.from === at.name && via.to === then.name;
          const backward = via.to === at.name && via.from === then.name;
          expect(direction === "out" ? forward : direction === "in" ? backward : forward || backward).toBe(true);
        }
      }
    }
    // The seed gives both outcomes, so both branches are checked.
    expect(found).toBeGreaterThan(10);
    expect(missing).toBeGreaterThan(10);
  }, 300_000);
});

/** The storage port, counting its rounds and the entities each reads (the real adapter underneath: nothing is faked). */
function countingPort(): { port: TraversalPort; rounds: number[] } {
  const inner = new TableTraversal(server.app.storage.gateway);
  const rounds: number[] = [];
  return {
    rounds,
    port: {
      nodes: (workspace: string, ids: readonly string[]): Promise<(EntityNode | undefined)[]> => {
        rounds.push(ids.length);
        return inner.nodes(workspace, ids);
      },
      edges: (workspace: string, ids: readonly string[], direction: Direction): Promise<(EntityNode | undefined)[]> => {
        rounds.push(ids.length);
        return inner.edges(workspace, ids, direction);
      },
    },
  };
}

describe("rounds and bounds", () => {
  test("get_neighbors at depth d: at most d + 1 rounds (round 0 is the start's lookup), one range read per entity", async () => {
    for (const depth of [1, 2, 3]) {
      for (const start of ["e1", "e2", "e3"]) {
        const { port, rounds } = countingPort();
        const before = server.requests();
        const hood = await neighbors(port, ws, { id: entityId(ws, start), label: start }, { depth, direction: "both", limit: 1000 });
        expect(rounds.length).toBeLessThanOrEqual(depth + 1);
        expect(rounds[0]).toBe(1);
        expect(server.requests() - before).toBe(rounds.reduce((a, b) => a + b, 0));
        expect(hood.entities).toHaveLength(rounds.reduce((a, b) => a + b, 0));
      }
    }
  });

  test("the scanning index walks storage: get_neighbors = 1 + entities read, find_path = visitedEntities", async () => {
    const storage = server.app.storage;
    const { navigate } = createServices(storage, { cursorKey: server.app.cursorKey, index: "scanning" });
    for (const depth of [1, 2, 3]) {
      const before = server.requests();
      const hood = await navigate.getNeighbors(ws, { name: "e7" }, { depth, direction: "both", limit: 1000 });
      expect(server.requests() - before).toBe(hood.entities.length);
    }
    const before = server.requests();
    const path = await navigate.findPath(ws, { name: "e10" }, { name: "e20" }, { maxDepth: 6 });
    expect(path.visitedEntities).toBeGreaterThan(2);
    expect(path.visitedEntities).toBeLessThanOrEqual(LIMITS.pathVisitedEntities);
    expect(server.requests() - before).toBe(path.visitedEntities);
  });

  test("find_path reads the edges of at most maxVisited entities, then answers visit-limit", async () => {
    const { port, rounds } = countingPort();
    const result = await shortestPath(
      port,
      ws,
      { id: entityId(ws, "e1"), label: "e1" },
      { id: entityId(ws, "e2"), label: "e2" },
      { maxDepth: 6, direction: "both", relationTypes: ["knows"], maxVisited: 5 },
    );
    const read = rounds.reduce((a, b) => a + b, 0);
    expect(read).toBeLessThanOrEqual(5);
    if (!result.found) expect(result).toEqual({ found: false, reason: "visit-limit", visitedEntities: read });
    // Whatever the graph, the bound holds for every pair.
    for (const [from, to] of [
      ["e10", "e20"],
      ["e30", "e40"],
      ["e5", "e6"],
    ]) {
      const counted = countingPort();
      await shortestPath(
        counted.port,
        ws,
        { id: entityId(ws, from!), label: from! },
        { id: entityId(ws, to!), label: to! },
        { maxDepth: 6, direction: "both", maxVisited: 20 },
      );
      expect(counted.rounds.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(20);
    }
  });

  test("get_neighbors' limit stops the walk and says limited; on storage only as many entities are read as returned", async () => {
    const before = server.requests();
    const got = ok<Neighbors>(await mcp.call("get_neighbors", { workspaceName: ws, entityName: "e1", depth: 3, limit: 5 }));
    expect(got.entities).toHaveLength(5);
    expect(got.limited).toBe(true);
    expect(server.requests() - before).toBe(1);
    const { port, rounds } = countingPort();
    const storageBefore = server.requests();
    const hood = await neighbors(port, ws, { id: entityId(ws, "e1"), label: "e1" }, { depth: 3, direction: "both", limit: 5 });
    expect(hood.entities.map(({ entity }) => entity.name)).toEqual(got.entities.map((e) => e.name));
    expect(hood.limited).toBe(true);
    expect(rounds.reduce((a, b) => a + b, 0)).toBe(5);
    expect(server.requests() - storageBefore).toBe(5);
  });
});

describe("bad input gets a clear error and reads nothing", () => {
  test.each([
    ["depth 0", "get_neighbors", { entityName: "e1", depth: 0 }, /depth must be a whole number from 1 to 3/],
    ["depth 4", "get_neighbors", { entityName: "e1", depth: 4 }, /depth must be a whole number from 1 to 3/],
    ["no entity", "get_neighbors", {}, /give entityId or entityName/],
    ["empty relationTypes", "get_neighbors", { entityName: "e1", relationTypes: [] }, /relationTypes is empty/],
    ["maxDepth 7", "find_path", { from: "e1", to: "e2", maxDepth: 7 }, /maxDepth must be a whole number from 1 to 6/],
    ["from = to", "find_path", { from: "e1", to: "e1" }, /same entity/],
    ["maxChars 0", "get_neighbors", { entityName: "e1", maxChars: 0 }, /maxChars must be a whole number/],
  ])("%s", async (_label, tool, args, message) => {
    const before = server.requests();
    const error = failed(await mcp.call(tool, { workspaceName: ws, ...args }));
    expect(error.error).toBe("ValidationError");
    expect(error.message).toMatch(message);
    expect(server.requests() - before).toBe(0);
  });

  test("an unknown entity is NotFoundError naming it, after one read (the index's feed tail)", async () => {
    let before = server.requests();
    const error = failed(await mcp.call("get_neighbors", { workspaceName: ws, entityName: "nobody", depth: 2 }));
    expect(error).toMatchObject({ error: "NotFoundError", message: expect.stringContaining("'nobody' not found") });
    expect(server.requests() - before).toBe(1);
    before = server.requests();
    const path = failed(await mcp.call("find_path", { workspaceName: ws, from: "e1", to: "nobody" }));
    expect(path).toMatchObject({ error: "NotFoundError", message: expect.stringContaining("'nobody' not found") });
    expect(server.requests() - before).toBe(1);
  });
});
