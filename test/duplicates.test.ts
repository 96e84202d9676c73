import { describe, expect, test } from "@jest/globals";

import { CORPUS, CORPUS_RELATIONS, KNOWN_DIFFERENT, KNOWN_DUPLICATES, pairKey } from "./support/duplicateCorpus.js";
import { failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";

/** detect_duplicate_entities through MCP on the fixed corpus (test/support/duplicateCorpus.ts). */
let server: TestServer;
let mcp: McpTestClient;
withServerAndClient((started, client) => {
  server = started;
  mcp = client;
});

type Detected = {
  pairs: { a: { name: string }; b: { name: string }; score: number; reasons: string[] }[];
  comparisons: number;
  entities: number;
};

describe("detect_duplicate_entities", () => {
  test("finds every known pair above the default threshold, lists no known non-duplicate, in one scan, without comparing every pair", async () => {
    const ws = uniqueWorkspace();
    ok(await mcp.call("create_entities", { workspaceName: ws, entities: CORPUS }));
    ok(await mcp.call("create_relations", { workspaceName: ws, relations: CORPUS_RELATIONS }));
    const before = server.requests();
    const detected = ok<Detected>(await mcp.call("detect_duplicate_entities", { workspaceName: ws }));
    // The scan and the rejected pairs' range read, in parallel (docs/curate.md#rejecting-a-pair).
    expect(server.requests() - before).toBe(2);
    expect(detected.entities).toBe(CORPUS.length);
    const listed = new Set(detected.pairs.map((pair) => pairKey(pair.a.name, pair.b.name)));
    expect(KNOWN_DUPLICATES.filter((known) => !listed.has(known))).toEqual([]);
    expect(KNOWN_DIFFERENT.filter((different) => listed.has(different))).toEqual([]);
    for (const pair of detected.pairs) expect(pair.score).toBeGreaterThanOrEqual(0.8);
    expect(detected.comparisons).toBeLessThan((CORPUS.length * (CORPUS.length - 1)) / 2 / 10);
    const scores = detected.pairs.map((pair) => pair.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  test("entityType, threshold and limit narrow the answer; bad values are validation errors", async () => {
    const ws = uniqueWorkspace();
    ok(await mcp.call("create_entities", { workspaceName: ws, entities: CORPUS }));
    const orgs = ok<Detected>(await mcp.call("detect_duplicate_entities", { workspaceName: ws, entityType: "organization" }));
    expect(orgs.pairs.map((pair) => pairKey(pair.a.name, pair.b.name))).toEqual([pairKey("Acme Corporation", "Acme Corp")]);
    expect(ok<Detected>(await mcp.call("detect_duplicate_entities", { workspaceName: ws, limit: 2 })).pairs).toHaveLength(2);
    const loose = ok<Detected>(await mcp.call("detect_duplicate_entities", { workspaceName: ws, threshold: 0.5 }));
    expect(loose.pairs.length).toBeGreaterThan(KNOWN_DUPLICATES.length);
    expect(failed(await mcp.call("detect_duplicate_entities", { workspaceName: ws, threshold: 2 })).error).toBe("ValidationError");
  });
});
