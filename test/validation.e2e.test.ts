import { describe, expect, test } from "@jest/globals";

import { ALL_TOOLS } from "../src/mcp/tools/index.js";
import { failed, type McpTestClient, ok, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import type { GraphOut } from "./support/outputs.js";

/**
 * One validation authority (the domain): every tool holds text to the same rules, a rejected call
 * changes nothing, and the error is a ValidationError that says what to fix, never a StorageError
 * ("may be retried") that a client would retry forever.
 */
let mcp: McpTestClient;
withServerAndClient((_server, client) => {
  mcp = client;
});

const LONE = "bad \ud800 half";
const LONG_NAME = "n".repeat(1025);

const call = (ws: string, name: string, args: Record<string, unknown>) => mcp.call(name, { workspaceName: ws, ...args });
const graphOf = async (ws: string) => ok<GraphOut>(await call(ws, "read_graph", {}));

/** A workspace holding A (observations o1, o2), B, and the relation A -knows-> B. */
async function seeded(): Promise<string> {
  const ws = uniqueWorkspace();
  ok(
    await call(ws, "create_entities", {
      entities: [
        { name: "A", entityType: "t", observations: ["o1", "o2"] },
        { name: "B", entityType: "t", observations: [] },
      ],
    }),
  );
  ok(await call(ws, "create_relations", { relations: [{ from: "A", to: "B", relationType: "knows" }] }));
  ok(await call(ws, "tag_entity", { entityName: "A", tagNames: ["vip"] }));
  ok(await call(ws, "tag_observation", { entityName: "A", observationContent: "o1", tagNames: ["vip"] }));
  return ws;
}

/** Every text argument of every tool, given a lone surrogate, with the field the message must name. */
const SURROGATE_CALLS: [string, Record<string, unknown>, RegExp][] = [
  ["upsert_entity", { name: LONE, entityType: "t" }, /name/],
  ["upsert_entity", { name: "A", entityType: LONE }, /entityType/],
  ["upsert_entity", { name: "A", entityType: "t", observations: ["ok", LONE] }, /observations\[1\]/],
  ["upsert_relation", { from: LONE, to: "B", relationType: "r" }, /from/],
  ["upsert_relation", { from: "A", to: LONE, relationType: "r" }, /to/],
  ["upsert_relation", { from: "A", to: "B", relationType: LONE }, /relationType/],
  ["get_entity_relations", { entityName: LONE }, /entityName/],
  ["create_entities", { entities: [{ name: LONE, entityType: "t", observations: [] }] }, /entities\[0\]\.name/],
  ["create_relations", { relations: [{ from: "A", to: "B", relationType: LONE }] }, /relations\[0\]\.relationType/],
  ["add_observations", { observations: [{ entityName: "A", contents: [LONE] }] }, /observations\[0\]\.contents\[0\]/],
  ["delete_entities", { entityNames: [LONE] }, /entityNames\[0\]/],
  ["delete_observations", { deletions: [{ entityName: LONE, observations: ["o1"] }] }, /deletions\[0\]\.entityName/],
  ["delete_observations", { deletions: [{ entityName: "A", observations: [LONE] }] }, /deletions\[0\]\.observations\[0\]/],
  ["delete_relations", { relations: [{ from: LONE, to: "B", relationType: "knows" }] }, /relations\[0\]\.from/],
  ["delete_relations", { relations: [{ from: "A", to: LONE, relationType: "knows" }] }, /relations\[0\]\.to/],
  ["delete_relations", { relations: [{ from: "A", to: "B", relationType: LONE }] }, /relations\[0\]\.relationType/],
  ["open_nodes", { names: ["A", LONE] }, /names\[1\]/],
  ["search_nodes", { query: LONE }, /query/],
  ["tag_entity", { entityName: LONE, tagNames: ["x"] }, /entityName/],
  ["tag_entity", { entityName: "A", tagNames: [LONE] }, /tagNames\[0\]/],
  ["tag_observation", { entityName: "A", observationContent: LONE, tagNames: ["x"] }, /observationContent/],
  ["untag_observation", { entityName: "A", observationContent: LONE, tagNames: ["vip"] }, /observationContent/],
  ["remove_tags_from_entity", { entityName: "A", tagNames: [LONE] }, /tagNames\[0\]/],
  ["get_entities_by_tag", { tagName: LONE }, /tagName/],
  ["define_tag", { name: LONE }, /name/],
  ["define_tag", { name: "x", category: LONE }, /category/],
  ["define_tag", { name: "x", description: LONE }, /description/],
  ["delete_tags", { tagNames: [LONE] }, /tagNames\[0\]/],
  ["get_changes", { entityName: LONE }, /entityName/],
  ["get_changes", { principal: LONE }, /principal/],
  ["get_entity_history", { entityName: LONE }, /entityName/],
  ["restore_entity", { entityName: LONE }, /entityName/],
  ["list_conflicts", { key: LONE }, /key/],
  ["supersede_observation", { entityName: LONE, observation: "o1", replacement: "o2" }, /entityName/],
  ["supersede_observation", { entityName: "A", observation: LONE, replacement: "o2" }, /observation/],
  ["supersede_observation", { entityName: "A", observation: "o1", replacement: LONE }, /replacement/],
  ["end_relation", { from: LONE, to: "B", relationType: "r" }, /from/],
  ["end_relation", { from: "A", to: LONE, relationType: "r" }, /to/],
  ["end_relation", { from: "A", to: "B", relationType: LONE }, /relationType/],
  ["declare_fact_keys", { keys: [{ key: LONE, singleValued: true }] }, /keys\[0\]\.key/],
  ["set_expiry", { entityName: LONE, pinned: true }, /entityName/],
  ["set_expiry", { entityName: "A", observation: LONE, pinned: true }, /observation/],
  ["set_expiry", { entityName: "A", relation: { to: LONE, relationType: "r" }, pinned: true }, /relation/],
  ["get_context", { query: LONE }, /query/],
  ["get_context", { entityNames: [LONE] }, /entityNames\[0\]/],
  ["search_entities", { query: LONE }, /query/],
  ["search_entities", { entityType: LONE }, /entityType/],
  ["search_entities", { tags: [LONE] }, /tags\[0\]/],
  ["search_entities", { createdBy: LONE }, /createdBy/],
  ["search_relations", { relationType: LONE }, /relationType/],
  ["search_relations", { from: LONE }, /from/],
  ["search_relations", { to: LONE }, /to/],
  ["search_relations", { entityType: LONE }, /entityType/],
  ["get_neighbors", { entityName: LONE }, /entityName/],
  ["get_neighbors", { entityName: "A", relationTypes: [LONE] }, /relationTypes\[0\]/],
  ["get_neighbors", { entityName: "A", entityTypes: [LONE] }, /entityTypes\[0\]/],
  ["find_path", { from: LONE, to: "B" }, /from/],
  ["find_path", { from: "A", to: LONE }, /to/],
  ["find_path", { from: "A", to: "B", relationTypes: [LONE] }, /relationTypes\[0\]/],
  ["delete_workspace", { confirm: LONE }, /confirm/],
  [
    "execute_batch",
    { atomic: true, operations: [{ op: "upsert_entity", args: { name: LONE, entityType: "t" } }] },
    /operations\[0\]\.args\.name/,
  ],
  [
    "execute_batch",
    {
      operations: [
        { op: "upsert_entity", args: { name: "C", entityType: "t" } },
        { op: "add_observations", args: { observations: [{ entityName: "A", contents: [LONE] }] } },
      ],
    },
    /operations\[1\]\.args\.observations\[0\]\.contents\[0\]/,
  ],
  ["detect_duplicate_entities", { entityType: LONE }, /entityType/],
  // Confirmed (docs/confirmation.md), so that the text rule is what refuses them.
  ["merge_entities", { target: LONE, sources: ["A"], confirm: true }, /target/],
  ["merge_entities", { target: "A", sources: [LONE], confirm: true }, /sources\[0\]/],
  ["show_memory_graph", { entityName: LONE }, /entityName/],
  ["show_memory_graph", { query: LONE }, /query/],
  ["review_duplicates", { entityType: LONE }, /entityType/],
  ["show_entity_timeline", { entityName: LONE }, /entityName/],
  ["app_expand", { entityName: LONE }, /entityName/],
  ["app_filter", { entityType: LONE }, /entityType/],
  ["app_filter", { tag: LONE }, /tag/],
  ["app_filter", { relationType: LONE }, /relationType/],
  ["app_entity_details", { entityName: LONE }, /entityName/],
  ["reject_duplicate_pair", { a: LONE, b: "A" }, /^a /],
  ["reject_duplicate_pair", { a: "A", b: LONE }, /^b /],
];

describe("text rules are the same on every tool", () => {
  test("the table above covers every tool that takes text", () => {
    const covered = new Set(SURROGATE_CALLS.map(([tool]) => tool));
    const withoutText = ["read_graph", "get_all_tags", "get_tag_usage", "get_stats", "list_workspaces", "sweep_expired"];
    expect(ALL_TOOLS.map((tool) => tool.name).filter((name) => !covered.has(name))).toEqual(withoutText);
  });

  test.each(SURROGATE_CALLS)(
    "%s with a lone surrogate (%j) is a ValidationError naming the field, and changes nothing",
    async (tool, args, field) => {
      const ws = await seeded();
      const before = await graphOf(ws);
      const error = failed(await call(ws, tool, args));
      expect(error.error).toBe("ValidationError");
      expect(error.message).toMatch(/unpaired UTF-16 surrogate/);
      expect(error.message).toMatch(field);
      expect(await graphOf(ws)).toEqual(before);
    },
  );
});

describe("size limits hold on the delete tools too", () => {
  test.each([
    ["delete_entities", { entityNames: [LONG_NAME] }, /entityNames\[0\] is 1025 characters; the limit is 1024/],
    [
      "delete_observations",
      { deletions: [{ entityName: LONG_NAME, observations: ["o1"] }] },
      /deletions\[0\]\.entityName is 1025 characters/,
    ],
    [
      "delete_observations",
      { deletions: [{ entityName: "A", observations: ["x".repeat(32_769)] }] },
      /deletions\[0\]\.observations\[0\] is 32769/,
    ],
    ["delete_relations", { relations: [{ from: LONG_NAME, to: "B", relationType: "knows" }] }, /relations\[0\]\.from is 1025 characters/],
    ["delete_relations", { relations: [{ from: "A", to: "B", relationType: "r".repeat(257) }] }, /relations\[0\]\.relationType is 257/],
    ["open_nodes", { names: [LONG_NAME] }, /names\[0\] is 1025 characters/],
  ])("%s over a limit (%#) is a ValidationError naming the field", async (tool, args, message) => {
    const ws = await seeded();
    const error = failed(await call(ws, tool, args));
    expect(error.error).toBe("ValidationError");
    expect(error.message).toMatch(message);
  });

  test("a delete_observations call holding one invalid deletion deletes nothing", async () => {
    const ws = await seeded();
    const deletions = [
      { entityName: "A", observations: ["o1"] },
      { entityName: LONG_NAME, observations: ["o2"] },
    ];
    expect(failed(await call(ws, "delete_observations", { deletions })).error).toBe("ValidationError");
    expect((await graphOf(ws)).entities.find((entity) => entity.name === "A")!.observations).toEqual(["o1", "o2"]);
  });

  test("a delete_relations call holding one invalid relation deletes nothing", async () => {
    const ws = await seeded();
    const relations = [
      { from: "A", to: "B", relationType: "knows" },
      { from: "A", to: "B", relationType: LONE },
    ];
    expect(failed(await call(ws, "delete_relations", { relations })).error).toBe("ValidationError");
    expect((await graphOf(ws)).relations).toMatchObject([{ from: "A", to: "B", relationType: "knows" }]);
  });

  test("deleting an empty name, observation or relation type is allowed (it names nothing, so nothing is deleted)", async () => {
    const ws = await seeded();
    const before = await graphOf(ws);
    ok(await call(ws, "delete_observations", { deletions: [{ entityName: "", observations: [""] }] }));
    ok(await call(ws, "delete_relations", { relations: [{ from: "", to: "B", relationType: "" }] }));
    expect(ok<GraphOut>(await call(ws, "open_nodes", { names: [""] })).entities).toEqual([]);
    expect(await graphOf(ws)).toEqual(before);
  });
});

describe("limits that used to live only in the tool schemas are the domain's", () => {
  test.each([
    ["upsert_entity", { name: LONG_NAME, entityType: "t" }, /^name is 1025 characters; the limit is 1024/],
    ["upsert_entity", { name: "", entityType: "t" }, /^name is empty/],
    ["upsert_entity", { name: "N", entityType: "t".repeat(257) }, /^entityType is 257 characters; the limit is 256/],
    [
      "upsert_entity",
      { name: "N", entityType: "t", observations: Array.from({ length: 1001 }, (_, i) => `${i}`) },
      /^observations has 1001 items/,
    ],
    ["upsert_relation", { from: "A", to: "B", relationType: "" }, /^relationType is empty/],
    ["upsert_relation", { from: LONG_NAME, to: "B", relationType: "r" }, /^from is 1025 characters/],
    ["get_entity_relations", { entityName: "" }, /^entityName is empty/],
    ["read_graph", { limit: 0 }, /^limit must be a whole number from 1 to 1000/],
    ["read_graph", { limit: 2.5 }, /^limit must be a whole number from 1 to 1000/],
    ["search_nodes", { query: "x", limit: 1001 }, /^limit must be a whole number from 1 to 1000/],
    ["get_entities_by_tag", { tagName: "vip", limit: 0 }, /^limit must be a whole number from 1 to 1000/],
    ["define_tag", { name: "x", description: "d".repeat(4097) }, /^description is 4097 characters; the limit is 4096/],
  ])("%s (%#) is refused by the domain with its message", async (tool, args, message) => {
    const ws = await seeded();
    const before = await graphOf(ws);
    const error = failed(await call(ws, tool, args));
    expect(error.error).toBe("ValidationError");
    expect(error.message).toMatch(message);
    expect(await graphOf(ws)).toEqual(before);
  });
});

describe("one rule per field, whichever tool takes it", () => {
  test("an empty entityType and an empty observation are accepted by upsert_entity, as by create_entities", async () => {
    const ws = uniqueWorkspace();
    ok(await call(ws, "create_entities", { entities: [{ name: "Official", entityType: "", observations: [""] }] }));
    ok(await call(ws, "upsert_entity", { name: "Core", entityType: "", observations: [""] }));
    expect((await graphOf(ws)).entities.map(({ name, observations }) => ({ name, observations }))).toEqual([
      { name: "Official", observations: [""] },
      { name: "Core", observations: [""] },
    ]);
  });
});

describe("a __proto__ metadata key is refused, however metadata is sent", () => {
  const PROTO = '{"__proto__":{"polluted":true},"source":"slack"}';
  const NESTED = '{"source":{"__proto__":{"polluted":true}}}';
  test.each([
    ["an object", JSON.parse(PROTO) as unknown, /metadata\.__proto__/],
    ["a JSON string", PROTO, /metadata\.__proto__/],
    ["a nested object", JSON.parse(NESTED) as unknown, /metadata\.source\.__proto__/],
    ["a nested JSON string", NESTED, /metadata\.source\.__proto__/],
  ])(
    "upsert_entity and upsert_relation with metadata as %s: ValidationError naming the key, nothing written",
    async (_label, metadata, where) => {
      const ws = await seeded();
      const before = await graphOf(ws);
      for (const [tool, args] of [
        ["upsert_entity", { name: "C", entityType: "t", metadata }],
        ["upsert_entity", { name: "A", entityType: "t", metadata }],
        ["upsert_relation", { from: "A", to: "B", relationType: "knows", metadata }],
        ["upsert_relation", { from: "B", to: "A", relationType: "knows", metadata }],
      ] as const) {
        const error = failed(await call(ws, tool, args));
        expect(error.error).toBe("ValidationError");
        expect(error.message).toMatch(where);
        expect(error.message).toMatch(/Rename the key/);
      }
      expect(await graphOf(ws)).toEqual(before);
    },
  );

  test("other keys a JavaScript object treats specially elsewhere (constructor, prototype) are kept both ways", async () => {
    const ws = uniqueWorkspace();
    const metadata = { constructor: 1, prototype: { a: 2 } };
    ok(await call(ws, "upsert_entity", { name: "O", entityType: "t", metadata }));
    ok(await call(ws, "upsert_entity", { name: "S", entityType: "t", metadata: JSON.stringify(metadata) }));
    expect((await graphOf(ws)).entities.map((entity) => entity.metadata)).toEqual([metadata, metadata]);
  });
});
