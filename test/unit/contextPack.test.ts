import { describe, expect, test } from "@jest/globals";
import fc from "fast-check";

import {
  CHARS_PER_TOKEN,
  type ContextCandidate,
  contextKey,
  contextTokens,
  entityKey,
  FRAME_TOKENS,
  itemTokens,
  packContext,
  renderBrief,
} from "../../src/domain/rules/contextPack.js";

/** The packing rule without storage: budgets, dedupe, ranking, what an item needs packed before it, and the brief's size. */

const entity = (id: string, relevance: number, text = `${id} (thing)`): ContextCandidate => ({
  source: { kind: "entity", id, name: id },
  text,
  relevance,
});
const observation = (of: string, text: string, relevance: number): ContextCandidate => ({
  source: { kind: "observation", entity: of, observation: text },
  text,
  relevance,
  requires: [entityKey(of)],
});

describe("the token rule", () => {
  test("ceil(chars / 4) + 2 per item, 40 for the frame", () => {
    expect(itemTokens("")).toBe(2);
    expect(itemTokens("abcd")).toBe(3);
    expect(itemTokens("abcde")).toBe(4);
    expect(contextTokens([{ text: "abcd" }, { text: "x" }])).toBe(FRAME_TOKENS + 3 + 3);
  });
});

describe("packContext", () => {
  test("keeps the most relevant copy of a duplicate, in rank order", () => {
    const pack = packContext([entity("A", 0.2), entity("B", 0.5), entity("A", 0.9)], 1000);
    expect(pack.items.map((item) => [contextKey(item.source), item.relevance])).toEqual([
      ["entity:A", 0.9],
      ["entity:B", 0.5],
    ]);
    expect(pack.omitted).toEqual({ entity: 0, observation: 0, relation: 0, event: 0 });
  });

  test("skips what does not fit and still packs smaller items after it", () => {
    const pack = packContext([entity("A", 1), entity("Big", 0.9, "x".repeat(400)), entity("C", 0.8)], FRAME_TOKENS + 20);
    expect(pack.items.map((item) => contextKey(item.source))).toEqual(["entity:A", "entity:C"]);
    expect(pack.omitted.entity).toBe(1);
    expect(pack.tokens).toBe(contextTokens(pack.items));
  });

  test("an observation whose entity was left out is left out too", () => {
    const pack = packContext([entity("Big", 1, "x".repeat(400)), observation("Big", "fact", 0.9), entity("B", 0.5)], FRAME_TOKENS + 30);
    expect(pack.items.map((item) => contextKey(item.source))).toEqual(["entity:B"]);
    expect(pack.omitted).toEqual({ entity: 1, observation: 1, relation: 0, event: 0 });
  });

  test("an item never ranks above what it requires, and one requiring a missing key is left out", () => {
    const relation: ContextCandidate = {
      source: { kind: "relation", id: "r", from: "A", relationType: "knows", to: "B" },
      text: "A -[knows]-> B",
      relevance: 0.9,
      requires: [entityKey("A"), entityKey("B")],
    };
    const pack = packContext([relation, entity("A", 1), entity("B", 0.1), observation("Gone", "orphan", 1)], 1000);
    expect(pack.items.map((item) => [contextKey(item.source), item.relevance])).toEqual([
      ["entity:A", 1],
      ["entity:B", 0.1],
      ["relation:r", 0.1],
    ]);
    expect(pack.omitted.observation).toBe(1);
  });

  test("property: never over budget, no key twice, every requirement packed first, brief within 4 chars a token", () => {
    const candidate = fc.oneof(
      fc
        .record({
          id: fc.constantFrom("A", "B", "C", "D"),
          text: fc.string({ maxLength: 300 }),
          relevance: fc.double({ min: 0, max: 1, noNaN: true }),
        })
        .map(({ id, text, relevance }) => entity(id, relevance, text)),
      fc
        .record({
          of: fc.constantFrom("A", "B", "C", "D"),
          text: fc.string({ maxLength: 300 }),
          relevance: fc.double({ min: 0, max: 1, noNaN: true }),
        })
        .map(({ of, text, relevance }) => observation(of, text, relevance)),
    );
    fc.assert(
      fc.property(fc.array(candidate, { maxLength: 40 }), fc.integer({ min: 100, max: 2000 }), (candidates, maxTokens) => {
        const pack = packContext(candidates, maxTokens);
        expect(pack.tokens).toBe(contextTokens(pack.items));
        expect(pack.tokens).toBeLessThanOrEqual(maxTokens);
        const keys = pack.items.map((item) => contextKey(item.source));
        expect(new Set(keys).size).toBe(keys.length);
        pack.items.forEach((item, i) => {
          for (const required of item.requires ?? []) expect(keys.slice(0, i)).toContain(required);
          if (i > 0) expect(item.relevance).toBeLessThanOrEqual(pack.items[i - 1]!.relevance);
        });
        const distinct = new Set(candidates.map((c) => contextKey(c.source))).size;
        const omitted = Object.values(pack.omitted).reduce((a, b) => a + b, 0);
        expect(pack.items.length + omitted).toBe(distinct);
        expect(renderBrief("w".repeat(63), pack.items).length).toBeLessThanOrEqual(CHARS_PER_TOKEN * pack.tokens);
      }),
      { numRuns: 200 },
    );
  });
});

describe("renderBrief", () => {
  test("entities with their observations, then relations, then recent changes", () => {
    const pack = packContext(
      [
        entity("Alice", 1, "Alice (person)"),
        observation("Alice", "likes tea", 0.6),
        {
          source: { kind: "relation", id: "r1", from: "Alice", relationType: "knows", to: "Bob" },
          text: "Alice -[knows]-> Bob",
          relevance: 0.3,
        },
        { source: { kind: "event", id: "e1", at: "2026-12-01T00:00:00.000Z", tool: "upsert_entity" }, text: "2026 change", relevance: 0.2 },
      ],
      1000,
    );
    expect(renderBrief("team", pack.items)).toBe(
      [
        "# Memory context: team",
        "",
        "## Entities",
        "- Alice (person)",
        "  - likes tea",
        "",
        "## Relations",
        "- Alice -[knows]-> Bob",
        "",
        "## Recent changes",
        "- 2026 change",
      ].join("\n"),
    );
  });
});
