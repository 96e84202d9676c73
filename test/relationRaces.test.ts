import type { TableClient } from "@azure/data-tables";
import { describe, expect, test } from "@jest/globals";

import type { McpTestClient, TestServer } from "./support/harness.js";
import { ok, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import { partitionRows, rawTable } from "./support/rawRows.js";

/**
 * upsert_relation on an existing relation is a create (409) then a merge. A delete_relations that lands between the two
 * must not make the merge write the relation back without its createdAt and createdBy (rule 2, docs/architecture.md).
 * The delete is made to land there deterministically: a pipeline policy on the server's own client runs it right after
 * the create's transaction is answered, before the merge is sent.
 */
let server: TestServer;
let mcp: McpTestClient;
let table: TableClient;
let between: (() => Promise<void>) | undefined;

withServerAndClient((started, client) => {
  server = started;
  mcp = client;
  table = rawTable();
  server.app.storage.table.pipeline.addPolicy({
    name: "testBetweenCreateAndMerge",
    sendRequest: async (request, next) => {
      const response = await next(request);
      const hook = between;
      if (hook && request.url.includes("$batch")) {
        between = undefined;
        await hook();
      }
      return response;
    },
  });
});

async function relationRows(ws: string): Promise<Record<string, unknown>[]> {
  return partitionRows(table, ws, { only: ["relation", "edge-out", "edge-in"] });
}

describe("upsert_relation racing delete_relations", () => {
  test("a relation deleted between the create and the merge is created again, whole", async () => {
    const ws = uniqueWorkspace("relrace");
    for (const name of ["A", "B"]) ok(await mcp.call("upsert_entity", { workspaceName: ws, name, entityType: "t" }));
    ok(await mcp.call("upsert_relation", { workspaceName: ws, from: "A", to: "B", relationType: "knows" }));
    between = async () => {
      for (const row of await relationRows(ws)) await table.deleteEntity(ws, String(row.rowKey));
    };
    ok(await mcp.call("upsert_relation", { workspaceName: ws, from: "A", to: "B", relationType: "knows", metadata: { w: 2 } }));
    expect(between).toBeUndefined(); // the delete ran
    const rows = await relationRows(ws);
    expect(rows.map((row) => row.kind).sort()).toEqual(["edge-in", "edge-out", "relation"]);
    for (const row of rows) {
      expect(row).toMatchObject({ createdAt: expect.any(String), createdBy: expect.any(String), metadata: JSON.stringify({ w: 2 }) });
    }
  });
});
