import { describe, expect, test } from "@jest/globals";

import { contentStems, sharedContentWords } from "../bench/recall/contentWords.js";
import { CORPUS_ENTITIES, CORPUS_QUERIES, CORPUS_RELATIONS } from "../bench/recall/corpus.js";
import { ndcgAt, recallAt, reciprocalRank, scoreAll } from "../bench/recall/metrics.js";
import { searchTermsOf } from "../src/search/text.js";

/** The corpus of `npm run bench:recall` and its metrics: pure, no storage. */
const byName = new Map(CORPUS_ENTITIES.map((entity) => [entity.name, entity]));
const textOf = (name: string) => {
  const entity = byName.get(name)!;
  return [entity.name, entity.entityType, ...entity.observations].join("\n");
};
const paraphrases = CORPUS_QUERIES.filter((query) => query.kind === "paraphrase");
const keywords = CORPUS_QUERIES.filter((query) => query.kind === "keyword");

describe("the recall corpus", () => {
  test("has at least 300 entities of the kinds a team remembers, each named once with 1-5 observations", () => {
    expect(CORPUS_ENTITIES.length).toBeGreaterThanOrEqual(300);
    expect(byName.size).toBe(CORPUS_ENTITIES.length);
    for (const entity of CORPUS_ENTITIES) {
      expect(entity.observations.length).toBeGreaterThanOrEqual(1);
      expect(entity.observations.length).toBeLessThanOrEqual(5);
    }
    const types = new Set(CORPUS_ENTITIES.map((entity) => entity.entityType));
    for (const type of ["person", "team", "service", "database", "incident", "decision", "project", "customer", "vendor", "runbook"]) {
      expect(types).toContain(type);
    }
  });

  test("relates existing entities, and no relation twice", () => {
    expect(CORPUS_RELATIONS.length).toBeGreaterThanOrEqual(300);
    const missing = CORPUS_RELATIONS.flatMap(({ from, to }) => [from, to]).filter((name) => !byName.has(name));
    expect(missing).toEqual([]);
    const keys = CORPUS_RELATIONS.map(({ from, to, relationType }) => `${from}|${relationType}|${to}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  test("has at least 100 queries, at least half of them paraphrases, each judging existing entities", () => {
    expect(CORPUS_QUERIES.length).toBeGreaterThanOrEqual(100);
    expect(paraphrases.length * 2).toBeGreaterThanOrEqual(CORPUS_QUERIES.length);
    expect(new Set(CORPUS_QUERIES.map((query) => query.query)).size).toBe(CORPUS_QUERIES.length);
    for (const query of CORPUS_QUERIES) {
      const names = Object.keys(query.relevant);
      expect(names.length).toBeGreaterThan(0);
      expect(names.filter((name) => !byName.has(name))).toEqual([]);
      expect(Object.values(query.relevant).some((grade) => grade === 2)).toBe(true);
    }
  });

  test("a paraphrase query shares no content word with any of its judged answers", () => {
    const shared = paraphrases.flatMap((query) =>
      Object.keys(query.relevant)
        .map((name) => ({ query: query.query, name, words: sharedContentWords(query.query, textOf(name)) }))
        .filter(({ words }) => words.length > 0),
    );
    expect(shared).toEqual([]);
  });

  test("a paraphrase query shares no search term with its judged answers, as the words ranker compares them (searchTermsOf)", () => {
    const shared = paraphrases.flatMap((query) => {
      const terms = new Set(searchTermsOf(query.query));
      return Object.keys(query.relevant).flatMap((name) =>
        searchTermsOf(textOf(name))
          .filter((term) => terms.has(term))
          .map((term) => `${query.query} -> ${name}: ${term}`),
      );
    });
    expect(shared).toEqual([]);
  });

  test("a keyword query shares a content word with at least one of its answers", () => {
    const none = keywords.filter((query) =>
      Object.keys(query.relevant).every((name) => sharedContentWords(query.query, textOf(name)).length === 0),
    );
    expect(none.map((query) => query.query)).toEqual([]);
  });
});

describe("the content-word check", () => {
  test("drops stop words and folds case, accents and suffixes", () => {
    expect([...contentStems("Who looks after the Payments?")]).toEqual(["look", "pay"]);
    expect(sharedContentWords("who looks after payments", "Owns the checkout service and the card authorisation flow.")).toEqual([]);
    expect(sharedContentWords("payment problems", "The Payments Team")).toEqual(["pay"]);
    expect(sharedContentWords("rotating keys", "Keys are rotated every 90 days")).toEqual(["rotat", "key"]);
    // A shared prefix of 4+ letters counts as one word (the strict side), a shorter one does not.
    expect(sharedContentWords("database", "raw data")).toEqual(["databas"]);
    expect(sharedContentWords("peanuts", "no nut substitutions")).toEqual([]);
  });
});

describe("the metrics", () => {
  const ranked = ["a", "b", "c", "d", "e", "f"];
  const relevant = { c: 2, f: 1, z: 1 };

  test("recall@k counts the judged answers among the first k", () => {
    expect(recallAt(5, ranked, relevant)).toBeCloseTo(1 / 3, 10);
    expect(recallAt(10, ranked, relevant)).toBeCloseTo(2 / 3, 10);
    expect(recallAt(2, ranked, relevant)).toBe(0);
    expect(recallAt(5, ranked, {})).toBe(0);
  });

  test("the reciprocal rank is that of the first judged answer", () => {
    expect(reciprocalRank(ranked, relevant)).toBeCloseTo(1 / 3, 10);
    expect(reciprocalRank(["f", "c"], relevant)).toBe(1);
    expect(reciprocalRank(["x", "y"], relevant)).toBe(0);
  });

  test("nDCG@10 weighs grades and places", () => {
    // DCG = (2²-1)/log2(4) + (2¹-1)/log2(7) = 1.856207; ideal (2, 1, 1) = 3 + 1/log2(3) + 1/2 = 4.130930.
    expect(ndcgAt(10, ranked, relevant)).toBeCloseTo(0.449344, 5);
    // The lesser answer first: (1 + 3/log2(3)) / (3 + 1/log2(3)) = 0.796711.
    expect(ndcgAt(10, ["f", "c"], { c: 2, f: 1 })).toBeCloseTo(0.796711, 5);
    expect(ndcgAt(10, ["c", "f"], { c: 2, f: 1 })).toBe(1);
    // Past k nothing counts; a repeated name counts once.
    expect(ndcgAt(2, ranked, relevant)).toBe(0);
    expect(ndcgAt(10, ["c", "c"], { c: 2, f: 2 })).toBeCloseTo(3 / (3 + 3 / Math.log2(3)), 10);
  });

  test("scoreAll averages each metric over the queries", () => {
    const scores = scoreAll([
      { ranked: ["c", "f"], relevant: { c: 2, f: 1 } },
      { ranked: ["x"], relevant: { y: 2 } },
    ]);
    // recall@5 is 1 and 0: sample standard deviation √0.5, over √2 queries.
    expect(scores).toEqual({ queries: 2, recallAt5: 0.5, recallAt5StdErr: 0.5, recallAt10: 0.5, mrr: 0.5, ndcgAt10: 0.5 });
  });
});
