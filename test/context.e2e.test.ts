import { describe, expect, test } from "@jest/globals";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";

import { CHARS_PER_TOKEN, contextKey, type ContextSource, contextTokens } from "../src/domain/rules/contextPack.js";
import { hashApiKey } from "../src/http/auth/apiKeyVerifier.js";
import { connectClient, failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withTestServers } from "./support/harness.js";
import type { SearchHits } from "./support/outputs.js";

/**
 * get_context, the memory-context prompt and the name completions, end to end (issue #24): real MCP clients over HTTP
 * on real Azurite. Alice may write everywhere; Carol may only read workspaces starting with "carol-", so she is refused
 * the workspaces these tests write.
 */
const KEYS = { alice: "alice-context-key-0123456789", carol: "carol-context-key-0123456789" };
const ENTRIES = [
  { id: "alice", sha256: hashApiKey(KEYS.alice), workspaces: ["*"], access: "write" },
  { id: "carol", sha256: hashApiKey(KEYS.carol), workspaces: ["carol-*"], access: "read" },
];

let server: TestServer;
let alice: McpTestClient;
let carol: McpTestClient;
withTestServers(
  {
    servers: { server: { env: { MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify(ENTRIES) } } },
    clients: { alice: { headers: { "x-api-key": KEYS.alice } }, carol: { headers: { "x-api-key": KEYS.carol } } },
  },
  (started) => void ({ server, alice, carol } = started),
);

interface ContextAnswer {
  workspaceName: string;
  items: { source: ContextSource; text: string; relevance: number; tokens: number }[];
  tokens: number;
  maxTokens: number;
  omitted: Record<ContextSource["kind"], number>;
}

/** The 2025-era SDK client behind a harness client: the harness exposes tools and resources only. */
const sdk = (mcp: McpTestClient) => mcp.client as unknown as Client;
const textOf = (result: CallToolResult) => (result.content[0]?.type === "text" ? result.content[0].text : "");
const keys = (answer: ContextAnswer) => answer.items.map((item) => contextKey(item.source));

async function requestsOf(work: () => Promise<unknown>): Promise<number> {
  const before = server.requests();
  await work();
  return server.requests() - before;
}

/** A small team graph: people, a project, what they know, and who works on what. */
async function seedTeam(ws: string): Promise<void> {
  ok(
    await alice.call("create_entities", {
      workspaceName: ws,
      entities: [
        { name: "Alice", entityType: "person", observations: ["leads the payments team", "prefers written design reviews"] },
        { name: "Bob", entityType: "person", observations: ["on call for billing this week", "joined in March"] },
        { name: "Billing", entityType: "project", observations: ["invoices are generated nightly", "migrating to the new ledger"] },
        { name: "Lunch", entityType: "topic", observations: ["tacos on Fridays"] },
      ],
    }),
  );
  ok(
    await alice.call("create_relations", {
      workspaceName: ws,
      relations: [
        { from: "Alice", to: "Billing", relationType: "owns" },
        { from: "Bob", to: "Billing", relationType: "works_on" },
        { from: "Alice", to: "Bob", relationType: "manages" },
      ],
    }),
  );
}

const context = (ws: string, args: Record<string, unknown>) => alice.call("get_context", { workspaceName: ws, ...args });

