import { beforeAll, describe, expect, test } from "@jest/globals";

import type { McpTestClient, TestServer } from "./support/harness.js";
import { failed, ok, uniqueWorkspace, withTestServers } from "./support/harness.js";
import type { SearchHits } from "./support/outputs.js";

/**
 * Hybrid retrieval end to end (issue #24, docs/search.md#hybrid-retrieval): search by meaning with the packaged model,
 * fused with words and graph; explain; filters, cursors and storage requests; search by meaning turned off.
 */

let server: TestServer;
let mcp: McpTestClient;
let off: McpTestClient;

withTestServers(
  {
    servers: { server: {}, withoutMeaning: { env: { MEMORY_EMBEDDINGS: "off" } } },
    clients: { mcp: {}, off: { on: "withoutMeaning" } },
  },
  (started) => void ({ server, mcp, off } = started),
);

type Explained = SearchHits["hits"][number] & {
  explain?: {
    words?: { rank: number; score: number };
    meaning?: { rank: number; similarity: number; observation?: string };
    graph?: { rank: number; via: { from: string; relationType: string; to: string } };
  };
};
type ExplainedHits = { hits: Explained[]; nextCursor?: string };

const names = (page: { hits: { entity: { name: string } }[] }) => page.hits.map((hit) => hit.entity.name);

const ENTITIES = [
  { name: "Checkout Team", entityType: "team", observations: ["Owns the checkout service and the card processing flow"] },
  { name: "Billing Service", entityType: "service", observations: ["Sends invoices to customers at the end of each month"] },
  {
    name: "Postgres failover incident",
    entityType: "incident",
    observations: ["The primary PostgreSQL server crashed and a replica took over"],
  },
  { name: "Office Garden", entityType: "place", observations: ["Tomatoes and basil grow on the roof terrace"] },
  { name: "Weekly Quiz", entityType: "event", observations: ["Trivia night every Friday with pizza"] },
  { name: "Maya", entityType: "person", observations: ["Plays the cello in a local orchestra"] },
  { name: "Ledger DB", entityType: "database", observations: ["Stores every payment and refund"] },
];
const RELATIONS = [
  { from: "Checkout Team", to: "Billing Service", relationType: "depends_on" },
  { from: "Billing Service", to: "Ledger DB", relationType: "writes_to" },
  { from: "Maya", to: "Weekly Quiz", relationType: "hosts" },
];

async function seed(client: McpTestClient, ws: string): Promise<void> {
  ok(await client.call("create_entities", { workspaceName: ws, entities: ENTITIES }));
  ok(await client.call("create_relations", { workspaceName: ws, relations: RELATIONS }));
}

describe("search by meaning finds what shares no word with the query", () => {
  const ws = uniqueWorkspace("hybrid");
  beforeAll(() => seed(mcp, ws));

  test.each([
    ["money owed by clients", "Billing Service"],
    ["outage of the main database", "Postgres failover incident"],
    ["vegetables", "Office Garden"],
    ["musician", "Maya"],
  ])("%s -> %s: in the top 5 of hybrid and meaning (recall@5), not found by words", async (query, answer) => {
    const hybrid = ok<SearchHits>(await mcp.call("search_entities", { workspaceName: ws, query }));
    expect(names(hybrid).slice(0, 5)).toContain(answer);
    const meaning = ok<SearchHits>(await mcp.call("search_entities", { workspaceName: ws, query, mode: "meaning" }));
    expect(names(meaning).slice(0, 5)).toContain(answer);
    const words = ok<SearchHits>(await mcp.call("search_entities", { workspaceName: ws, query, mode: "words" }));
    expect(names(words)).not.toContain(answer);
  });

  test("a keyword query still ranks its word match first, and an exact name first of all", async () => {
    const invoices = ok<SearchHits>(await mcp.call("search_entities", { workspaceName: ws, query: "invoice" }));
    expect(names(invoices)[0]).toBe("Billing Service");
    const exact = ok<SearchHits>(await mcp.call("search_entities", { workspaceName: ws, query: "ledger db" }));
    expect(names(exact)[0]).toBe("Ledger DB");
  });

  test("an entity named by stop words alone is found by its exact name, first, in every mode but meaning", async () => {
    ok(
      await mcp.call("create_entities", {
        workspaceName: ws,
        entities: [
          { name: "IT", entityType: "department", observations: ["Hands out laptops"] },
          { name: "Will", entityType: "person", observations: ["Joined in March"] },
        ],
      }),
    );
    for (const mode of ["hybrid", "words"]) {
      const it = ok<ExplainedHits>(await mcp.call("search_entities", { workspaceName: ws, query: "it", mode, explain: true }));
      expect(names(it)[0]).toBe("IT");
      const will = ok<SearchHits>(await mcp.call("search_entities", { workspaceName: ws, query: "Will", mode }));
      expect(names(will)[0]).toBe("Will");
    }
    // In words mode each hit's rank is its place in the answer, the exact name's included.
    const words = ok<ExplainedHits>(
      await mcp.call("search_entities", { workspaceName: ws, query: "ledger db", mode: "words", explain: true }),
    );
    expect(words.hits.map((hit) => hit.explain!.words?.rank)).toEqual(words.hits.map((_, i) => i + 1));
  });

  test("an unrelated query finds nothing by meaning", async () => {
    const page = ok<SearchHits>(await mcp.call("search_entities", { workspaceName: ws, query: "xqzv", mode: "meaning" }));
    expect(page.hits).toEqual([]);
  });
});

