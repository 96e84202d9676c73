import { describe, expect, test } from "@jest/globals";

import {
  blockingKeys,
  DEFAULT_DUPLICATE_THRESHOLD,
  type DuplicateCandidate,
  findDuplicates,
  nameSimilarity,
  nameTokens,
} from "../../src/domain/rules/duplicates.js";
import { CORPUS, CORPUS_RELATIONS, KNOWN_DIFFERENT, KNOWN_DUPLICATES, pairKey } from "../support/duplicateCorpus.js";

/** The pure rules of duplicate detection, on the fixed corpus (no storage). */
function candidates(): DuplicateCandidate[] {
  return CORPUS.map((entity) => ({
    id: entity.name,
    name: entity.name,
    entityType: entity.entityType,
    observations: entity.observations,
    neighbours: CORPUS_RELATIONS.flatMap((r) => (r.from === entity.name ? [r.to] : r.to === entity.name ? [r.from] : [])),
  }));
}

describe("duplicate rules", () => {
  test("names are normalised: case, accents, punctuation, camelCase", () => {
    expect(nameTokens("José  García")).toEqual(["jose", "garcia"]);
    expect(nameTokens("DataPipeline")).toEqual(["data", "pipeline"]);
    expect(nameTokens("alice_smith")).toEqual(["alice", "smith"]);
    expect(nameSimilarity("Smith, Alice", "alice smith").score).toBe(1);
    expect(nameSimilarity("A. Smith", "Alice Smith").reason).toMatch(/abbreviates/);
  });

  test("the corpus: every known pair above the default threshold, no known non-duplicate listed", async () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(60);
    const { pairs, comparisons } = await findDuplicates(candidates(), { threshold: DEFAULT_DUPLICATE_THRESHOLD, limit: 1000 });
    const listed = new Set(pairs.map((pair) => pairKey(pair.a.name, pair.b.name)));
    for (const known of KNOWN_DUPLICATES) expect([known, listed.has(known)]).toEqual([known, true]);
    for (const different of KNOWN_DIFFERENT) expect([different, listed.has(different)]).toEqual([different, false]);
    // Blocking: far fewer comparisons than every pair.
    const all = (CORPUS.length * (CORPUS.length - 1)) / 2;
    expect(comparisons).toBeLessThan(all / 10);
    expect(pairs.find((pair) => pairKey(pair.a.name, pair.b.name) === pairKey("Robert Jones", "Bob Jones"))?.reasons).toEqual(
      expect.arrayContaining(["3 observations in common", "2 neighbours in common"]),
    );
  });

  test("candidate generation grows with the blocks, not the square of the workspace", async () => {
    // 2,000 people in 50 families: everyone shares "person" (a block too big to compare within), each family its name.
    const many = Array.from({ length: 2000 }, (_, i) => ({
      id: String(i),
      name: `Person ${i} Family${i % 50}`,
      entityType: "t",
      observations: [],
      neighbours: [],
    }));
    const { comparisons } = await findDuplicates(many, { threshold: 0.8, limit: 10 });
    const allPairs = (2000 * 1999) / 2;
    expect(comparisons).toBeGreaterThan(0);
    expect(comparisons).toBeLessThan(allPairs / 20);
    expect(blockingKeys("Alice Smith")).toEqual(expect.arrayContaining(["t:alice", "t:smith"]));
  });
});
