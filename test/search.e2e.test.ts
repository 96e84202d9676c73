import { beforeAll, describe, expect, test } from "@jest/globals";

import type { GraphStats } from "../src/domain/ports/graphIndex.js";
import { hashApiKey } from "../src/http/auth/apiKeyVerifier.js";
import type { McpTestClient, TestServer } from "./support/harness.js";
import { connectClient, failed, ok, startTestServer, uniqueWorkspace, withTestServers } from "./support/harness.js";
import type { SearchHits } from "./support/outputs.js";

/**
 * The search tools and the index behind them, end to end (issue #14): filters and pagination, bad input,
 * and the storage requests of every read the index answers, through real MCP clients on real Azurite.
 * Two API keys write, so createdBy has two principals to tell apart.
 */
const KEYS = { alice: "alice-search-key-0123456789", bob: "bob-search-key-0123456789" };
const ENTRIES = [
  { id: "alice", sha256: hashApiKey(KEYS.alice), workspaces: ["*"], access: "write" },
  { id: "bob", sha256: hashApiKey(KEYS.bob), workspaces: ["*"], access: "write" },
];

let server: TestServer;
let alice: McpTestClient;
let bob: McpTestClient;

withTestServers(
  {
    servers: { server: { env: { MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify(ENTRIES) } } },
    clients: { alice: { headers: { "x-api-key": KEYS.alice } }, bob: { headers: { "x-api-key": KEYS.bob } } },
  },
  (started) => void ({ server, alice, bob } = started),
);

interface Relations {
  relations: { from: string; to: string; relationType: string }[];
  nextCursor?: string;
}

const names = (page: SearchHits) => page.hits.map((hit) => hit.entity.name);

async function requestsOf(client: McpTestClient, name: string, args: Record<string, unknown>): Promise<number> {
  const before = server.requests();
  ok(await client.call(name, args));
  return server.requests() - before;
}

/** Every page of a search, following nextCursor. */
async function allPages(tool: string, args: Record<string, unknown>): Promise<{ pages: number; items: unknown[] }> {
  const items: unknown[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = ok<{ hits?: unknown[]; relations?: unknown[]; nextCursor?: string }>(
      await alice.call(tool, { ...args, ...(cursor ? { cursor } : {}) }),
    );
    items.push(...(page.hits ?? page.relations ?? []));
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor !== undefined);
  return { pages, items };
}