describe("explain matches the rankers", () => {
  const ws = uniqueWorkspace("explain");
  beforeAll(() => seed(mcp, ws));

  test("each ranker's rank is the hit's place in that mode's own ranking; graph hits name a real relation to a stronger hit", async () => {
    const query = "payments checkout";
    const hybrid = ok<ExplainedHits>(await mcp.call("search_entities", { workspaceName: ws, query, explain: true, limit: 100 }));
    const words = names(ok<SearchHits>(await mcp.call("search_entities", { workspaceName: ws, query, mode: "words", limit: 100 })));
    const meaning = ok<ExplainedHits>(
      await mcp.call("search_entities", { workspaceName: ws, query, mode: "meaning", explain: true, limit: 100 }),
    );
    const meaningNames = names(meaning);
    expect(hybrid.hits.length).toBeGreaterThan(0);
    let graphHits = 0;
    for (const hit of hybrid.hits) {
      const { explain } = hit;
      expect(explain).toBeDefined();
      expect(explain!.words !== undefined || explain!.meaning !== undefined || explain!.graph !== undefined).toBe(true);
      if (explain!.words) expect(words.indexOf(hit.entity.name) + 1).toBe(explain!.words.rank);
      else expect(words).not.toContain(hit.entity.name);
      if (explain!.meaning) {
        expect(meaningNames.indexOf(hit.entity.name) + 1).toBe(explain!.meaning.rank);
        const inMeaning = meaning.hits.find((m) => m.entity.name === hit.entity.name)!;
        expect(inMeaning.explain!.meaning!.similarity).toBe(explain!.meaning.similarity);
        if (explain!.meaning.observation !== undefined) expect(hit.entity.observations).toContain(explain!.meaning.observation);
      }
      if (explain!.graph) {
        graphHits += 1;
        const { from, relationType, to } = explain!.graph.via;
        expect([from, to]).toContain(hit.entity.name);
        expect(RELATIONS).toContainEqual({ from, to, relationType });
        const other = from === hit.entity.name ? to : from;
        // The neighbour it came through was found by words or meaning.
        expect([...words, ...meaningNames]).toContain(other);
      }
    }
    expect(graphHits).toBeGreaterThan(0);
    // Without explain, hits carry none.
    const plain = ok<ExplainedHits>(await mcp.call("search_entities", { workspaceName: ws, query }));
    expect(plain.hits.every((hit) => hit.explain === undefined)).toBe(true);
    expect(names(plain)).toEqual(names(hybrid).slice(0, names(plain).length));
  });

  test("the nearest observation is listed among matchedObservations", async () => {
    const page = ok<ExplainedHits>(await mcp.call("search_entities", { workspaceName: ws, query: "money owed by clients", explain: true }));
    const billing = page.hits.find((hit) => hit.entity.name === "Billing Service")!;
    expect(billing.explain!.meaning!.observation).toBe(ENTITIES[1]!.observations[0]);
    expect(billing.matchedObservations).toContain(ENTITIES[1]!.observations[0]);
  });
});

