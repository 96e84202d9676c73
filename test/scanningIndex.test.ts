import { describe, expect, test } from "@jest/globals";

import type { Actor } from "../src/domain/model/model.js";
import { createServices } from "../src/runtime.js";
import { type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";

/**
 * The GraphIndex's second adapter (src/search/scanningIndex.ts): with no index kept, every whole-workspace read scans once
 * and answers exactly as the kept index does; the one-pass reads (the duplicates scan, import's look) stream from storage.
 */
let server: TestServer;
let mcp: McpTestClient;
withServerAndClient((started, client) => {
  server = started;
  mcp = client;
});

const ACTOR: Actor = { principal: "test", tool: "test" };

describe("the scanning GraphIndex", () => {
  test("answers read_graph, search_nodes, tags, search and stats as the kept index does, one scan (one request) per answer", async () => {
    const ws = uniqueWorkspace("scan");
    ok(
      await mcp.call("create_entities", {
        workspaceName: ws,
        entities: [
          { name: "Alice", entityType: "person", observations: ["likes tea", "works on search"] },
          { name: "Bob", entityType: "person", observations: ["likes coffee"] },
          { name: "Search", entityType: "project", observations: ["ranked search"] },
        ],
      }),
    );
    ok(await mcp.call("create_relations", { workspaceName: ws, relations: [{ from: "Alice", to: "Search", relationType: "works_on" }] }));
    ok(await mcp.call("tag_entity", { workspaceName: ws, entityName: "Alice", tagNames: ["core-team"] }));

    const kept = server.app.services;
    const scanning = createServices(server.app.storage, { cursorKey: server.app.cursorKey, index: "scanning" });
    const reads = [
      (s: typeof kept) => s.graph.readGraph(ws),
      (s: typeof kept) => s.graph.readGraph(ws, { limit: 2, mode: "names" }),
      (s: typeof kept) => s.graph.searchNodes(ws, "search"),
      (s: typeof kept) => s.tags.allTags(ws),
      (s: typeof kept) => s.tags.usage(ws),
      (s: typeof kept) => s.search.searchEntities(ws, { query: "search" }),
      (s: typeof kept) => s.search.searchRelations(ws, { relationType: "works_on" }),
      (s: typeof kept) => s.search.stats(ws),
    ];
    for (const read of reads) {
      const expected = await read(kept);
      const before = server.requests();
      const answer = await read(scanning);
      expect(server.requests() - before).toBe(1);
      // Cursors are signed per call; compare what they continue from, not their bytes. A read's lens carries its own read
      // time (docs/history.md#two-times): the two reads' differ by the time between them.
      const comparable = (value: unknown) =>
        JSON.stringify(value)
          .replace(/"(cursor|nextCursor)":"[^"]*"/g, '"$1":"…"')
          .replace(/"heldAt":\d+/g, '"heldAt":"…"');
      expect(comparable(answer)).toBe(comparable(expected));
    }
  });

  test("sees a write at once (nothing kept between answers), and import and duplicates read straight from storage", async () => {
    const ws = uniqueWorkspace("scan-fresh");
    const scanning = createServices(server.app.storage, { cursorKey: server.app.cursorKey, index: "scanning" });
    expect((await scanning.graph.readGraph(ws)).entities).toEqual([]);
    await scanning.core.upsertEntity(ws, ACTOR, { name: "Acme Corporation", entityType: "organization" });
    await scanning.core.upsertEntity(ws, ACTOR, { name: "Acme Corp", entityType: "organization" });
    expect((await scanning.graph.readGraph(ws)).entities.map((entity) => entity.name).sort()).toEqual(["Acme Corp", "Acme Corporation"]);

    let before = server.requests();
    const detected = await scanning.curate.detectDuplicates(ws, {});
    // The scan, and the rejected pairs read beside it (docs/curate.md#rejecting-a-pair).
    expect(server.requests() - before).toBe(2);
    expect(detected.pairs.map((pair) => [pair.a.name, pair.b.name].sort())).toEqual([["Acme Corp", "Acme Corporation"]]);

    before = server.requests();
    const report = await scanning.graph.importGraph(ws, ACTOR, {
      entities: [{ line: 1, name: "Acme Corp", entityType: "organization", observations: [] }],
      relations: [],
      tags: [{ line: 2, name: "vendor", category: "", description: "" }],
    });
    // One scan of what exists, one read of the tag definitions, then the tag's point read and create: no index built.
    expect(report).toMatchObject({ entitiesCreated: 0, tagsCreated: 1 });
    expect(server.requests() - before).toBe(1 + 1 + 2);
  });
});
