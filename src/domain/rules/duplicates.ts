import { distance } from "fastest-levenshtein";

import { compareText } from "../model/order.js";

/**
 * Duplicate detection (docs/curate.md#detect_duplicate_entities): pure rules. Names are normalised
 * (case, accents, punctuation, camelCase and token order), candidate pairs come only from blocking
 * keys (so the comparisons grow with block sizes, not with the square of the workspace), and each
 * pair is scored from its names, its types, and the observations and neighbours it shares.
 */

/** What detection needs of an entity. */
export interface DuplicateCandidate {
  id: string;
  name: string;
  entityType: string;
  observations: readonly string[];
  /** Ids of the entities it has relations with (either direction). */
  neighbours: readonly string[];
}

export interface DuplicatePair {
  a: { id: string; name: string; entityType: string };
  b: { id: string; name: string; entityType: string };
  score: number;
  reasons: string[];
}

export const DEFAULT_DUPLICATE_THRESHOLD = 0.8;
/** The most that shared observations, and shared neighbours, each add to a pair's score. */
const EVIDENCE_WEIGHT = 0.15;
/** Blocks larger than this (a very common token) are not compared within: they would make detection quadratic. */
const MAX_BLOCK_SIZE = 50;

/** A name's tokens: accents dropped, camelCase and punctuation split, lower case. */
export function nameTokens(name: string): string[] {
  return name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((token) => token.length > 0);
}

/** The keys whose blocks an entity joins: each token of 2+ characters, and the start of its letters run together. */
export function blockingKeys(name: string): string[] {
  const tokens = nameTokens(name);
  const keys = new Set(tokens.filter((token) => token.length >= 2).map((token) => `t:${token}`));
  const joined = [...tokens].sort(compareText).join("");
  if (joined.length > 0) keys.add(`j:${joined.slice(0, 4)}`);
  return [...keys];
}

/** How alike two names are (0-1), and why. */
export function nameSimilarity(left: string, right: string): { score: number; reason: string } {
  const a = nameTokens(left);
  const b = nameTokens(right);
  const sortedA = [...a].sort(compareText);
  const sortedB = [...b].sort(compareText);
  if (sortedA.join(" ") === sortedB.join(" ")) {
    return { score: 1, reason: "same name once case, accents, punctuation and word order are ignored" };
  }
  if (sortedA.join("") === sortedB.join("")) return { score: 0.95, reason: "same letters, split differently" };
  if (a.length === b.length && a.length > 1 && abbreviates(a, b)) {
    return { score: 0.85, reason: "one name abbreviates the other (initials or shortened words)" };
  }
  // Words both names have say little about the rest ("Acme Corporation", "Apex Corporation"): compare what differs.
  const shared = sortedA.filter((token) => sortedB.includes(token));
  const restA = sortedA.filter((token) => !shared.includes(token));
  const restB = sortedB.filter((token) => !shared.includes(token));
  if (shared.length >= 2 && (restA.length === 0 || restB.length === 0)) {
    return { score: 0.85, reason: "one name has all the other's words, and more" };
  }
  const x = restA.join("");
  const y = restB.join("");
  const edits = distance(x, y);
  const similarity = Math.max(0, 1 - edits / Math.max(x.length, y.length, 1));
  const reason = `${shared.length > 0 ? "the words that differ are" : "names"} ${edits} edit${edits === 1 ? "" : "s"} apart`;
  return { score: shared.length > 0 ? 0.4 + 0.6 * similarity : similarity, reason };
}

/** Token by token, in order, one name's token is the start of the other's (and at least one token is the same word). */
function abbreviates(a: readonly string[], b: readonly string[]): boolean {
  let same = 0;
  for (let i = 0; i < a.length; i++) {
    const [short, long] = a[i]!.length <= b[i]!.length ? [a[i]!, b[i]!] : [b[i]!, a[i]!];
    if (!long.startsWith(short)) return false;
    if (short === long) same += 1;
  }
  return same > 0;
}

const normalisedText = (text: string) => nameTokens(text).join(" ");

/**
 * A candidate as pairs are scored from it, made once per entity however many pairs it is in: its observations as ids of
 * their normalised text (one id per distinct text in the whole call), and its neighbours as a set. Scoring a pair is then
 * set lookups, never the text again, so the text is read and normalised once per call.
 */
interface Prepared {
  candidate: DuplicateCandidate;
  observations: Set<number>;
  neighbours: Set<string>;
}

/** |A ∩ B| / |A ∪ B|, and the size of the intersection; `skip` leaves one member out of both sides. */
function overlap<T>(a: ReadonlySet<T>, b: ReadonlySet<T>, skip?: { a?: T; b?: T }): { jaccard: number; shared: number } {
  let shared = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const item of small) if (large.has(item) && item !== skip?.a && item !== skip?.b) shared += 1;
  const sizeA = a.size - (skip?.b !== undefined && a.has(skip.b) ? 1 : 0);
  const sizeB = b.size - (skip?.a !== undefined && b.has(skip.a) ? 1 : 0);
  const union = sizeA + sizeB - shared;
  return { jaccard: union === 0 ? 0 : shared / union, shared };
}

/**
 * A pair's score: the names' similarity, scaled down when the types differ, plus up to EVIDENCE_WEIGHT each for
 * shared observations and shared neighbours (evidence that two differently written names are one thing).
 */
