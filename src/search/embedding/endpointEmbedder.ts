import { forEachLimited } from "../../domain/model/concurrency.js";
import { type Embedder, EmbeddingRefused, EmbeddingUnavailable } from "../../domain/ports/embedder.js";

/**
 * An OpenAI-compatible embeddings endpoint as an Embedder (docs/configuration.md, MEMORY_EMBEDDINGS_*). Two URL shapes:
 *
 *   - an Azure OpenAI resource endpoint (a URL with no path, e.g. https://acct.openai.azure.com):
 *     POST {endpoint}/openai/deployments/{deployment}/embeddings?api-version={version}, the deployment named by `model`;
 *   - any other URL is an OpenAI-compatible base URL (e.g. https://api.openai.com/v1): POST {base}/embeddings, `model` in the body.
 *
 * Both take {input: string[], dimensions?} and answer {data: [{index, embedding}]}. An API key goes in the `api-key` header to
 * Azure and as `Authorization: Bearer` elsewhere; without one, a token source (the managed identity, built by src/config) may
 * give a bearer token. Only global fetch: no SDK, no dependency.
 */
export interface EndpointSettings {
  url: string;
  /** The model (OpenAI-compatible) or the deployment (Azure). */
  model: string;
  /** Vector length: sent as `dimensions` when `requestDimensions`, else the model's own (knownDimensions). */
  dimensions: number;
  /** Whether to ask the service for `dimensions` (models before text-embedding-3 refuse the parameter). */
  requestDimensions: boolean;
  apiKey?: string;
  /** Azure only; DEFAULT_AZURE_API_VERSION when unset. */
  apiVersion?: string;
  /** A bearer token for the call (Entra: scope AZURE_OPENAI_SCOPE), used when there is no API key. */
  token?: () => Promise<string>;
}

/** How hard the client tries; tests shorten the waits. */
export interface EndpointTuning {
  /** Texts per request. */
  batchSize: number;
  /** A text is cut to this many characters: far below every model's token limit, so one long observation cannot fail a batch. */
  maxInputChars: number;
  /** Requests of one embed() in flight at once. */
  concurrency: number;
  /** Per-attempt timeout. */
  timeoutMs: number;
  /** Retries of a 408, 429, 5xx, timeout or network failure. */
  maxRetries: number;
  /** A wait longer than this (a retry-after asking for more) ends the call instead. */
  maxRetryDelayMs: number;
  /** Waits between attempts (the tests record them). */
  sleep: (ms: number) => Promise<void>;
}

/** The latest GA data-plane inference version of Azure OpenAI (learn.microsoft.com/azure/ai-foundry/openai/reference). */
export const DEFAULT_AZURE_API_VERSION = "2024-10-21";
/** The Entra scope of Azure OpenAI's data plane (Cognitive Services). */
export const AZURE_OPENAI_SCOPE = "https://cognitiveservices.azure.com/.default";

/**
 * A failing batch gives up within (maxRetries + 1) × timeoutMs plus the waits: about 32 s, like a failing storage request
 * (docs/reliability.md#how-long-a-failing-call-takes), well inside one MCP request's deadline.
 */
const DEFAULT_TUNING: EndpointTuning = {
  batchSize: 64,
  maxInputChars: 8000,
  concurrency: 4,
  timeoutMs: 10_000,
  maxRetries: 2,
  maxRetryDelayMs: 10_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Vector lengths of OpenAI's embedding models, so MEMORY_EMBEDDINGS_DIMENSIONS may be left unset for them. */
const KNOWN_DIMENSIONS: Readonly<Record<string, number>> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
};

export function knownDimensions(model: string): number | undefined {
  return KNOWN_DIMENSIONS[model.toLowerCase()];
}

/** An Azure OpenAI endpoint takes the Azure URL shape: a resource URL with no path. */
export function isAzureShape(url: string): boolean {
  return new URL(url).pathname.replace(/\/+$/, "") === "";
}

/** Hosts that are Azure OpenAI (or AI Foundry) accounts: they take `api-key` and Entra tokens whatever the URL shape. */
export function isAzureHost(url: string): boolean {
  return /\.(openai\.azure\.com|cognitiveservices\.azure\.com|services\.ai\.azure\.com)$/i.test(new URL(url).hostname);
}