describe("filters, cursors, freshness and cost hold in hybrid mode", () => {
  const ws = uniqueWorkspace("hybridpage");
  beforeAll(() => seed(mcp, ws));

  test("filters apply to every ranker, graph neighbours included", async () => {
    const page = ok<ExplainedHits>(
      await mcp.call("search_entities", { workspaceName: ws, query: "payments", entityType: "service", explain: true, limit: 100 }),
    );
    expect(page.hits.length).toBeGreaterThan(0);
    expect(page.hits.every((hit) => hit.entity.entityType === "service")).toBe(true);
  });

  test("cursor pages return every hit once, in the order of one big page", async () => {
    const query = "payments orchestra garden";
    const whole = ok<SearchHits>(await mcp.call("search_entities", { workspaceName: ws, query, limit: 100 }));
    expect(whole.hits.length).toBeGreaterThanOrEqual(3);
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = ok<SearchHits>(await mcp.call("search_entities", { workspaceName: ws, query, limit: 2, ...(cursor ? { cursor } : {}) }));
      paged.push(...names(page));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(paged).toEqual(names(whole));
    // A cursor of one mode is refused in another.
    const first = ok<SearchHits>(await mcp.call("search_entities", { workspaceName: ws, query, limit: 1 }));
    const refused = failed(await mcp.call("search_entities", { workspaceName: ws, query, mode: "words", cursor: first.nextCursor }));
    expect(refused.message).toMatch(/cursor/i);
  });

  test("a write is found by meaning by the next search; an unchanged workspace costs 1 storage request per hybrid search", async () => {
    ok(
      await mcp.call("add_observations", {
        observations: [{ entityName: "Weekly Quiz", contents: ["Volunteers cook spaghetti for everyone"] }],
        workspaceName: ws,
      }),
    );
    const found = ok<SearchHits>(await mcp.call("search_entities", { workspaceName: ws, query: "pasta dinner", mode: "meaning" }));
    expect(names(found)[0]).toBe("Weekly Quiz");
    const before = server.requests();
    ok(await mcp.call("search_entities", { workspaceName: ws, query: "who looks after payments" }));
    ok(await mcp.call("search_entities", { workspaceName: ws, query: "a brand new question about music", explain: true }));
    expect(server.requests() - before).toBe(2);
  });

  test("get_stats says which model embedded how many texts, and that none is pending", async () => {
    const stats = ok<{ embedding?: { model: string; remote: boolean; vectors: number; pending: number } }>(
      await mcp.call("get_stats", { workspaceName: ws }),
    );
    expect(stats.embedding).toEqual({ model: expect.stringMatching(/^glove/), remote: false, vectors: expect.any(Number), pending: 0 });
    // Each entity's name text and each observation: 7 names, 8 observations.
    expect(stats.embedding!.vectors).toBe(15);
  });
});

describe("with search by meaning off (MEMORY_EMBEDDINGS=off)", () => {
  const ws = uniqueWorkspace("nomeaning");
  beforeAll(() => seed(off, ws));

  test("hybrid ranks by words and graph; meaning is an error saying what to use; get_stats has no embedding", async () => {
    const hybrid = ok<ExplainedHits>(await off.call("search_entities", { workspaceName: ws, query: "invoices", explain: true }));
    expect(names(hybrid)[0]).toBe("Billing Service");
    expect(hybrid.hits.every((hit) => hit.explain!.meaning === undefined)).toBe(true);
    expect(hybrid.hits.some((hit) => hit.explain!.graph !== undefined)).toBe(true);
    const refused = failed(await off.call("search_entities", { workspaceName: ws, query: "payments", mode: "meaning" }));
    expect(refused.message).toMatch(/MEMORY_EMBEDDINGS=off.*mode 'words'/);
    const stats = ok<Record<string, unknown>>(await off.call("get_stats", { workspaceName: ws }));
    expect(stats).not.toHaveProperty("embedding");
  });
});