describe("search_entities filters (combined with AND) and pagination", () => {
  const ws = uniqueWorkspace("filters");
  let later: string;

  beforeAll(async () => {
    ok(
      await alice.call("create_entities", {
        workspaceName: ws,
        entities: [
          { name: "Ada", entityType: "person", observations: ["Writes the compiler", "Likes tea"] },
          { name: "Grace", entityType: "person", observations: ["Writes the debugger"] },
          { name: "Compiler", entityType: "project", observations: ["Written in Rust"] },
        ],
      }),
    );
    ok(
      await bob.call("create_entities", {
        workspaceName: ws,
        entities: [{ name: "Linker", entityType: "project", observations: ["Writes object files"] }],
      }),
    );
    ok(await alice.call("tag_entity", { workspaceName: ws, entityName: "Ada", tagNames: ["core", "founder"] }));
    ok(await alice.call("tag_entity", { workspaceName: ws, entityName: "Compiler", tagNames: ["core"] }));
    ok(
      await alice.call("tag_observation", {
        workspaceName: ws,
        entityName: "Grace",
        observationContent: "Writes the debugger",
        tagNames: ["founder"],
      }),
    );
    const linker = ok<SearchHits>(await alice.call("search_entities", { workspaceName: ws, query: "Linker" }));
    later = linker.hits[0]!.entity.updatedAt!;
  });

  test("entityType, alone and with a query", async () => {
    expect(names(ok(await alice.call("search_entities", { workspaceName: ws, entityType: "project" })))).toEqual(["Compiler", "Linker"]);
    expect(names(ok(await alice.call("search_entities", { workspaceName: ws, query: "writes", entityType: "person" })))).toEqual(
      expect.arrayContaining(["Ada", "Grace"]),
    );
    expect(names(ok(await alice.call("search_entities", { workspaceName: ws, query: "writes", entityType: "person" })))).toHaveLength(2);
  });

  test("tags: every tag given, on the entity or on one of its observations", async () => {
    expect(names(ok(await alice.call("search_entities", { workspaceName: ws, tags: ["core"] })))).toEqual(["Ada", "Compiler"]);
    expect(names(ok(await alice.call("search_entities", { workspaceName: ws, tags: ["founder"] })))).toEqual(["Ada", "Grace"]);
    expect(names(ok(await alice.call("search_entities", { workspaceName: ws, tags: ["core", "founder"] })))).toEqual(["Ada"]);
    const tagged = ok<SearchHits>(await alice.call("search_entities", { workspaceName: ws, tags: ["core"], query: "compiler" }));
    expect(names(tagged)).toEqual(["Compiler", "Ada"]);
    expect(tagged.hits[0]!.entity.tags).toEqual(["core"]);
  });

  test("createdBy", async () => {
    expect(names(ok(await alice.call("search_entities", { workspaceName: ws, createdBy: "key:bob" })))).toEqual(["Linker"]);
    expect(names(ok(await alice.call("search_entities", { workspaceName: ws, query: "writes", createdBy: "key:alice" })))).not.toContain(
      "Linker",
    );
  });

  test("updatedSince", async () => {
    expect(names(ok(await alice.call("search_entities", { workspaceName: ws, updatedSince: later })))).toEqual(["Linker"]);
    expect(names(ok(await alice.call("search_entities", { workspaceName: ws, updatedSince: "2000-01-01" })))).toHaveLength(4);
  });

  test("an unknown entityType is an empty result, not an error", async () => {
    expect(ok<SearchHits>(await alice.call("search_entities", { workspaceName: ws, entityType: "spaceship" })).hits).toEqual([]);
  });

  test("cursor pagination returns every hit once, in the order of one big page", async () => {
    const whole = ok<SearchHits>(await alice.call("search_entities", { workspaceName: ws, query: "writes compiler tea", limit: 100 }));
    expect(whole.nextCursor).toBeUndefined();
    expect(whole.hits.length).toBeGreaterThanOrEqual(4);
    const paged = await allPages("search_entities", { workspaceName: ws, query: "writes compiler tea", limit: 1 });
    expect(paged.pages).toBe(whole.hits.length);
    expect(paged.items).toEqual(whole.hits);
  });

  test("a cursor is refused when tampered with or reused with other filters", async () => {
    const first = ok<SearchHits>(await alice.call("search_entities", { workspaceName: ws, entityType: "person", limit: 1 }));
    const cursor = first.nextCursor!;
    expect(cursor).toBeDefined();
    const tampered = failed(
      await alice.call("search_entities", { workspaceName: ws, entityType: "person", limit: 1, cursor: `x${cursor.slice(1)}` }),
    );
    expect(tampered.error).toBe("ValidationError");
    expect(tampered.message).toMatch(/cursor .*Omit cursor/);
    expect(failed(await alice.call("search_entities", { workspaceName: ws, entityType: "project", cursor })).error).toBe("ValidationError");
    const second = ok<SearchHits>(await alice.call("search_entities", { workspaceName: ws, entityType: "person", limit: 1, cursor }));
    expect(names(second)).toEqual(["Grace"]);
  });
});

describe("bad input gets a clear error and changes nothing", () => {
  const ws = uniqueWorkspace("bad");
  beforeAll(async () => {
    ok(await alice.call("upsert_entity", { workspaceName: ws, name: "Only", entityType: "thing", observations: ["here"] }));
  });

  test.each([
    [{}, /Give a query, or at least one filter/],
    [{ query: "   " }, /Give a query, or at least one filter/],
    [{ query: "x".repeat(1001) }, /query is 1001 characters; the limit is 1000/],
    [{ query: "x", updatedSince: "yesterday" }, /updatedSince 'yesterday' is not an ISO 8601 time/],
    [{ query: "x", limit: 0 }, /limit must be a whole number/],
    [{ query: "x", cursor: "not-a-cursor" }, /cursor is not one search_entities issued/],
  ])("search_entities %j", async (args, message) => {
    const before = ok(await alice.call("get_stats", { workspaceName: ws }));
    const error = failed(await alice.call("search_entities", { workspaceName: ws, ...args }));
    expect(error.error).toBe("ValidationError");
    expect(error.message).toMatch(message);
    expect(ok(await alice.call("get_stats", { workspaceName: ws }))).toEqual(before);
  });

  test("search_relations with a tampered cursor", async () => {
    const error = failed(await alice.call("search_relations", { workspaceName: ws, cursor: "abc.def" }));
    expect(error).toMatchObject({ error: "ValidationError", message: expect.stringMatching(/cursor is not one search_relations issued/) });
  });
});