const RETRYABLE = new Set([408, 429, 500, 502, 503, 504]);
/** Answers that refuse the input itself (too long, unprocessable), as opposed to the caller, the model or the service. */
const REFUSED_INPUT = new Set([400, 413, 422]);

/** A failed attempt: whether another may succeed, and how long the service asked us to wait. */
class AttemptFailed extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
    /** The service refused what it was sent (EmbeddingRefused), not the call. */
    readonly refusedInput = false,
  ) {
    super(message);
  }
}

export class EndpointEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  readonly remote = true;
  private readonly tuning: EndpointTuning;
  private readonly target: string;
  private readonly azure: boolean;
  /** For messages: never the key, never the query string. */
  private readonly where: string;

  constructor(
    private readonly settings: EndpointSettings,
    tuning: Partial<EndpointTuning> = {},
  ) {
    this.tuning = { ...DEFAULT_TUNING, ...tuning };
    this.dimensions = settings.dimensions;
    this.model = `endpoint:${settings.model}@${settings.dimensions}`;
    this.azure = isAzureShape(settings.url);
    const base = settings.url.replace(/\/+$/, "");
    this.target = this.azure
      ? `${base}/openai/deployments/${encodeURIComponent(settings.model)}/embeddings?api-version=${encodeURIComponent(
          settings.apiVersion ?? DEFAULT_AZURE_API_VERSION,
        )}`
      : `${base}/embeddings`;
    this.where = `the embeddings endpoint ${new URL(this.target).origin}${new URL(this.target).pathname}`;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const vectors: Float32Array[] = texts.map(() => new Float32Array(this.dimensions));
    // The API refuses an empty input; such a text means nothing, and keeps its zero vector (the port's rule).
    const asked = texts.flatMap((text, at) => (text.trim() === "" ? [] : [at]));
    const batches: number[][] = [];
    for (let i = 0; i < asked.length; i += this.tuning.batchSize) batches.push(asked.slice(i, i + this.tuning.batchSize));
    await forEachLimited(batches, this.tuning.concurrency, async (batch) => {
      const answers = await this.call(batch.map((at) => texts[at]!.slice(0, this.tuning.maxInputChars)));
      batch.forEach((at, i) => (vectors[at] = answers[i]!));
    });
    return vectors;
  }

  /** One batch, retried while the failure is transient; any final failure is an EmbeddingUnavailable saying what to check. */
  private async call(input: string[]): Promise<Float32Array[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.attempt(input);
      } catch (error) {
        if (!(error instanceof AttemptFailed)) throw error;
        const wait = error.retryAfterMs ?? Math.min(this.tuning.maxRetryDelayMs, 500 * 2 ** attempt);
        if (!error.retryable || attempt >= this.tuning.maxRetries) {
          const tries = attempt + 1;
          const message = tries > 1 ? error.message.replace(/\.?$/, ` (${tries} attempts).`) : error.message;
          throw error.refusedInput ? new EmbeddingRefused(message) : new EmbeddingUnavailable(message);
        }
        if (wait > this.tuning.maxRetryDelayMs) {
          throw new EmbeddingUnavailable(
            `${error.message}; it asked to retry after ${Math.ceil(wait / 1000)} s, longer than this client waits.`,
          );
        }
        await this.tuning.sleep(wait);
      }
    }
  }

  private async attempt(input: string[]): Promise<Float32Array[]> {
    const body: Record<string, unknown> = { input };
    if (!this.azure) body.model = this.settings.model;
    if (this.settings.requestDimensions) body.dimensions = this.settings.dimensions;
    let response: Response;
    try {
      response = await fetch(this.target, {
        method: "POST",
        headers: { "content-type": "application/json", ...(await this.authorization()) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.tuning.timeoutMs),
      });
    } catch (error) {
      // By name: the abort is a DOMException, which need not be an Error of this realm.
      const name = (error as { name?: unknown } | null)?.name;
      const timedOut = name === "TimeoutError" || name === "AbortError";
      const why = timedOut ? `did not answer within ${this.tuning.timeoutMs} ms` : `could not be reached (${causeOf(error)})`;
      throw new AttemptFailed(`${capitalised(this.where)} ${why}.`, true);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw new AttemptFailed(`${capitalised(this.where)} broke off its answer (${causeOf(error)}).`, true);
    }
    if (!response.ok) {
      throw new AttemptFailed(
        `${capitalised(this.where)} answered ${response.status}${serviceMessage(text)}${advice(response.status)}`,
        RETRYABLE.has(response.status),
        retryAfterMs(response.headers),
        REFUSED_INPUT.has(response.status),
      );
    }
    return this.vectorsFrom(text, input.length);
  }

  private async authorization(): Promise<Record<string, string>> {
    const { apiKey, token } = this.settings;
    if (apiKey) return this.azure || isAzureHost(this.settings.url) ? { "api-key": apiKey } : { authorization: `Bearer ${apiKey}` };
    if (!token) return {};
    try {
      return { authorization: `Bearer ${await token()}` };
    } catch (error) {
      // Not retried here: the credential has its own retries, and a missing identity does not appear by waiting.
      throw new AttemptFailed(
        `No token for ${this.where}: ${causeOf(error)}. Give the app's identity the "Cognitive Services OpenAI User" role on the ` +
          "account, or set MEMORY_EMBEDDINGS_API_KEY.",
        false,
      );
    }
  }

  /** The answer's vectors in input order, each checked and made unit length. */
  private vectorsFrom(text: string, count: number): Float32Array[] {
    const wrong = (what: string) => new AttemptFailed(`${capitalised(this.where)} answered with ${what}.`, false);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw wrong("something that is not JSON");
    }
    const data = (parsed as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) throw wrong("no `data` list");
    if (data.length !== count) throw wrong(`${data.length} vectors for ${count} texts`);
    const vectors: (Float32Array | undefined)[] = new Array<Float32Array | undefined>(count);
    data.forEach((item: unknown, position) => {
      const { index, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
      // Every service we know answers in order and says so; an answer without indexes is taken in order.
      const at = index === undefined ? position : index;
      if (typeof at !== "number" || !Number.isInteger(at) || at < 0 || at >= count || vectors[at]) {
        throw wrong(`a vector index out of place (${JSON.stringify(at)})`);
      }
      if (!Array.isArray(embedding) || embedding.length !== this.dimensions) {
        const length = Array.isArray(embedding) ? `${embedding.length} dimensions` : "no embedding list";
        throw wrong(
          `${length} where ${this.dimensions} were expected: set MEMORY_EMBEDDINGS_DIMENSIONS to the model's vector length, ` +
            "or use a model that supports the `dimensions` parameter",
        );
      }
      if (!embedding.every((value) => typeof value === "number" && Number.isFinite(value))) throw wrong("a vector that is not all numbers");
      vectors[at] = unit(embedding as number[]);
    });
    return vectors as Float32Array[];
  }
}

