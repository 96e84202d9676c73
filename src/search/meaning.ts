import { type Embedder, EmbeddingRefused, EmbeddingUnavailable, type VectorStore } from "../domain/ports/embedder.js";
import type { EmbeddingProgress } from "../domain/ports/graphIndex.js";
import type { VectorSpace } from "./vectors.js";

/** Texts embedded per call to the embedder, and per background step of a remote model's re-embedding. */
const BATCH = 64;
/** Texts a local model embeds between two turns of the event loop (about 0.1 s of CPU at ~15,000 texts a second). */
const LOCAL_BATCH = 1024;
/**
 * After the embedder failed, how long searches skip it (ranking by words and graph at once) before one tries again: a
 * service that does not answer would otherwise cost every search its timeout, twice (the pending texts, then the query).
 */
const PAUSE_AFTER_FAILURE_MS = 30_000;
/** Query vectors kept (a remote model's query costs a call): the most recent ones. */
const QUERY_CACHE = 256;

/** What a search gets from `prepare`: the query's vector, or why there is none (the search then ranks by words and graph). */
export type PreparedQuery = { vector: Float32Array } | { unavailable: string };

/**
 * Search by meaning for one instance (docs/search.md#meaning): brings an index's vectors up to date before a search and
 * embeds the query.
 * - A local model embeds every pending text at once, on this instance's CPU (microseconds a text).
 * - A remote model's vectors are kept in storage (VectorStore), so an index built cold reads them (one range read per 1,000)
 *   instead of calling the endpoint for the workspace again. A few new texts are embedded before the search answers and kept;
 *   more than one batch (after a change of model, or a cold workspace never embedded) are embedded in the background, one
 *   batch at a time, and get_stats says how far it got (`embedding.pending`); searches meanwhile rank what has a vector.
 * Vectors are a function of text and model only, so embedding the same text twice (two instances, a retry) is waste, never
 * disagreement, and storage rows for them are written without conditions.
 */
export class Meaning {
  /** The spaces already filled from the store (a remote model's), so each index reads it once. */
  private readonly loaded = new WeakSet<VectorSpace>();
  /** The newest space of each workspace: where a background step puts what it made (weakly: a dropped index is let go). */
  private readonly latest = new Map<string, WeakRef<VectorSpace>>();
  private readonly jobs = new Map<string, Promise<void>>();
  private readonly queries = new Map<string, Float32Array>();
  /** The filling of each space in flight: concurrent searches of a cold workspace wait for one, not embed it each. */
  private readonly filling = new WeakMap<VectorSpace, Promise<void>>();
  /** Until when searches skip the embedder after it failed (PAUSE_AFTER_FAILURE_MS), and why. */
  private paused: { until: number; why: string } | undefined;

  constructor(
    private readonly embedder: Embedder,
    private readonly store?: VectorStore,
    private readonly clock: () => number = Date.now,
  ) {}

  get model(): string {
    return this.embedder.model;
  }

  /** The vectors of `space` brought as far as this call allows, and the query's vector. */
  async prepare(workspace: string, space: VectorSpace, query: string): Promise<PreparedQuery> {
    if (this.paused && this.clock() < this.paused.until) return { unavailable: this.paused.why };
    try {
      this.latest.set(workspace, new WeakRef(space));
      await this.fill(workspace, space);
      const vector = await this.queryVector(query);
      this.paused = undefined;
      return { vector };
    } catch (error) {
      if (!(error instanceof EmbeddingUnavailable)) throw error;
      // A query the service refuses says nothing of the next one; a failure of the service does.
      if (!(error instanceof EmbeddingRefused)) this.paused = { until: this.clock() + PAUSE_AFTER_FAILURE_MS, why: error.message };
      return { unavailable: error.message };
    }
  }