describe("search_relations", () => {
  const ws = uniqueWorkspace("rels");
  beforeAll(async () => {
    ok(
      await alice.call("create_entities", {
        workspaceName: ws,
        entities: [
          { name: "Api", entityType: "service", observations: [] },
          { name: "Db", entityType: "database", observations: [] },
          { name: "Cache", entityType: "database", observations: [] },
          { name: "Web", entityType: "app", observations: [] },
        ],
      }),
    );
    ok(
      await alice.call("create_relations", {
        workspaceName: ws,
        relations: [
          { from: "Api", to: "Db", relationType: "reads" },
          { from: "Api", to: "Cache", relationType: "reads" },
          { from: "Web", to: "Api", relationType: "calls" },
          { from: "Api", to: "Db", relationType: "writes" },
        ],
      }),
    );
  });

  const pairs = (page: Relations) => page.relations.map((r) => `${r.from} ${r.relationType} ${r.to}`).sort();

  test("each filter, and their combination", async () => {
    const call = async (args: Record<string, unknown>) => pairs(ok(await alice.call("search_relations", { workspaceName: ws, ...args })));
    expect(await call({ relationType: "reads" })).toEqual(["Api reads Cache", "Api reads Db"]);
    expect(await call({ from: "Web" })).toEqual(["Web calls Api"]);
    expect(await call({ to: "Db" })).toEqual(["Api reads Db", "Api writes Db"]);
    expect(await call({ entityType: "app" })).toEqual(["Web calls Api"]);
    expect(await call({ from: "Api", to: "Db", relationType: "writes" })).toEqual(["Api writes Db"]);
    expect(await call({ entityType: "nothing" })).toEqual([]);
    expect(await call({})).toHaveLength(4);
  });

  test("cursor pagination", async () => {
    const whole = ok<Relations>(await alice.call("search_relations", { workspaceName: ws }));
    const paged = await allPages("search_relations", { workspaceName: ws, limit: 3 });
    expect(paged.pages).toBe(2);
    expect(paged.items).toEqual(whole.relations);
  });
});

describe("storage requests of the reads the index answers", () => {
  const READS: [string, Record<string, unknown>][] = [
    ["search_entities", { query: "fact" }],
    ["search_relations", {}],
    ["get_stats", {}],
    ["search_nodes", { query: "fact" }],
    ["read_graph", {}],
    ["read_graph", { mode: "names" }],
    ["read_graph", { limit: 10 }],
    ["get_all_tags", {}],
    ["get_tag_usage", {}],
  ];

  test.each(READS)("%s %j: 1 request each when nothing changed; after a write, 1 request and the write is seen", async (tool, args) => {
    const ws = uniqueWorkspace("budget");
    // Over 1,000 rows, so a scan (a rebuild, or the old whole-workspace read) costs 2 requests and the feed tail 1.
    const many = Array.from({ length: 1000 }, (_, i) => `note ${i}`);
    ok(await alice.call("upsert_entity", { workspaceName: ws, name: "E1", entityType: "t", observations: ["fact one", ...many.slice(1)] }));
    ok(await alice.call("upsert_entity", { workspaceName: ws, name: "E2", entityType: "t", observations: ["fact two"] }));
    ok(await alice.call("upsert_relation", { workspaceName: ws, from: "E1", to: "E2", relationType: "r" }));
    ok(await alice.call(tool, { workspaceName: ws, ...args })); // builds the index
    for (let i = 0; i < 3; i++) expect(await requestsOf(alice, tool, { workspaceName: ws, ...args })).toBe(1);

    // A write through the other client, then the next read: 1 request, and the write is in the answer.
    ok(await bob.call("upsert_entity", { workspaceName: ws, name: "A-new", entityType: "t", observations: ["fact three"] }));
    ok(await bob.call("upsert_relation", { workspaceName: ws, from: "A-new", to: "E1", relationType: "r" }));
    ok(await bob.call("tag_entity", { workspaceName: ws, entityName: "A-new", tagNames: ["fresh"] }));
    const before = server.requests();
    const answer = JSON.stringify(ok(await alice.call(tool, { workspaceName: ws, ...args })));
    expect(server.requests() - before).toBe(1);
    expect(answer).toMatch(tool === "get_stats" ? /"entities":3/ : tool.includes("tag") ? /fresh/ : /A-new/);
    expect(await requestsOf(alice, tool, { workspaceName: ws, ...args })).toBe(1);
  });
});