/** The vector scaled to length 1 (all zeros stays all zeros: a text the model knows nothing of). */
function unit(values: readonly number[]): Float32Array {
  const vector = Float32Array.from(values);
  let sum = 0;
  for (const value of values) sum += value * value;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm;
  return vector;
}

/** retry-after-ms (Azure OpenAI sends it) or retry-after in seconds or as an HTTP date. */
function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number(headers.get("retry-after-ms") ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get("retry-after");
  if (raw === null) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

/** The service's own error message (OpenAI and Azure: {error: {message}}), short, for the operator. */
function serviceMessage(body: string): string {
  let message: unknown;
  try {
    message = (JSON.parse(body) as { error?: { message?: unknown } } | null)?.error?.message;
  } catch {
    message = body;
  }
  const text = typeof message === "string" ? message.replace(/\s+/g, " ").trim().replace(/\.$/, "") : "";
  return text ? `: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}` : "";
}

function advice(status: number): string {
  if (status === 401 || status === 403) return ". Check MEMORY_EMBEDDINGS_API_KEY, or the identity's role on the account.";
  if (status === 404) return ". Check MEMORY_EMBEDDINGS_ENDPOINT and MEMORY_EMBEDDINGS_MODEL (the deployment, on Azure).";
  if (status === 400) return ". Check MEMORY_EMBEDDINGS_MODEL and MEMORY_EMBEDDINGS_DIMENSIONS.";
  return ".";
}

function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
