import { beforeAll, describe, expect, test } from "@jest/globals";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";

import { failed, type McpTestClient, ok, uniqueWorkspace, withServerAndClient } from "./support/harness.js";

/**
 * maxChars budgets (docs/navigate.md#budgets): an answer's text never exceeds the budget, it stops
 * at whole entities, and following the continuation returns every entity and relation exactly once.
 */
let mcp: McpTestClient;
withServerAndClient((_server, client) => {
  mcp = client;
});

const ws = uniqueWorkspace("budget");
const N = 40;
const names = Array.from({ length: N }, (_, i) => `item ${i}`);

beforeAll(async () => {
  ok(
    await mcp.call("create_entities", {
      workspaceName: ws,
      entities: names.map((name, i) => ({
        name,
        entityType: i % 2 ? "odd" : "even",
        // Sizes vary, so cuts fall in different places for different budgets.
        observations: Array.from({ length: 1 + (i % 4) }, (_, j) => `${name} fact ${j} ${"x".repeat((i * 37 + j * 11) % 200)}`),
      })),
    }),
  );
  const relations = names.flatMap((name, i) => [
    { from: name, to: names[(i + 1) % N]!, relationType: "next" },
    { from: names[0]!, to: name, relationType: "hub" },
  ]);
  ok(await mcp.call("create_relations", { workspaceName: ws, relations: relations.filter((r) => r.from !== r.to) }));
}, 60_000);

interface Graph {
  entities: { name: string }[];
  relations: { from: string; to: string; relationType: string }[];
  truncated?: true;
  cursor?: string;
}

/** All the text a result carries: what the budget bounds. */
const textOf = (result: CallToolResult) => result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
/** The continuation a tool with an exact (official) output schema gives in its second text block. */
function noteOf(result: CallToolResult): { truncated: true; cursor?: string; remainingNames?: string[] } | undefined {
  const note = result.content[1];
  return note?.type === "text" ? (JSON.parse(note.text) as { truncated: true; cursor?: string; remainingNames?: string[] }) : undefined;
}
const relationKey = (r: { from: string; to: string; relationType: string }) => `${r.from}|${r.relationType}|${r.to}`;

/** Calls `first`, then follows each continuation; checks every page against the budget; returns all pages' items. */
async function follow(
  maxChars: number,
  call: (continuation: { cursor?: string; names?: string[] }) => Promise<CallToolResult>,
  official: boolean,
): Promise<{ entities: string[]; relations: string[]; pages: number }> {
  const entities: string[] = [];
  const relations: string[] = [];
  let continuation: { cursor?: string; names?: string[] } = {};
  for (let pages = 1; ; pages++) {
    const result = await call(continuation);
    const graph = ok<Graph>(result);
    expect(textOf(result).length).toBeLessThanOrEqual(maxChars);
    entities.push(...graph.entities.map((e) => e.name));
    relations.push(...graph.relations.map(relationKey));
    const note = official ? noteOf(result) : graph.cursor !== undefined ? { truncated: true as const, cursor: graph.cursor } : undefined;
    if (!note) return { entities, relations, pages };
    expect(graph.entities.length).toBeGreaterThan(0);
    continuation = note.remainingNames ? { names: note.remainingNames } : { cursor: note.cursor! };
    if (pages > 100) throw new Error("no progress");
  }
}

const sorted = (items: string[]) => [...items].sort();

interface SearchPage {
  hits?: { entity: { name: string } }[];
  relations?: { from: string; to: string; relationType: string }[];
  truncated?: true;
  nextCursor?: string;
}

/** The search tools' pages, followed by nextCursor to the end; checks each page against the budget (when given). */
async function followSearch(maxChars: number | undefined, call: (cursor?: string) => Promise<CallToolResult>): Promise<string[]> {
  const items: string[] = [];
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    const result = await call(cursor);
    const page = ok<SearchPage>(result);
    if (maxChars !== undefined) expect(textOf(result).length).toBeLessThanOrEqual(maxChars);
    const got = [...(page.hits ?? []).map((hit) => hit.entity.name), ...(page.relations ?? []).map(relationKey)];
    items.push(...got);
    if (page.truncated) expect(page.nextCursor).toBeDefined();
    if (page.nextCursor === undefined) return items;
    expect(got.length).toBeGreaterThan(0);
    cursor = page.nextCursor;
    if (pages > 200) throw new Error("no progress");
  }
}
const budgets = fc.integer({ min: 1500, max: 12_000 });
// The hub entity's page holds its 40 outgoing relations (read_graph lists a relation with its source; search_nodes with its
// best-ranked end, each with its version): budgets below its size are refused, as the "too small" test shows.
const largeBudgets = fc.integer({ min: 13_000, max: 40_000 });
// A search_entities hit carries its observations twice (observations and matchedObservations): up to about 2,200 characters.
// These stay below a page of 30 hits or 30 relations, so every run cuts its first page.
const hitBudgets = fc.integer({ min: 4000, max: 7000 });