describe("get_context", () => {
  test("property: the estimate recomputed from the items equals tokens, never exceeds maxTokens, and bounds the text", async () => {
    const graph = fc.record({
      entities: fc.uniqueArray(
        fc.record({
          name: fc.constantFrom("Ada", "Ben", "Cy", "Dee", "Eve", "Fox", "Gus"),
          observations: fc.uniqueArray(fc.lorem({ maxCount: 12 }), { maxLength: 5 }),
        }),
        { minLength: 1, maxLength: 6, selector: (entity) => entity.name },
      ),
      links: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 8 }),
      query: fc.lorem({ maxCount: 3 }),
      named: fc.nat(),
      maxTokens: fc.integer({ min: 100, max: 1500 }),
    });
    await fc.assert(
      fc.asyncProperty(graph, async ({ entities, links, query, named, maxTokens }) => {
        const ws = uniqueWorkspace("ctx");
        ok(
          await alice.call("create_entities", {
            workspaceName: ws,
            entities: entities.map(({ name, observations }) => ({ name, entityType: "thing", observations })),
          }),
        );
        const relations = links
          .map(([a, b]) => ({ from: entities[a % entities.length]!.name, to: entities[b % entities.length]!.name, relationType: "links" }))
          .filter((r) => r.from !== r.to);
        if (relations.length > 0) ok(await alice.call("create_relations", { workspaceName: ws, relations }));
        const result = await context(ws, { query, entityNames: [entities[named % entities.length]!.name], maxTokens });
        const answer = ok<ContextAnswer>(result);
        expect(answer.tokens).toBe(contextTokens(answer.items));
        expect(answer.tokens).toBeLessThanOrEqual(maxTokens);
        expect(answer.maxTokens).toBe(maxTokens);
        expect(textOf(result).length).toBeLessThanOrEqual(CHARS_PER_TOKEN * answer.tokens);
        expect(new Set(keys(answer)).size).toBe(answer.items.length);
      }),
      { numRuns: 25 },
    );
  }, 240_000);

  test("every item's source is true: the entity, the observation is that entity's, the relation's ends, the event's id", async () => {
    const ws = uniqueWorkspace("ctx");
    await seedTeam(ws);
    const answer = ok<ContextAnswer>(await context(ws, { query: "billing invoices", entityNames: ["Alice"] }));
    const graph = ok<{
      entities: { id?: string; name: string; observations: string[] }[];
      relations: { id: string; from: string; to: string; relationType: string }[];
    }>(await alice.call("read_graph", { workspaceName: ws }));
    const changes = ok<{ events: { id: string }[] }>(await alice.call("get_changes", { workspaceName: ws }));
    const kinds = new Set(answer.items.map((item) => item.source.kind));
    expect([...kinds].sort()).toEqual(["entity", "event", "observation", "relation"]);
    // The ids as search_entities lists them (every entity here was created by Alice).
    const listed = ok<SearchHits>(await alice.call("search_entities", { workspaceName: ws, createdBy: "key:alice" }));
    const entityIds = new Map(listed.hits.map((hit) => [hit.entity.name, hit.entity.id]));
    expect(entityIds.size).toBe(4);
    for (const { source } of answer.items) {
      switch (source.kind) {
        case "entity":
          expect(entityIds.get(source.name)).toBe(source.id);
          break;
        case "observation":
          expect(graph.entities.find((e) => e.name === source.entity)?.observations).toContain(source.observation);
          break;
        case "relation":
          expect(graph.relations).toContainEqual(
            expect.objectContaining({ id: source.id, from: source.from, to: source.to, relationType: source.relationType }),
          );
          break;
        case "event":
          expect(changes.events.map((event) => event.id)).toContain(source.id);
          break;
      }
    }
  });
});