  /** Brings the space's vectors as far as a search waits for: one filling per space at a time, shared by concurrent searches. */
  private async fill(workspace: string, space: VectorSpace): Promise<void> {
    for (;;) {
      const inflight = this.filling.get(space);
      if (!inflight) break;
      await inflight;
    }
    const work = (async () => {
      if (this.embedder.remote && this.store && !this.loaded.has(space)) {
        space.fill(await this.store.load(workspace, this.embedder.model));
        this.loaded.add(space);
      }
      const pending = space.pendingTexts();
      // A background re-embedding of the workspace already running takes these too: not embedded twice.
      if (pending.size === 0 || this.jobs.has(workspace)) return;
      if (!this.embedder.remote || pending.size <= BATCH) await this.embedInto(workspace, space, pending);
      else this.startBackground(workspace);
    })();
    this.filling.set(space, work);
    try {
      await work;
    } finally {
      if (this.filling.get(space) === work) this.filling.delete(space);
    }
  }

  /**
   * Brings the space's vectors as far as a search would, without a query (get_stats): so what get_stats reports is what a
   * search would rank on. A failing embedder leaves them as they are; the progress then says how many are pending.
   */
  async settle(workspace: string, space: VectorSpace): Promise<void> {
    if (this.paused && this.clock() < this.paused.until) return;
    try {
      this.latest.set(workspace, new WeakRef(space));
      await this.fill(workspace, space);
    } catch (error) {
      if (!(error instanceof EmbeddingUnavailable)) throw error;
      if (!(error instanceof EmbeddingRefused)) this.paused = { until: this.clock() + PAUSE_AFTER_FAILURE_MS, why: error.message };
    }
  }

  progress(space: VectorSpace): EmbeddingProgress {
    return { model: this.embedder.model, remote: this.embedder.remote, vectors: space.vectorCount, pending: space.pendingCount };
  }

  private async embedInto(workspace: string, space: VectorSpace, texts: ReadonlyMap<string, string>): Promise<void> {
    const entries = [...texts];
    const size = this.embedder.remote ? BATCH : LOCAL_BATCH;
    for (let start = 0; start < entries.length; start += size) {
      // A local model embeds on this thread: between batches, let the instance's other requests run.
      if (start > 0 && !this.embedder.remote) await new Promise((resolve) => setImmediate(resolve));
      const made = await this.embedApart(entries.slice(start, start + size));
      space.fill(made);
      if (this.embedder.remote && this.store) await this.store.save(workspace, this.embedder.model, made);
    }
  }

  /**
   * Vectors for these texts. A batch the service refuses (EmbeddingRefused) is split in halves until the text it refuses is
   * found; that text gets the zero vector (found by nothing, as a text the model knows nothing of), so it is not pending
   * for ever and the rest of the workspace keeps its search by meaning.
   */
  private async embedApart(batch: readonly (readonly [string, string])[]): Promise<Map<string, Float32Array>> {
    try {
      const vectors = await this.embedder.embed(batch.map(([, text]) => text));
      return new Map(batch.map(([key], i) => [key, vectors[i]!]));
    } catch (error) {
      if (!(error instanceof EmbeddingRefused)) throw error;
      if (batch.length === 1) return new Map([[batch[0]![0], new Float32Array(this.embedder.dimensions)]]);
      const half = Math.ceil(batch.length / 2);
      const [first, second] = await Promise.all([this.embedApart(batch.slice(0, half)), this.embedApart(batch.slice(half))]);
      return new Map([...first, ...second]);
    }
  }

  /** Embeds the newest space's pending texts a batch at a time until none is left; a failure stops it (the next search restarts it). */
  private startBackground(workspace: string): void {
    if (this.jobs.has(workspace)) return;
    const job = (async () => {
      for (;;) {
        const space = this.latest.get(workspace)?.deref();
        const pending = space ? [...space.pendingTexts()].slice(0, BATCH) : [];
        if (!space || pending.length === 0) {
          this.latest.delete(workspace);
          return;
        }
        await this.embedInto(workspace, space, new Map(pending));
      }
    })()
      .catch(() => undefined)
      .finally(() => this.jobs.delete(workspace));
    this.jobs.set(workspace, job);
  }

  private async queryVector(query: string): Promise<Float32Array> {
    const held = this.queries.get(query);
    if (held) {
      this.queries.delete(query);
      this.queries.set(query, held);
      return held;
    }
    const [vector] = await this.embedder.embed([query]);
    this.queries.set(query, vector!);
    if (this.queries.size > QUERY_CACHE) this.queries.delete(this.queries.keys().next().value!);
    return vector!;
  }
}