describe("maxChars: never exceeded, and the continuation returns the rest exactly once", () => {
  test("read_graph", async () => {
    const whole = ok<Graph>(await mcp.call("read_graph", { workspaceName: ws }));
    await fc.assert(
      fc.asyncProperty(largeBudgets, fc.constantFrom("full", "names"), async (maxChars, mode) => {
        const all = mode === "full" ? whole : ok<Graph>(await mcp.call("read_graph", { workspaceName: ws, mode }));
        const got = await follow(
          maxChars,
          ({ cursor }) => mcp.call("read_graph", { workspaceName: ws, mode, maxChars, ...(cursor ? { cursor } : {}) }),
          false,
        );
        expect(sorted(got.entities)).toEqual(sorted(all.entities.map((e) => e.name)));
        expect(sorted(got.relations)).toEqual(sorted(all.relations.map(relationKey)));
        if (mode === "full" && maxChars < JSON.stringify(whole).length) expect(got.pages).toBeGreaterThan(1);
      }),
      { numRuns: 12 },
    );
  }, 120_000);

  test("read_graph with limit: the budget cuts within each page", async () => {
    const whole = ok<Graph>(await mcp.call("read_graph", { workspaceName: ws }));
    const got = await follow(
      13_000,
      ({ cursor }) => mcp.call("read_graph", { workspaceName: ws, limit: 7, maxChars: 13_000, ...(cursor ? { cursor } : {}) }),
      false,
    );
    expect(sorted(got.entities)).toEqual(sorted(whole.entities.map((e) => e.name)));
    expect(sorted(got.relations)).toEqual(sorted(whole.relations.map(relationKey)));
  }, 60_000);

  test("get_neighbors", async () => {
    const args = { workspaceName: ws, entityName: names[3]!, depth: 2, direction: "both" };
    const whole = ok<Graph>(await mcp.call("get_neighbors", args));
    expect(whole.entities.length).toBeGreaterThan(N / 2);
    await fc.assert(
      fc.asyncProperty(budgets, async (maxChars) => {
        const got = await follow(
          maxChars,
          ({ cursor }) => mcp.call("get_neighbors", { ...args, maxChars, ...(cursor ? { cursor } : {}) }),
          false,
        );
        expect(got.entities).toEqual(whole.entities.map((e) => e.name));
        expect(sorted(got.relations)).toEqual(sorted(whole.relations.map(relationKey)));
      }),
      { numRuns: 6 },
    );
  }, 120_000);

  test("search_nodes (official shape; the cursor is in a second text block)", async () => {
    const whole = ok<Graph>(await mcp.call("search_nodes", { workspaceName: ws, query: "fact", limit: 30 }));
    expect(whole.entities).toHaveLength(30);
    await fc.assert(
      fc.asyncProperty(largeBudgets, async (maxChars) => {
        const got = await follow(
          maxChars,
          ({ cursor }) =>
            mcp.call("search_nodes", { workspaceName: ws, query: "fact", limit: 30, maxChars, ...(cursor ? { cursor } : {}) }),
          true,
        );
        expect(got.entities).toEqual(whole.entities.map((e) => e.name));
        expect(sorted(got.relations)).toEqual(sorted(whole.relations.map(relationKey)));
      }),
      { numRuns: 12 },
    );
  }, 120_000);

  test.each([
    ["search_entities", { query: "fact", limit: 30 }],
    ["search_relations", { relationType: "hub", limit: 30 }],
  ] as const)(
    "%s (the budget cuts at whole hits; nextCursor continues after the last one shown)",
    async (tool, filters) => {
      const args = { workspaceName: ws, ...filters };
      const whole = await followSearch(undefined, (cursor) => mcp.call(tool, { ...args, ...(cursor ? { cursor } : {}) }));
      expect(whole.length).toBeGreaterThan(30);
      await fc.assert(
        fc.asyncProperty(hitBudgets, async (maxChars) => {
          const pages: boolean[] = [];
          const got = await followSearch(maxChars, async (cursor) => {
            const result = await mcp.call(tool, { ...args, maxChars, ...(cursor ? { cursor } : {}) });
            pages.push(ok<SearchPage>(result).truncated === true);
            return result;
          });
          expect(got).toEqual(whole);
          expect(pages[0]).toBe(true);
        }),
        { numRuns: 6 },
      );
    },
    120_000,
  );

  test("open_nodes (official shape; the names not returned are in a second text block)", async () => {
    const asked = names.slice(5, 30);
    const whole = ok<Graph>(await mcp.call("open_nodes", { workspaceName: ws, names: asked }));
    await fc.assert(
      fc.asyncProperty(budgets, async (maxChars) => {
        const got = await follow(
          maxChars,
          ({ names: rest }) => mcp.call("open_nodes", { workspaceName: ws, names: rest ?? asked, maxChars }),
          true,
        );
        expect(got.entities).toEqual(whole.entities.map((e) => e.name));
        expect(sorted(got.relations)).toEqual(sorted(whole.relations.map(relationKey)));
      }),
      { numRuns: 12 },
    );
  }, 120_000);
});

