import { describe, expect, test } from "@jest/globals";

import { structuredOf } from "../../src/viewer/shapes.js";
import { edgeKey, type EdgeView, mergeSlice, type NodeView, pathParts, pathText } from "../../src/viewer/slice.js";

/** What a slice (an expansion, a filter's match, a path) adds to what the viewer holds (src/viewer/slice.ts). */
function held(entities: NodeView[], relations: EdgeView[] = []) {
  return {
    entities: new Map(entities.map((entity) => [entity.name, entity])),
    relations: new Map(relations.map((relation) => [edgeKey(relation), relation])),
  };
}

describe("merging a slice", () => {
  test("returns only the new entities, and the new relations whose ends are both held", () => {
    const graph = held([{ name: "A", entityType: "service" }], [{ from: "A", to: "X", relationType: "uses" }]);
    const { fresh, links } = mergeSlice(graph, {
      entities: [
        { name: "A", entityType: "service", degree: 3 },
        { name: "B", entityType: "team" },
      ],
      relations: [
        { from: "B", to: "A", relationType: "owns" },
        { from: "A", to: "X", relationType: "uses" },
        { from: "B", to: "Z", relationType: "knows" },
      ],
    });
    expect(fresh.map((entity) => entity.name)).toEqual(["B"]);
    expect(links).toEqual([{ from: "B", to: "A", relationType: "owns" }]);
    expect(graph.entities.get("A")).toEqual({ name: "A", entityType: "service", degree: 3 });
    // A relation to an entity not held is kept, to draw once its other end arrives.
    expect(graph.relations.has(edgeKey({ from: "B", to: "Z", relationType: "knows" }))).toBe(true);
  });

  test("an entity whose type the slice does not know keeps the type it had", () => {
    const graph = held([{ name: "A", entityType: "service" }]);
    mergeSlice(graph, { entities: [{ name: "A", entityType: "" }], relations: [] });
    expect(graph.entities.get("A")?.entityType).toBe("service");
  });
});

describe("a find_path result", () => {
  const path = [
    { kind: "entity" as const, name: "Alice" },
    { kind: "relation" as const, from: "Alice", to: "Billing", relationType: "maintains" },
    { kind: "entity" as const, name: "Billing" },
    { kind: "relation" as const, from: "Ledger", to: "Billing", relationType: "feeds" },
    { kind: "entity" as const, name: "Ledger" },
  ];

  test("splits into the names and relations to mark", () => {
    expect(pathParts(path)).toEqual({
      names: ["Alice", "Billing", "Ledger"],
      relations: [
        { from: "Alice", to: "Billing", relationType: "maintains" },
        { from: "Ledger", to: "Billing", relationType: "feeds" },
      ],
    });
  });

  test("reads as one line, with each relation's direction", () => {
    expect(pathText(pathParts(path))).toBe("Alice —maintains→ Billing ←feeds— Ledger");
  });
});

describe("a tool result, as the viewer reads it", () => {
  test("gives the structured content", () => {
    expect(structuredOf("t", { structuredContent: { a: 1 }, content: [{ type: "text", text: "{}" }] })).toEqual({ a: 1 });
  });

  test("throws a success without structured content: an input_required question, or a result it cannot read", () => {
    // What a 2026-07-28 client with elicitation may get from merge_entities: a question for its user, no content.
    const asking = { resultType: "input_required", inputRequests: { confirm: {} }, requestState: "sealed" };
    expect(() => structuredOf("merge_entities", asking)).toThrow(/merge_entities did not run: .*confirm.* Nothing was changed/);
    expect(() => structuredOf("merge_entities", { content: [{ type: "text", text: "Asked the user to confirm." }] })).toThrow(
      "merge_entities answered without a structured result",
    );
    expect(() => structuredOf("t", { content: [{ type: "text", text: '{"b":2}' }] })).toThrow("t answered without a structured result");
  });

  test("throws an error result with the server's message, which says how to recover", () => {
    expect(() => structuredOf("merge_entities", { isError: true, structuredContent: { message: "Pass confirm: true to merge." } })).toThrow(
      "Pass confirm: true to merge.",
    );
    expect(() => structuredOf("x", { isError: true, content: [{ type: "text", text: "Unknown tool x." }] })).toThrow("Unknown tool x.");
    expect(() => structuredOf("x", { isError: true })).toThrow("x failed.");
  });
});
