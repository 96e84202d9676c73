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

interface Packed {
  ids: string[];
  /** Per row: the index in `ids` of its entity, and which of the entity's texts it is. */
  owner: Int32Array;
  text: Int32Array;
  matrix: Float32Array;
  dimensions: number;
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
  /** The vectors' length (the model's), once one is held. */
  private dimensions = 0;
  /** The matrix searches scan (pack), dropped by every change. */
  private packed: Packed | undefined;

  constructor(public readonly model: string) {}

  /** Sets an entity's texts (name text first), replacing what it had. */
  track(entityId: string, texts: string[]): void {
    this.untrack(entityId);
    this.packed = undefined;
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
    this.packed = undefined;
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
      this.packed = undefined;
      this.dimensions = vector.length;
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

  /**
   * Each admitted entity's best similarity to the query over its texts, most similar first, those at or above `floor`.
   * `hidden` names an entity's texts that must not count (text i, as `Nearest.text`: observations that do not show through
   * the read's lens, docs/history.md#two-times); asked once per entity, and only when given.
   */
  nearest(
    query: Float32Array,
    admits: (entityId: string) => boolean,
    floor: number,
    hidden?: (entityId: string) => ReadonlySet<number> | undefined,
  ): Nearest[] {
    const packed = this.pack();
    const { ids, owner, text, matrix, dimensions } = packed;
    const skipped = hidden ? ids.map((id) => hidden(id)) : undefined;
    const best = new Float64Array(ids.length).fill(-Infinity);
    const at = new Int32Array(ids.length).fill(-1);
    const n = Math.min(dimensions, query.length);
    const whole = n - (n % 4);
    for (let row = 0; row < owner.length; row++) {
      if (skipped?.[owner[row]!]?.has(text[row]!)) continue;
      const base = row * dimensions;
      // Four running sums: the multiply-adds of one row no longer wait on each other (~30 % faster measured at 31,347 rows).
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let d = 0;
      for (; d < whole; d += 4) {
        s0 += query[d]! * matrix[base + d]!;
        s1 += query[d + 1]! * matrix[base + d + 1]!;
        s2 += query[d + 2]! * matrix[base + d + 2]!;
        s3 += query[d + 3]! * matrix[base + d + 3]!;
      }
      for (; d < n; d++) s0 += query[d]! * matrix[base + d]!;
      const sum = s0 + s1 + s2 + s3;
      const entity = owner[row]!;
      if (sum > best[entity]!) {
        best[entity] = sum;
        at[entity] = text[row]!;
      }
    }
    const found: Nearest[] = [];
    for (let entity = 0; entity < ids.length; entity++) {
      if (at[entity]! >= 0 && best[entity]! >= floor && admits(ids[entity]!)) {
        found.push({ id: ids[entity]!, similarity: best[entity]!, text: at[entity]! });
      }
    }
    return found.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : 1));
  }

  /**
   * Every held vector in one contiguous matrix, one row per (entity, text) that has a vector: a search is then one pass of
   * multiply-adds over memory in order, not a map lookup per text. Made again on the first search after a change.
   */
  private pack(): Packed {
    if (this.packed) return this.packed;
    let rows = 0;
    let dimensions = 0;
    for (const { keys } of this.tracked.values()) {
      for (const key of keys) {
        const vector = this.vectors.get(key);
        if (vector) {
          rows += 1;
          dimensions = vector.length;
        }
      }
    }
    const ids: string[] = [];
    const owner = new Int32Array(rows);
    const text = new Int32Array(rows);
    const matrix = new Float32Array(rows * dimensions);
    let row = 0;
    for (const [id, { keys }] of this.tracked) {
      const entity = ids.push(id) - 1;
      keys.forEach((key, i) => {
        const vector = this.vectors.get(key);
        if (!vector) return;
        owner[row] = entity;
        text[row] = i;
        matrix.set(vector.subarray(0, dimensions), row * dimensions);
        row += 1;
      });
    }
    this.packed = { ids, owner, text, matrix, dimensions };
    return this.packed;
  }

  /** Text `i` of an entity (0 = the name text). */
  textOf(entityId: string, i: number): string | undefined {
    return this.tracked.get(entityId)?.texts[i];
  }

  /** Estimated heap (docs/search.md#memory): the vectors and the per-text bookkeeping. */
  bytes(): number {
    // The packed matrix (pack) holds a row per text an entity holds, not per distinct text: entities sharing a text ("Imported
    // from Jira") each have their row. Counted at its most (every text with a vector), with two ints per row.
    return (
      this.floats * 4 +
      this.trackedTexts * (this.dimensions * 4 + 8) +
      this.vectors.size * VECTOR_OVERHEAD_BYTES +
      this.trackedTexts * TRACKED_TEXT_BYTES
    );
  }
}