describe("stats match a recount from read_graph", () => {
  test("on a generated workspace", async () => {
    const ws = uniqueWorkspace("stats");
    const types = ["person", "service", "team"];
    const entities = Array.from({ length: 30 }, (_, i) => ({
      name: `N${i}`,
      entityType: types[i % 3]!,
      observations: Array.from({ length: i % 4 }, (_, k) => `o${k} of ${i}`),
    }));
    ok(await alice.call("create_entities", { workspaceName: ws, entities: entities.slice(0, 20) }));
    ok(await bob.call("create_entities", { workspaceName: ws, entities: entities.slice(20) }));
    const relations = Array.from({ length: 25 }, (_, i) => ({
      from: `N${i % 7}`,
      to: `N${(i * 3 + 1) % 30}`,
      relationType: i % 2 ? "uses" : "owns",
    }));
    ok(await alice.call("create_relations", { workspaceName: ws, relations }));
    ok(await bob.call("tag_entity", { workspaceName: ws, entityName: "N1", tagNames: ["a", "b"] }));
    ok(await bob.call("tag_observation", { workspaceName: ws, entityName: "N2", observationContent: "o1 of 2", tagNames: ["c"] }));
    ok(await bob.call("add_observations", { workspaceName: ws, observations: [{ entityName: "N5", contents: ["late fact"] }] }));
    ok(await bob.call("delete_entities", { workspaceName: ws, entityNames: ["N29"] }));

    const stats = ok<GraphStats>(await alice.call("get_stats", { workspaceName: ws }));
    const graph = ok<{
      entities: { name: string; entityType: string; observations: string[]; tags?: string[]; observationTags?: Record<string, string[]> }[];
      relations: { from: string; to: string; relationType: string; createdBy?: string }[];
    }>(await alice.call("read_graph", { workspaceName: ws }));

    const count = <T>(items: T[], key: (item: T) => string) => {
      const counts = new Map<string, number>();
      for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
      return counts;
    };
    expect(stats.entities).toBe(graph.entities.length);
    expect(stats.relations).toBe(graph.relations.length);
    expect(stats.observations).toBe(graph.entities.reduce((sum, e) => sum + e.observations.length, 0));
    const tagNames = new Set(graph.entities.flatMap((e) => [...(e.tags ?? []), ...Object.values(e.observationTags ?? {}).flat()]));
    expect(stats.tags).toBe(tagNames.size);
    expect(new Map(stats.entityTypes.map((t) => [t.entityType, t.count]))).toEqual(count(graph.entities, (e) => e.entityType));
    expect(new Map(stats.relationTypes.map((t) => [t.relationType, t.count]))).toEqual(count(graph.relations, (r) => r.relationType));
    const degree = new Map<string, number>();
    for (const r of graph.relations) for (const end of new Set([r.from, r.to])) degree.set(end, (degree.get(end) ?? 0) + 1);
    const top = [...degree].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 10);
    expect(stats.mostConnected.map((m) => [m.name, m.degree])).toEqual(top);
    // Entities and relations created, by principal (nothing here was changed after its creation).
    expect(new Map(stats.writesByPrincipal.map((w) => [w.principal, w.writes]))).toEqual(
      new Map([
        ["key:alice", 20 + graph.relations.length],
        ["key:bob", 9],
      ]),
    );
    expect(stats.firstWriteAt! <= stats.lastWriteAt!).toBe(true);
  });
});

describe("the index follows every kind of write", () => {
  test("read_graph from a warm index equals read_graph from a fresh build after mixed writes", async () => {
    const ws = uniqueWorkspace("follow");
    ok(
      await alice.call("create_entities", {
        workspaceName: ws,
        entities: [
          { name: "P", entityType: "t", observations: ["p1", "p2", "p3"] },
          { name: "Q", entityType: "t", observations: ["q1"] },
          { name: "R", entityType: "t", observations: [] },
        ],
      }),
    );
    ok(await alice.call("read_graph", { workspaceName: ws })); // warm: from here on the index applies the feed
    ok(await alice.call("create_relations", { workspaceName: ws, relations: [{ from: "P", to: "Q", relationType: "x" }] }));
    ok(await alice.call("upsert_relation", { workspaceName: ws, from: "Q", to: "R", relationType: "y", metadata: { w: 1 } }));
    ok(await alice.call("upsert_entity", { workspaceName: ws, name: "Q", entityType: "changed", metadata: { m: true } }));
    ok(await alice.call("add_observations", { workspaceName: ws, observations: [{ entityName: "R", contents: ["r1", "r2"] }] }));
    ok(await alice.call("delete_observations", { workspaceName: ws, deletions: [{ entityName: "P", observations: ["p2"] }] }));
    ok(await alice.call("tag_entity", { workspaceName: ws, entityName: "P", tagNames: ["t1", "t2"] }));
    ok(await alice.call("remove_tags_from_entity", { workspaceName: ws, entityName: "P", tagNames: ["t2"] }));
    ok(await alice.call("tag_observation", { workspaceName: ws, entityName: "R", observationContent: "r1", tagNames: ["ot"] }));
    ok(await alice.call("define_tag", { workspaceName: ws, name: "t1", category: "c", description: "d" }));
    ok(await alice.call("delete_relations", { workspaceName: ws, relations: [{ from: "P", to: "Q", relationType: "x" }] }));
    ok(await alice.call("create_entities", { workspaceName: ws, entities: [{ name: "S", entityType: "t", observations: ["s"] }] }));
    ok(await alice.call("upsert_relation", { workspaceName: ws, from: "S", to: "P", relationType: "z" }));
    ok(await alice.call("delete_entities", { workspaceName: ws, entityNames: ["S"] }));

    const reads: [string, Record<string, unknown>][] = [
      ["read_graph", {}],
      ["read_graph", { mode: "names" }],
      ["get_all_tags", {}],
      ["get_tag_usage", {}],
      ["search_nodes", { query: "r" }],
    ];
    const fresh = await startTestServer();
    const other = await connectClient(fresh.url);
    try {
      for (const [tool, args] of reads) {
        const warm = ok(await alice.call(tool, { workspaceName: ws, ...args }));
        const built = ok(await other.call(tool, { workspaceName: ws, ...args }));
        expect(warm).toEqual(built);
      }
    } finally {
      await other.close();
      await fresh.close();
    }
  });
});

