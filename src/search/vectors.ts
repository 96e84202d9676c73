import { createHash } from "node:crypto";

/** A text's address among vectors: the same text has the same vector under one model, whoever wrote it (VectorStore). */
export function textKey(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex").slice(0, 32);
}

/** The text an entity's name is embedded as: its name and its type, so "Payments (team)" and "Payments (service)" differ. */
export const nameText = (name: string, entityType: string): string => `${name} (${entityType})`;

/** An entity's texts as the vector ranker sees them: the name text first, then each observation. */
interface Tracked {
  keys: string[];
  texts: string[];
}

/** One entity's nearest text to a query: its similarity, and which text (0 = the name, i = observation i - 1). */
export interface Nearest {
  id: string;
  similarity: number;
  text: number;
}

/** Heap per vector held: the Float32Array's buffer and header, its map entry and its 32-character key. */
const VECTOR_OVERHEAD_BYTES = 200;
/** Heap per text an entity tracks: its key string and array slots (the text itself is counted by the index already). */
const TRACKED_TEXT_BYTES = 80;

/**
 * The vectors of one workspace index (docs/search.md#meaning): one per distinct text (each entity's name text and its
 * observations), addressed by textKey and shared between entities that hold the same text. Texts without a vector yet are
 * pending: the embedder fills them before a search (src/search/meaning.ts). Vectors are a function of the text and the
 * model only, so a rebuilt index adopts the vectors of the one it replaces, and filling a vector late is never wrong.
 */
export class VectorSpace {
  private readonly vectors = new Map<string, Float32Array>();
  /** How many tracked texts have each key: a vector no text needs any more is dropped. */
  private readonly uses = new Map<string, number>();
  private readonly tracked = new Map<string, Tracked>();
  /** Key -> text, for the keys some entity holds and no vector covers yet. */
  private readonly pending = new Map<string, string>();
  /** Kept as texts and vectors come and go, so the estimate costs nothing per call (the registry asks on every answer). */
  private trackedTexts = 0;
  private floats = 0;

  constructor(public readonly model: string) {}

  /** Sets an entity's texts (name text first), replacing what it had. */
  track(entityId: string, texts: string[]): void {
    this.untrack(entityId);
    const keys = texts.map(textKey);
    this.tracked.set(entityId, { keys, texts });
    this.trackedTexts += keys.length;
    keys.forEach((key, i) => {
      this.uses.set(key, (this.uses.get(key) ?? 0) + 1);
      if (!this.vectors.has(key)) this.pending.set(key, texts[i]!);
    });
  }

  untrack(entityId: string): void {
    const held = this.tracked.get(entityId);
    if (!held) return;
    this.tracked.delete(entityId);
    this.trackedTexts -= held.keys.length;
    for (const key of held.keys) {
      const left = (this.uses.get(key) ?? 1) - 1;
      if (left > 0) {
        this.uses.set(key, left);
        continue;
      }
      this.uses.delete(key);
      this.floats -= this.vectors.get(key)?.length ?? 0;
      this.vectors.delete(key);
      this.pending.delete(key);
    }
  }

  /** The texts that need a vector, by key. */
  pendingTexts(): Map<string, string> {
    return new Map(this.pending);
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  get vectorCount(): number {
    return this.vectors.size;
  }

  /** Takes the vectors some tracked text needs; others are ignored (the text went while they were being made). */
  fill(vectors: ReadonlyMap<string, Float32Array>): void {
    for (const [key, vector] of vectors) {
      if (!this.uses.has(key)) continue;
      this.floats += vector.length - (this.vectors.get(key)?.length ?? 0);
      this.vectors.set(key, vector);
      this.pending.delete(key);
    }
  }

  /** The vectors of another space of the same model (an index this one replaces): they hold for the same texts. */
  adopt(other: VectorSpace | undefined): void {
    if (!other || other.model !== this.model) return;
    this.fill(other.vectors);
  }

  /** The vectors held, by key (for keeping a remote model's in storage). */
  held(keys: Iterable<string>): Map<string, Float32Array> {
    const found = new Map<string, Float32Array>();
    for (const key of keys) {
      const vector = this.vectors.get(key);
      if (vector) found.set(key, vector);
    }
    return found;
  }

  /** Each admitted entity's best similarity to the query over its texts, most similar first, those at or above `floor`. */
  nearest(query: Float32Array, admits: (entityId: string) => boolean, floor: number): Nearest[] {
    const found: Nearest[] = [];
    for (const [id, { keys }] of this.tracked) {
      let best = -Infinity;
      let at = -1;
      for (let i = 0; i < keys.length; i++) {
        const vector = this.vectors.get(keys[i]!);
        if (!vector) continue;
        const similarity = dot(query, vector);
        if (similarity > best) {
          best = similarity;
          at = i;
        }
      }
      if (at >= 0 && best >= floor && admits(id)) found.push({ id, similarity: best, text: at });
    }
    return found.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : 1));
  }

  /** The similarity of the query to each of an entity's texts (name text first); undefined where no vector is held. */
  similarities(entityId: string, query: Float32Array): (number | undefined)[] {
    return (this.tracked.get(entityId)?.keys ?? []).map((key) => {
      const vector = this.vectors.get(key);
      return vector ? dot(query, vector) : undefined;
    });
  }

  /** Text `i` of an entity (0 = the name text). */
  textOf(entityId: string, i: number): string | undefined {
    return this.tracked.get(entityId)?.texts[i];
  }

  /** Estimated heap (docs/search.md#memory): the vectors and the per-text bookkeeping. */
  bytes(): number {
    return this.floats * 4 + this.vectors.size * VECTOR_OVERHEAD_BYTES + this.trackedTexts * TRACKED_TEXT_BYTES;
  }
}

/** Both vectors are unit length, so their dot product is their cosine similarity. */
function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) sum += a[i]! * b[i]!;
  return sum;
}