function scorePair(left: Prepared, right: Prepared): { score: number; reasons: string[] } {
  const a = left.candidate;
  const b = right.candidate;
  const name = nameSimilarity(a.name, b.name);
  const reasons = [name.reason];
  let score = name.score;
  if (a.entityType === b.entityType) reasons.push(`same type '${a.entityType}'`);
  else if (a.entityType !== "" && b.entityType !== "") {
    score *= 0.7;
    reasons.push(`different types '${a.entityType}' and '${b.entityType}'`);
  }
  const observations = overlap(left.observations, right.observations);
  if (observations.shared > 0) {
    score += EVIDENCE_WEIGHT * observations.jaccard;
    reasons.push(`${observations.shared} observation${observations.shared === 1 ? "" : "s"} in common`);
  }
  // Each one's neighbours other than the other one.
  const neighbours = overlap(left.neighbours, right.neighbours, { a: a.id, b: b.id });
  if (neighbours.shared > 0) {
    score += EVIDENCE_WEIGHT * neighbours.jaccard;
    reasons.push(`${neighbours.shared} neighbour${neighbours.shared === 1 ? "" : "s"} in common`);
  }
  if (left.neighbours.has(b.id) || right.neighbours.has(a.id)) reasons.push("related to each other");
  return { score: Math.min(1, Math.round(score * 1000) / 1000), reasons };
}

/**
 * Hands the event loop back (setImmediate) once YIELD_AFTER_MS of work has run since the last time, so a large
 * detection never holds an instance's other requests (health probes included) for long (docs/curate.md#detect_duplicate_entities).
 */
const YIELD_AFTER_MS = 20;
function yielder(): () => Promise<void> | undefined {
  let since = performance.now();
  const resume = (resolve: () => void) =>
    setImmediate(() => {
      since = performance.now();
      resolve();
    });
  // undefined while the slice has time left, so the caller skips even the await (a microtask per comparison).
  return () => (performance.now() - since < YIELD_AFTER_MS ? undefined : new Promise<void>(resume));
}

/** Each candidate prepared once (Prepared): every observation normalised once, and equal texts given one id. */
async function prepare(candidates: readonly DuplicateCandidate[], pause: () => Promise<void> | undefined): Promise<Prepared[]> {
  const textIds = new Map<string, number>();
  const prepared: Prepared[] = [];
  for (const candidate of candidates) {
    const observations = new Set<number>();
    for (const content of candidate.observations) {
      const text = normalisedText(content);
      let id = textIds.get(text);
      if (id === undefined) {
        id = textIds.size;
        textIds.set(text, id);
      }
      observations.add(id);
    }
    prepared.push({ candidate, observations, neighbours: new Set(candidate.neighbours) });
    const due = pause();
    if (due) await due;
  }
  return prepared;
}

/** A pair's key whichever order it is named in: the two ids, sorted (as the stored rejection's row key). */
export function pairKey(a: string, b: string): string {
  return a < b ? `${a} ${b}` : `${b} ${a}`;
}

/**
 * The pairs scoring at least `threshold`, best first, at most `limit`; how many pairs were compared (each pair sharing a
 * block once; blocks over MAX_BLOCK_SIZE are skipped); and how many pairs that scored enough were left out because a
 * person rejected them (`rejected`, pairKey: docs/curate.md#rejecting-a-pair), before the limit is applied, so a rejected
 * pair never takes the place of another. Asynchronous only to yield the event loop between pieces of work: the result is
 * the same as if it ran in one go.
 */
export async function findDuplicates(
  candidates: readonly DuplicateCandidate[],
  options: { threshold: number; limit: number; rejected?: ReadonlySet<string> },
): Promise<{ pairs: DuplicatePair[]; comparisons: number; rejected: number }> {
  const pause = yielder();
  const blocks = new Map<string, number[]>();
  candidates.forEach((candidate, i) => {
    for (const key of blockingKeys(candidate.name)) {
      const members = blocks.get(key);
      if (members) members.push(i);
      else blocks.set(key, [i]);
    }
  });
  const prepared = await prepare(candidates, pause);
  const compared = new Set<string>();
  const pairs: DuplicatePair[] = [];
  let rejected = 0;
  for (const members of blocks.values()) {
    if (members.length < 2 || members.length > MAX_BLOCK_SIZE) continue;
    for (let x = 0; x < members.length; x++) {
      for (let y = x + 1; y < members.length; y++) {
        const key = `${members[x]!}:${members[y]!}`;
        if (compared.has(key)) continue;
        compared.add(key);
        const a = prepared[members[x]!]!;
        const b = prepared[members[y]!]!;
        const { score, reasons } = scorePair(a, b);
        if (score >= options.threshold) {
          if (options.rejected?.has(pairKey(a.candidate.id, b.candidate.id))) rejected += 1;
          else pairs.push({ a: summary(a.candidate), b: summary(b.candidate), score, reasons });
        }
        const due = pause();
        if (due) await due;
      }
    }
  }
  pairs.sort((p, q) => q.score - p.score || compareText(p.a.name, q.a.name) || compareText(p.b.name, q.b.name));
  return { pairs: pairs.slice(0, options.limit), comparisons: compared.size, rejected };
}

const summary = ({ id, name, entityType }: DuplicateCandidate) => ({ id, name, entityType });
