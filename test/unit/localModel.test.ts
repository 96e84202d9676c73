import { existsSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, test } from "@jest/globals";

import { EmbeddingUnavailable } from "../../src/domain/ports/embedder.js";
import { localEmbedder, WordVectorEmbedder } from "../../src/search/embedding/localModel.js";

/**
 * The packaged word-vector model on the real binary that scripts/wordVectors.mjs builds (the unit project's globalSetup runs
 * it, and skips it when the binary is current): meaning by neighbourhood, determinism, unit length, laziness.
 */
const embedder = localEmbedder();

async function vector(text: string): Promise<Float32Array> {
  const [only] = await embedder.embed([text]);
  if (!only) throw new Error("embed() returned no vector");
  return only;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let d = 0; d < a.length; d += 1) dot += (a[d] ?? 0) * (b[d] ?? 0);
  return dot; // both unit length
}

async function similarity(a: string, b: string): Promise<number> {
  return cosine(await vector(a), await vector(b));
}

describe("WordVectorEmbedder", () => {
  test("the build put the binary where the embedder looks for it", () => {
    expect(existsSync(embedder.path)).toBe(true);
    expect(embedder).toMatchObject({ model: "glove-sif-100d@2", dimensions: 100, remote: false });
  });

  test.each([
    ["payments", "checkout", "volcano"],
    ["payments", "billing", "volcano"],
    ["database", "postgres", "banana"],
    ["deployment failed in production", "the release broke the live servers", "a recipe for banana bread"],
    ["invoices are overdue", "the customer has not paid the bill", "the team hiked up a volcano"],
  ])("%j is nearer %j than %j", async (text, near, far) => {
    expect(await similarity(text, near)).toBeGreaterThan(await similarity(text, far));
  });

  test("a word the vocabulary lacks is found through a kept word of the same stem", async () => {
    // "refactored" is past the kept vocabulary, "refactoring" is in it, and both stem to "refactor".
    expect(await similarity("refactored", "refactoring")).toBeCloseTo(1, 6);
    expect(await similarity("refactored code", "refactoring code")).toBeCloseTo(1, 6);
    expect(await similarity("retries", "retried")).toBeCloseTo(1, 6); // "retry" itself is kept too, and is its own word
    expect([...(await vector("kubernetes"))].every((x) => x === 0)).toBe(true); // no kept word shares its stem
  });

  test("vectors are unit length, one per text in order, and the same text always gives the same vector", async () => {
    const texts = ["Alice leads the payments team", "Zoë fixed the login bug", "Alice leads the payments team"];
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(v).toHaveLength(100);
      expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    }
    expect([...(vectors[2] ?? [])]).toEqual([...(vectors[0] ?? [])]);
    expect(await similarity("Zoë", "ZOE")).toBeCloseTo(1, 6); // normalised like the search terms
    expect(await similarity("payments", "volcano")).toBeLessThan(0.99); // different words, different vectors
  });

  test("a text with no known word is all zeros", async () => {
    for (const text of ["", "   ", "qzxqzx vbnvbnq", "!!!"]) expect([...(await vector(text))].every((x) => x === 0)).toBe(true);
  });

  test("loads the file lazily: constructing reads nothing, the first embed reads it and reports how long it took", async () => {
    const missing = new WordVectorEmbedder(join("test-artifacts", "no-such-model.bin"));
    expect(missing.loadedInMs).toBeUndefined();
    await expect(missing.embed(["payments"])).rejects.toBeInstanceOf(EmbeddingUnavailable);
    await expect(missing.embed(["payments"])).rejects.toThrow(/npm run build/);

    const fresh = new WordVectorEmbedder(embedder.path);
    expect(fresh.loadedInMs).toBeUndefined();
    await fresh.embed(["payments"]);
    expect(fresh.loadedInMs).toBeGreaterThan(0);
  });

  test("localEmbedder() is one instance per model file", () => {
    expect(localEmbedder()).toBe(embedder);
    expect(localEmbedder("elsewhere.bin")).not.toBe(embedder);
  });
});
