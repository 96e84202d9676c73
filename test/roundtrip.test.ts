import { describe, expect, test } from "@jest/globals";

import { failed, type McpTestClient, ok, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import type { GraphOut } from "./support/outputs.js";

let mcp: McpTestClient;
withServerAndClient((_server, client) => {
  mcp = client;
});

const tricky = [
  "a || b || c",
  "She said \"hi\" and 'bye'",
  "line one\nline two\r\nline three\ttabbed",
  "emoji 🧠🚀 and combining e\u0301 and CJK 記憶",
  "odata ' or PartitionKey ne '",
  "backslash \\ slash / hash # question ?",
  "\u0000 nul and \u0007 bell",
  " leading and trailing spaces ",
  "x".repeat(32_768),
  "🧠".repeat(16_384), // 32,768 UTF-16 code units, 65,536 UTF-8 bytes
];

describe("exact round trip", () => {
  test("observations with delimiters, quotes, newlines, emoji and 32,768 characters come back exactly", async () => {
    const ws = uniqueWorkspace();
    ok(
      await mcp.call("upsert_entity", {
        workspaceName: ws,
        name: "Tricky 'name' || \"x\"",
        entityType: "t/ype#?",
        observations: tricky,
        metadata: { note: "é\n🧠", nested: { a: [1, "two"] } },
      }),
    );
    const graph = ok<GraphOut>(await mcp.call("read_graph", { workspaceName: ws }));
    expect(graph.entities).toHaveLength(1);
    expect(graph.entities[0]!.name).toBe("Tricky 'name' || \"x\"");
    expect(graph.entities[0]!.observations).toEqual(tricky);
    expect(graph.entities[0]!.metadata).toEqual({ note: "é\n🧠", nested: { a: [1, "two"] } });
  });

  test("an observation over 32,768 characters is rejected with a clear error and nothing is written", async () => {
    const ws = uniqueWorkspace();
    const error = failed(
      await mcp.call("upsert_entity", { workspaceName: ws, name: "Big", entityType: "t", observations: ["fine", "x".repeat(32_769)] }),
    );
    expect(error.error).toBe("ValidationError");
    expect(error.message).toMatch(/observations\[1\]/);
    expect(error.message).toMatch(/32768/);
    expect(ok<GraphOut>(await mcp.call("read_graph", { workspaceName: ws })).entities).toEqual([]);
  });

  test("metadata over the property limit is rejected, not truncated", async () => {
    const ws = uniqueWorkspace();
    const error = failed(
      await mcp.call("upsert_entity", { workspaceName: ws, name: "M", entityType: "t", metadata: { blob: "y".repeat(40_000) } }),
    );
    expect(error).toMatchObject({ error: "ValidationError" });
    expect(error.message).toMatch(/metadata/);
    expect(ok<GraphOut>(await mcp.call("read_graph", { workspaceName: ws })).entities).toEqual([]);
  });

  test("unpaired surrogates are refused (they cannot be stored faithfully)", async () => {
    const ws = uniqueWorkspace();
    const error = failed(
      await mcp.call("upsert_entity", { workspaceName: ws, name: "S", entityType: "t", observations: ["bad \ud800 half"] }),
    );
    expect(error.message).toMatch(/surrogate/);
  });
});

describe("isolation and injection", () => {
  test("OData-looking names never reach another workspace", async () => {
    const victim = uniqueWorkspace("victim");
    const attacker = uniqueWorkspace("attacker");
    ok(await mcp.call("upsert_entity", { workspaceName: victim, name: "secret", entityType: "t", observations: ["classified"] }));
    const injection = "x' or PartitionKey ne '";
    ok(await mcp.call("upsert_entity", { workspaceName: attacker, name: injection, entityType: "t" }));
    const relations = ok<{ relations: unknown[] }>(
      await mcp.call("get_entity_relations", { workspaceName: attacker, entityName: injection, direction: "both" }),
    );
    expect(relations.relations).toEqual([]);
    const missing = failed(await mcp.call("get_entity_relations", { workspaceName: attacker, entityName: "secret' or '1' eq '1" }));
    expect(missing.error).toBe("NotFoundError");
    const graph = ok<GraphOut>(await mcp.call("read_graph", { workspaceName: attacker }));
    expect(graph.entities.map((e) => e.name)).toEqual([injection]);
  });

  test("workspaces with the same entity names stay separate", async () => {
    const one = uniqueWorkspace();
    const two = uniqueWorkspace();
    ok(await mcp.call("upsert_entity", { workspaceName: one, name: "Shared", entityType: "t", observations: ["from one"] }));
    ok(await mcp.call("upsert_entity", { workspaceName: two, name: "Shared", entityType: "t", observations: ["from two"] }));
    expect(ok<GraphOut>(await mcp.call("read_graph", { workspaceName: one })).entities[0]!.observations).toEqual(["from one"]);
    expect(ok<GraphOut>(await mcp.call("read_graph", { workspaceName: two })).entities[0]!.observations).toEqual(["from two"]);
  });

  test.each([
    ["a/b", "a/b"],
    ["empty", ""],
    ["64 characters", "w".repeat(64)],
    ["a leading dot", ".hidden"],
    ["a quote", "x' or PartitionKey ne '"],
  ])("an invalid workspace name (%s) is a ValidationError", async (_label, workspaceName) => {
    const error = failed(await mcp.call("read_graph", { workspaceName }));
    expect(error.error).toBe("ValidationError");
    expect(error.message).toMatch(/Invalid workspaceName/);
  });

  test("a 63-character workspace name is valid", async () => {
    ok(await mcp.call("read_graph", { workspaceName: "w".repeat(63) }));
  });
});