describe("bad budgets get a clear error", () => {
  test.each(["read_graph", "get_neighbors", "search_nodes", "open_nodes"])("%s: maxChars 0, or too small for one entity", async (tool) => {
    const args: Record<string, unknown> =
      tool === "get_neighbors"
        ? { entityName: names[1] }
        : tool === "search_nodes"
          ? { query: "fact" }
          : tool === "open_nodes"
            ? { names }
            : {};
    const zero = failed(await mcp.call(tool, { workspaceName: ws, ...args, maxChars: 0 }));
    expect(zero).toMatchObject({ error: "ValidationError", message: expect.stringContaining("maxChars must be a whole number from 1") });
    const tiny = failed(await mcp.call(tool, { workspaceName: ws, ...args, maxChars: 60 }));
    expect(tiny).toMatchObject({
      error: "ValidationError",
      message: expect.stringMatching(/maxChars 60 is too small: .* Raise maxChars to at least \d+/),
    });
  });

  test.each([
    ["search_entities", { query: "fact" }],
    ["search_relations", { relationType: "hub" }],
  ] as const)("%s: maxChars 0, or too small for one hit", async (tool, filters) => {
    const zero = failed(await mcp.call(tool, { workspaceName: ws, ...filters, maxChars: 0 }));
    expect(zero).toMatchObject({ error: "ValidationError", message: expect.stringContaining("maxChars must be a whole number from 1") });
    const tiny = failed(await mcp.call(tool, { workspaceName: ws, ...filters, maxChars: 60 }));
    expect(tiny).toMatchObject({
      error: "ValidationError",
      message: expect.stringMatching(/maxChars 60 is too small: .* Raise maxChars to at least \d+/),
    });
  });

  test("a cursor of another query is refused", async () => {
    const first = await mcp.call("search_nodes", { workspaceName: ws, query: "fact", maxChars: 12_000 });
    const cursor = noteOf(first)!.cursor!;
    const error = failed(await mcp.call("search_nodes", { workspaceName: ws, query: "item", cursor }));
    expect(error).toMatchObject({ error: "ValidationError", message: expect.stringContaining("cursor is not one search_nodes issued") });
  });

  test("read_graph refuses maxChars with asOf", async () => {
    const error = failed(await mcp.call("read_graph", { workspaceName: ws, maxChars: 5000, asOf: new Date().toISOString() }));
    expect(error).toMatchObject({ error: "ValidationError", message: expect.stringContaining("Omit one of them") });
  });
});

describe("maxTokens (get_context, docs/context.md#the-token-rule): never exceeded, whatever the budget", () => {
  test("over the hub and its ring, at budgets from the smallest up", async () => {
    const args = { workspaceName: ws, query: "fact", entityNames: [names[0]!, names[7]!] };
    type Pack = { items: { source: { kind: string; name?: string }; text: string }[]; tokens: number; omitted: Record<string, number> };
    const counts: number[] = [];
    for (const maxTokens of [100, 250, 600, 1500, 4000, 20_000]) {
      const result = await mcp.call("get_context", { ...args, maxTokens });
      const pack = ok<Pack>(result);
      expect(pack.tokens).toBeLessThanOrEqual(maxTokens);
      // The rule (ceil(chars / 4) + 2 per item, 40 for the frame) recomputed from the answer, and the brief within it.
      expect(pack.tokens).toBe(pack.items.reduce((sum, item) => sum + Math.ceil(item.text.length / 4) + 2, 40));
      expect(textOf(result).length).toBeLessThanOrEqual(4 * pack.tokens);
      // The first entity named ranks first at every budget.
      expect(pack.items[0]?.source).toMatchObject({ kind: "entity", name: names[0] });
      counts.push(pack.items.length);
    }
    // The largest budget holds everything gathered, so no smaller one packs more.
    const all = ok<Pack>(await mcp.call("get_context", { ...args, maxTokens: 20_000 }));
    expect(Object.values(all.omitted).reduce((a, b) => a + b, 0)).toBe(0);
    expect(Math.max(...counts)).toBe(all.items.length);
    expect(counts[0]).toBeLessThan(all.items.length);
  }, 60_000);
});
