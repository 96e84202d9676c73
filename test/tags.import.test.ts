import { describe, expect, test } from "@jest/globals";

import type { ImportInput } from "../src/domain/services/importGraph.js";
import { connectClient, ok, type TestServer, uniqueWorkspace, withTestServer } from "./support/harness.js";
import { partitionRows } from "./support/rawRows.js";

/** Importing tags (what the CLI's import hands the domain), against real storage, checked through the MCP server. */

let server: TestServer;

withTestServer((started) => {
  server = started;
});

const input = (): ImportInput => ({
  entities: [
    { name: "Alice", entityType: "person", observations: ["likes tea", "works at Acme"], line: 1 },
    { name: "Bob", entityType: "person", observations: [], line: 2 },
  ],
  relations: [{ from: "Alice", to: "Bob", relationType: "knows", line: 3 }],
  tags: [
    { name: "vip", category: "priority", description: "Answer first.", line: 4 },
    { name: "confidence:low", category: "confidence", description: "", line: 5 },
  ],
  taggings: [
    { entityName: "Alice", tagNames: ["vip", "team-a"], line: 6 },
    { entityName: "Alice", observation: "likes tea", tagNames: ["confidence:low"], line: 7 },
    { entityName: "Bob", tagNames: ["team-a"], line: 8 },
    { entityName: "Alice", tagNames: ["vip", "extra"], line: 9 },
    { entityName: "Ghost", tagNames: ["vip"], line: 10 },
    { entityName: "Bob", observation: "never said", tagNames: ["vip"], line: 11 },
  ],
});

async function etags(ws: string): Promise<Map<string, string>> {
  const rows = new Map<string, string>();
  for (const row of await partitionRows(server.app.storage.table, ws)) rows.set(row.rowKey, row.etag!);
  return rows;
}

describe("importing tags", () => {
  test("creates missing definitions, puts tags on entities and observations, reports targets that do not exist, and a second run writes nothing", async () => {
    const ws = uniqueWorkspace("tag-import");
    const client = await connectClient(server.url, `/api/workspaces/${ws}/mcp`);
    try {
      ok(await client.call("define_tag", { name: "vip", category: "stored", description: "kept" }));
      const report = await server.app.services.graph.importGraph(ws, { principal: "cli", tool: "import" }, input());
      expect(report).toMatchObject({
        tagsCreated: 1,
        tagsExisting: 1,
        tagLinksAdded: 5,
        missingTagTargets: [
          { line: 10, entityName: "Ghost", missing: "entity" },
          { line: 11, entityName: "Bob", observation: "never said", missing: "observation" },
        ],
      });
      expect(ok(await client.call("get_all_tags"))).toEqual({
        tags: [
          { name: "confidence:low", category: "confidence", description: "" },
          { name: "extra", category: "", description: "" },
          { name: "team-a", category: "", description: "" },
          { name: "vip", category: "stored", description: "kept" },
        ],
      });
      expect(ok<{ entities: unknown[] }>(await client.call("open_nodes", { names: ["Alice", "Bob"] })).entities).toEqual([
        {
          name: "Alice",
          entityType: "person",
          observations: ["likes tea", "works at Acme"],
          tags: ["extra", "team-a", "vip"],
          observationTags: { "likes tea": ["confidence:low"] },
        },
        { name: "Bob", entityType: "person", observations: [], tags: ["team-a"] },
      ]);

      const before = await etags(ws);
      const again = await server.app.services.graph.importGraph(ws, { principal: "cli", tool: "import" }, input());
      expect(again).toMatchObject({ tagsCreated: 0, tagsExisting: 2, tagLinksAdded: 0 });
      expect(await etags(ws)).toEqual(before);
    } finally {
      await client.close();
    }
  });
});