describe("two instances on one storage", () => {
  test("a write through one is visible in the next search through the other", async () => {
    const ws = uniqueWorkspace("two");
    const second = await startTestServer({ env: { MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify(ENTRIES) } });
    const viaSecond = await connectClient(second.url, "/api/mcp", { headers: { "x-api-key": KEYS.bob } });
    try {
      ok(await alice.call("upsert_entity", { workspaceName: ws, name: "First", entityType: "t", observations: ["alpha"] }));
      // Both instances build their index now; each then only reads the feed's tail.
      expect(names(ok(await viaSecond.call("search_entities", { workspaceName: ws, query: "alpha" })))).toEqual(["First"]);
      expect(names(ok(await alice.call("search_entities", { workspaceName: ws, query: "alpha" })))).toEqual(["First"]);

      ok(await alice.call("upsert_entity", { workspaceName: ws, name: "Second", entityType: "t", observations: ["alpha beta"] }));
      const before = second.requests();
      expect(names(ok(await viaSecond.call("search_entities", { workspaceName: ws, query: "beta", mode: "words" })))).toEqual(["Second"]);
      expect(second.requests() - before).toBe(1);

      ok(await viaSecond.call("delete_entities", { workspaceName: ws, entityNames: ["First"] }));
      expect(names(ok(await alice.call("search_entities", { workspaceName: ws, query: "alpha" })))).toEqual(["Second"]);
    } finally {
      await viaSecond.close();
      await second.close();
    }
  });
});

describe("memory cap (MEMORY_INDEX_MAX_MB)", () => {
  test("past the cap the least recently used index is dropped, and rebuilt (one scan) on its next use", async () => {
    const capped = await startTestServer({ env: { MEMORY_INDEX_MAX_MB: "0" } });
    const client = await connectClient(capped.url);
    const count = async (args: Record<string, unknown>) => {
      const before = capped.requests();
      ok(await client.call("search_entities", args));
      return capped.requests() - before;
    };
    try {
      const big = uniqueWorkspace("big");
      const small = uniqueWorkspace("small");
      // 1 entity row + 1,000 observation rows: its build scans two pages, a refresh reads one.
      const observations = Array.from({ length: 1000 }, (_, i) => `fact ${i}`);
      ok(await client.call("upsert_entity", { workspaceName: big, name: "Big", entityType: "t", observations }));
      ok(await client.call("upsert_entity", { workspaceName: small, name: "Small", entityType: "t", observations: ["fact"] }));
      // A first build ever also claims the index generation on the registry row the writes made (one merge, once per workspace).
      expect(await count({ workspaceName: big, query: "fact" })).toBe(2 + 1); // built
      expect(await count({ workspaceName: big, query: "fact" })).toBe(1); // kept while it is the one in use
      expect(await count({ workspaceName: small, query: "fact" })).toBe(1 + 1); // built (one page); drops big's index
      expect(await count({ workspaceName: big, query: "fact" })).toBe(2); // built again: its generation is already claimed
      expect(await count({ workspaceName: big, query: "fact" })).toBe(1);
    } finally {
      await client.close();
      await capped.close();
    }
  });
});