describe("get_context: what it gathers", () => {
  test("an entity named and also found by the query appears once, with the query's hits and its relations", async () => {
    const ws = uniqueWorkspace("ctx");
    await seedTeam(ws);
    const answer = ok<ContextAnswer>(await context(ws, { query: "billing", entityNames: ["Billing", "Alice"] }));
    const entities = answer.items.filter((item) => item.source.kind === "entity").map((item) => (item.source as { name: string }).name);
    expect(entities.filter((name) => name === "Billing")).toHaveLength(1);
    // Named first, in the order given; then Bob, found by the query ("on call for billing").
    expect(entities.slice(0, 3)).toEqual(["Billing", "Alice", "Bob"]);
    expect(entities).not.toContain("Lunch");
    expect(keys(answer)).toEqual(
      expect.arrayContaining(answer.items.filter((i) => i.source.kind === "relation").map((i) => contextKey(i.source))),
    );
    const relations = answer.items.filter((item) => item.source.kind === "relation").map((item) => item.text);
    expect(relations).toEqual(expect.arrayContaining(["Alice -[owns]-> Billing", "Bob -[works_on]-> Billing", "Alice -[manages]-> Bob"]));
    expect(new Set(keys(answer)).size).toBe(answer.items.length);
  });

  test("entityNames only: that entity, its observation and the change that made it, nothing else", async () => {
    const ws = uniqueWorkspace("ctx");
    await seedTeam(ws);
    const answer = ok<ContextAnswer>(await context(ws, { entityNames: ["Lunch"] }));
    expect(answer.items.map((item) => item.source.kind)).toEqual(["entity", "observation", "event"]);
    expect(answer.items.map((item) => item.text).slice(0, 2)).toEqual(["Lunch (topic)", "tacos on Fridays"]);
    expect(answer.items[2]!.text).toContain("key:alice via create_entities");
  });

  test("an entity's observations: those the search matched first, then the newest", async () => {
    const ws = uniqueWorkspace("ctx");
    ok(
      await alice.call("create_entities", {
        workspaceName: ws,
        entities: [{ name: "Ledger", entityType: "service", observations: ["written in Rust", "owned by finance", "deployed weekly"] }],
      }),
    );
    const answer = ok<ContextAnswer>(await context(ws, { query: "rust" }));
    expect(answer.items.filter((item) => item.source.kind === "observation").map((item) => item.text)).toEqual([
      "written in Rust",
      "deployed weekly",
      "owned by finance",
    ]);
  });

  test("query only: the hits, and nothing unrelated", async () => {
    const ws = uniqueWorkspace("ctx");
    await seedTeam(ws);
    const result = await context(ws, { query: "tacos" });
    const answer = ok<ContextAnswer>(result);
    expect(answer.items.filter((item) => item.source.kind === "entity").map((item) => item.text)).toEqual(["Lunch (topic)"]);
    expect(textOf(result)).toContain("- Lunch (topic)\n  - tacos on Fridays");
  });

  test("a small budget keeps the most relevant items and counts the rest as omitted", async () => {
    const ws = uniqueWorkspace("ctx");
    await seedTeam(ws);
    const answer = ok<ContextAnswer>(await context(ws, { entityNames: ["Alice", "Bob", "Billing", "Lunch"], maxTokens: 100 }));
    expect(answer.tokens).toBeLessThanOrEqual(100);
    expect(answer.items[0]!.text).toBe("Alice (person)");
    expect(Object.values(answer.omitted).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });
});

describe("get_context: bad input and its cost", () => {
  test("no query and no entityNames, or a budget out of range: isError, and nothing read", async () => {
    const ws = uniqueWorkspace("ctx");
    const lone = "a\uD800b"; // an unpaired surrogate: the text rule every tool applies
    for (const args of [
      {},
      { query: "  " },
      { entityNames: [] },
      { query: "x", maxTokens: 10 },
      { query: "x", maxTokens: 20_001 },
      { query: lone },
      { entityNames: ["A", lone] },
      { entityNames: Array.from({ length: 51 }, (_, i) => `e${i}`) },
    ]) {
      let result: CallToolResult | undefined;
      expect(await requestsOf(async () => (result = await context(ws, args)))).toBe(0);
      expect(failed(result!).error).toBe("ValidationError");
    }
  });

  test("unknown entity names: NotFoundError naming every one and how to recover, after one read (the index)", async () => {
    const ws = uniqueWorkspace("ctx");
    await seedTeam(ws);
    ok(await context(ws, { entityNames: ["Alice"] })); // the index is built
    let result: CallToolResult | undefined;
    expect(await requestsOf(async () => (result = await context(ws, { query: "billing", entityNames: ["Alice", "Zed", "alice"] })))).toBe(
      1,
    );
    const error = failed(result!);
    expect(error.error).toBe("NotFoundError");
    expect(error.message).toContain("'Zed', 'alice'");
    expect(error.message).toContain("search_entities");
  });

  test("storage requests per call, the index built: names and query 3, names only 2, query only 3 (2 finding nothing)", async () => {
    const ws = uniqueWorkspace("ctx");
    await seedTeam(ws);
    ok(await context(ws, { entityNames: ["Alice"] }));
    // The index's feed tail (the names' lookup), the search's feed tail, and the recent events (the last two in parallel).
    expect(await requestsOf(async () => ok(await context(ws, { query: "billing", entityNames: ["Alice"] })))).toBe(3);
    expect(await requestsOf(async () => ok(await context(ws, { entityNames: ["Alice", "Bob"] })))).toBe(2);
    expect(await requestsOf(async () => ok(await context(ws, { query: "billing" })))).toBe(3);
    // Nothing found: no entity to read the recent events of.
    expect(await requestsOf(async () => ok(await context(ws, { query: "zebra" })))).toBe(2);
  });
});

describe("the memory-context prompt", () => {
  test("is listed with its arguments, and returns get_context's brief as one user message", async () => {
    const ws = uniqueWorkspace("ctx");
    await seedTeam(ws);
    const { prompts } = await sdk(alice).listPrompts();
    expect(prompts.map((prompt) => [prompt.name, prompt.arguments?.map((a) => [a.name, a.required])])).toEqual([
      [
        "memory-context",
        [
          ["workspaceName", true],
          ["query", false],
          ["entityNames", false],
          ["maxTokens", false],
        ],
      ],
    ]);
    const prompt = await sdk(alice).getPrompt({
      name: "memory-context",
      arguments: { workspaceName: ws, query: "billing", entityNames: "Alice, Billing", maxTokens: "500" },
    });
    const tool = await context(ws, { query: "billing", entityNames: ["Alice", "Billing"], maxTokens: 500 });
    expect(prompt.messages).toEqual([{ role: "user", content: { type: "text", text: textOf(tool) } }]);
  });

  test("refuses a caller without a grant, unknown names and a missing start, as JSON-RPC errors that say what to do", async () => {
    const ws = uniqueWorkspace("ctx");
    await seedTeam(ws);
    await expect(sdk(carol).getPrompt({ name: "memory-context", arguments: { workspaceName: ws, query: "billing" } })).rejects.toThrow(
      /no grant for workspace/,
    );
    await expect(sdk(alice).getPrompt({ name: "memory-context", arguments: { workspaceName: ws, entityNames: "Nobody" } })).rejects.toThrow(
      /No entity named 'Nobody'/,
    );
    await expect(sdk(alice).getPrompt({ name: "memory-context", arguments: { workspaceName: ws } })).rejects.toThrow(/Give a query/);
    await expect(sdk(alice).getPrompt({ name: "no-such-prompt", arguments: {} })).rejects.toThrow(/memory-context/);
  });
});

describe("the 2026-07-28 era", () => {
  test("a modern client gets the same prompt and completions", async () => {
    const ws = uniqueWorkspace("ctx");
    await seedTeam(ws);
    const modern = await connectClient(server.url, "/api/mcp", { era: "2026", headers: { "x-api-key": KEYS.alice } });
    try {
      const client = modern.modern!;
      const prompt = await client.getPrompt({ name: "memory-context", arguments: { workspaceName: ws, entityNames: "Lunch" } });
      const legacy = await sdk(alice).getPrompt({ name: "memory-context", arguments: { workspaceName: ws, entityNames: "Lunch" } });
      expect(prompt.messages).toEqual(legacy.messages);
      const { completion } = await client.complete({
        ref: { type: "ref/prompt", name: "memory-context" },
        argument: { name: "entityNames", value: "lu" },
        context: { arguments: { workspaceName: ws } },
      });
      expect(completion.values).toEqual(["Lunch"]);
    } finally {
      await modern.close();
    }
  });

  test("on a workspace's own route, workspaceName is optional and completes to that workspace", async () => {
    const ws = uniqueWorkspace("ctx");
    await seedTeam(ws);
    const bound = await connectClient(server.url, `/api/workspaces/${ws}/mcp`, { headers: { "x-api-key": KEYS.alice } });
    try {
      const { prompts } = await sdk(bound).listPrompts();
      expect(prompts[0]!.arguments![0]).toMatchObject({ name: "workspaceName", required: false });
      const { completion } = await sdk(bound).complete({
        ref: { type: "ref/resource", uri: "memory://workspaces/{workspaceName}/graph" },
        argument: { name: "workspaceName", value: "" },
      });
      expect(completion.values).toEqual([ws]);
      const prompt = await sdk(bound).getPrompt({ name: "memory-context", arguments: { query: "tacos" } });
      expect(prompt.messages[0]!.content).toMatchObject({ type: "text", text: expect.stringContaining("tacos on Fridays") });
    } finally {
      await bound.close();
    }
  });
});

describe("completions", () => {
  test("the prompt's and the graph template's workspaceName: the caller's workspaces with the prefix", async () => {
    const ws = uniqueWorkspace("ctx");
    await seedTeam(ws);
    const prefix = ws.slice(0, -2).toUpperCase();
    for (const ref of [
      { type: "ref/prompt" as const, name: "memory-context" },
      { type: "ref/resource" as const, uri: "memory://workspaces/{workspaceName}/graph" },
    ]) {
      const { completion } = await sdk(alice).complete({ ref, argument: { name: "workspaceName", value: prefix } });
      expect(completion.values).toEqual([ws]);
      expect(completion.hasMore).toBe(false);
      const refused = await sdk(carol).complete({ ref, argument: { name: "workspaceName", value: prefix } });
      expect(refused.completion.values).toEqual([]);
    }
  });

  test("entityNames: names with the prefix, case-insensitive, the last of a comma-separated list, at most 100 with hasMore", async () => {
    const ws = uniqueWorkspace("ctx");
    await seedTeam(ws);
    ok(
      await alice.call("create_entities", {
        workspaceName: ws,
        entities: Array.from({ length: 105 }, (_, i) => ({
          name: `bulk ${String(i).padStart(3, "0")}`,
          entityType: "t",
          observations: [],
        })),
      }),
    );
    const complete = (client: McpTestClient, value: string) =>
      sdk(client).complete({
        ref: { type: "ref/prompt", name: "memory-context" },
        argument: { name: "entityNames", value },
        context: { arguments: { workspaceName: ws } },
      });
    expect((await complete(alice, "b")).completion).toEqual({
      values: ["Billing", "Bob", ...Array.from({ length: 98 }, (_, i) => `bulk ${String(i).padStart(3, "0")}`)],
      total: 107,
      hasMore: true,
    });
    expect((await complete(alice, "Alice, bo")).completion).toEqual({ values: ["Alice, Bob"], total: 1, hasMore: false });
    expect((await complete(alice, "Bob, B")).completion.values.slice(0, 2)).toEqual(["Bob, Billing", "Bob, bulk 000"]);
    expect((await complete(carol, "b")).completion).toEqual({ values: [], total: 0, hasMore: false });
  });
});
