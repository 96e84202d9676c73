/**
 * Turns text into vectors that sit near each other when the texts mean similar things (docs/search.md#meaning). Two
 * adapters: the packaged word-vector model (local CPU, no network) and an OpenAI-compatible embeddings endpoint
 * (Azure OpenAI in a deployment). Vectors made by different models, or one model under different settings, are not
 * comparable: `model` names both, and vectors are kept and reused only under the same `model`.
 */
export interface Embedder {
  /** The model and its settings, e.g. "glove-sif-100d@1" or "endpoint:text-embedding-3-small@256": part of every stored vector's key. */
  readonly model: string;
  readonly dimensions: number;
  /**
   * Whether embedding costs a call to a service. A remote model's vectors are kept in storage (VectorStore) so that a cold
   * instance does not embed the workspace again; a local model's are a pure function of the text, cheaper to make than to read.
   */
  readonly remote: boolean;
  /**
   * One vector per text, in order, each of length `dimensions` and of unit length (all zeros for a text the model knows
   * nothing of). Rejects with an EmbeddingUnavailable when the service cannot be reached or refuses.
   */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/** The embeddings service failed or refused: search falls back to words and graph, and says so (docs/search.md#meaning). */
export class EmbeddingUnavailable extends Error {
  override readonly name: string = "EmbeddingUnavailable";
}

/**
 * The service refused this input (400, 413 or 422: a text too long for the model, say), not the call: the texts of the batch
 * are embedded apart, so one text it refuses costs that text its vector, not the workspace its search by meaning.
 */
export class EmbeddingRefused extends EmbeddingUnavailable {
  override readonly name = "EmbeddingRefused";
}

/**
 * A remote model's vectors, kept per workspace in rows of their own (docs/architecture.md#vectors), addressed by the model and
 * a hash of the text (textKey): a text means what it means whoever wrote it, so rows are written without conditions and never
 * disagree, and a vector outlives an index rebuild or an instance.
 */
export interface VectorStore {
  /** Every vector kept for this workspace under this model, by text key (one range read per 1,000). */
  load(workspace: string, model: string): Promise<Map<string, Float32Array>>;
  /** Keeps these vectors (upserts, in transactions of at most 100). */
  save(workspace: string, model: string, vectors: ReadonlyMap<string, Float32Array>): Promise<void>;
}
