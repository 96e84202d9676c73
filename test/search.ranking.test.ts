import { beforeAll, describe, expect, test } from "@jest/globals";

import { type McpTestClient, ok, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import type { SearchHits } from "./support/outputs.js";
import { CORPUS, RANKING_CASES } from "./support/searchCorpus.js";

/** Ranking quality on the fixed corpus (issue #14): each query's expected names come first, in order, through MCP. */

let mcp: McpTestClient;
withServerAndClient((_server, client) => {
  mcp = client;
});

const ws = uniqueWorkspace("rank");
beforeAll(async () => {
  ok(await mcp.call("create_entities", { workspaceName: ws, entities: CORPUS }));
});

const search = async (args: Record<string, unknown>) => ok<SearchHits>(await mcp.call("search_entities", { workspaceName: ws, ...args }));

describe("search_entities ranks the fixed corpus", () => {
  test("the corpus and cases are as large as the issue asks", () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(40);
    expect(RANKING_CASES.length).toBeGreaterThanOrEqual(15);
    expect(new Set(RANKING_CASES.map((c) => c.covers))).toEqual(
      new Set(["exact name", "prefix", "accents", "typo", "multi-word", "observation only", "type"]),
    );
  });

  test.each(RANKING_CASES)("$covers: '$query' -> $top", async ({ query, top }) => {
    const { hits } = await search({ query, limit: 5 });
    expect(hits.slice(0, top.length).map((hit) => hit.entity.name)).toEqual(top);
  });

  test("an exact name ranks first even when another entity scores higher on the words", async () => {
    const own = uniqueWorkspace("exact");
    ok(
      await mcp.call("create_entities", {
        workspaceName: own,
        entities: [
          { name: "Redis Redis Cluster", entityType: "redis", observations: ["redis redis redis", "the redis of redis"] },
          { name: "Redis", entityType: "database", observations: ["A cache"] },
        ],
      }),
    );
    const { hits } = ok<SearchHits>(await mcp.call("search_entities", { workspaceName: own, query: "redis" }));
    expect(hits.map((hit) => hit.entity.name)).toEqual(["Redis", "Redis Redis Cluster"]);
    // The exact name is first by rule, not by score: the other entity scores higher on the words.
    expect(hits[1]!.score).toBeGreaterThan(hits[0]!.score);
  });

  test("each hit says which fields and which observations matched", async () => {
    const { hits } = await search({ query: "Zendesk" });
    expect(hits[0]).toMatchObject({ matchedFields: ["observations"], matchedObservations: ["Exported from Zendesk"] });
    const byName = await search({ query: "Kafka" });
    expect(byName.hits[0]!.matchedFields).toContain("name");
    expect(byName.hits[0]!.score).toBeGreaterThan(0);
  });

  test("typo tolerance is bounded: a short word with a typo, or two typos in a middle-length word, find nothing", async () => {
    expect((await search({ query: "kafak" })).hits.map((hit) => hit.entity.name)).not.toContain("Kafka");
    expect((await search({ query: "xqzzyv" })).hits).toEqual([]);
  });
});
