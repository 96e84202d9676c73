import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local HTTP server speaking the embeddings API in both URL shapes the client knows (src/search/embedding/endpointEmbedder.ts):
 * an OpenAI-compatible base URL (POST /v1/embeddings, `model` in the body, `Authorization: Bearer <key>`) and an Azure OpenAI
 * resource (POST /openai/deployments/{deployment}/embeddings?api-version=…, `api-key: <key>` or `Authorization: Bearer <token>`).
 * It checks what it is sent and refuses like a service would. Its vectors stand in for another model: a hashed bag of words
 * (each word adds ±1 at a dimension chosen by its hash), scaled so that they are not unit length; it never calls our code.
 */
type Fault =
  | { status: number; retryAfter?: string; retryAfterMs?: string; message?: string }
  | { wrongCount: true }
  | { wrongDimensions: true }
  | { shuffled: true }
  | { slowMs: number };

export interface StandInOptions {
  /** The model name (OpenAI shape) and deployment name (Azure shape) it serves. */
  model?: string;
  deployment?: string;
  /** The model's own vector length. */
  dimensions?: number;
  /** Whether it honours the `dimensions` parameter (text-embedding-3 does; ada-002 answers 400). */
  shortens?: boolean;
  /** The key it expects (OpenAI: Bearer; Azure: api-key). Unset: no key is checked on the OpenAI shape. */
  apiKey?: string;
  /** A bearer token the Azure shape also accepts (as a managed identity's would be). */
  token?: string;
  apiVersions?: string[];
  /** Most inputs one request may carry. */
  maxInputs?: number;
  /** Inputs it refuses with 400, as a model refuses a text longer than it takes. */
  refuses?: (text: string) => boolean;
}

interface Received {
  path: string;
  headers: IncomingMessage["headers"];
  body: { input?: unknown; model?: unknown; dimensions?: unknown };
}

export interface EmbeddingsStandIn {
  /** The server's origin (the Azure resource URL shape); `${url}/v1` is the OpenAI-compatible base URL. */
  url: string;
  /** Every request it answered, in order. */
  received: Received[];
  /** Faults for the next requests, one each, in order. */
  fail(...faults: Fault[]): void;
  /** A fault for every request from now on (until `heal`). */
  failAlways(fault: Fault): void;
  heal(): void;
  /** The vector it gives a text (before scaling), for comparisons. */
  vectorOf(text: string, dimensions?: number): number[];
  close(): Promise<void>;
}

const SCALE = 3;

function bagOfWords(text: string, dimensions: number): number[] {
  const vector: number[] = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const hash = createHash("sha256").update(word).digest();
    vector[hash.readUInt32BE(0) % dimensions]! += hash[4]! & 1 ? 1 : -1;
  }
  return vector;
}

export async function startEmbeddingsStandIn(options: StandInOptions = {}): Promise<EmbeddingsStandIn> {
  const model = options.model ?? "stand-in-embed";
  const deployment = options.deployment ?? "stand-in-deployment";
  const native = options.dimensions ?? 32;
  const apiVersions = options.apiVersions ?? ["2024-10-21"];
  const received: Received[] = [];
  const queued: Fault[] = [];
  let always: Fault | undefined;
  const timers = new Set<NodeJS.Timeout>();

  const send = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { "content-type": "application/json", ...headers });
    response.end(JSON.stringify(body));
  };
  const refuse = (response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) =>
    send(response, status, { error: { code: String(status), message } }, headers);

  const answer = (request: IncomingMessage, response: ServerResponse, raw: string) => {
    const url = new URL(request.url ?? "/", "http://stand-in");
    let body: Received["body"];
    try {
      body = JSON.parse(raw) as Received["body"];
    } catch {
      return refuse(response, 400, "The body is not JSON.");
    }
    received.push({ path: `${url.pathname}${url.search}`, headers: request.headers, body });
    const azure = /^\/openai\/deployments\/([^/]+)\/embeddings$/.exec(url.pathname);
    if (request.method !== "POST") return refuse(response, 405, "POST only.");
    if (azure) {
      if (decodeURIComponent(azure[1]!) !== deployment)
        return refuse(response, 404, "The API deployment for this resource does not exist.");
      if (!apiVersions.includes(url.searchParams.get("api-version") ?? "")) return refuse(response, 404, "Resource not found");
      const key = request.headers["api-key"];
      const bearer = request.headers.authorization;
      const keyOk = options.apiKey !== undefined && key === options.apiKey;
      const tokenOk = options.token !== undefined && bearer === `Bearer ${options.token}`;
      if (!keyOk && !tokenOk) return refuse(response, 401, "Access denied due to invalid subscription key or wrong API endpoint.");
    } else if (url.pathname === "/v1/embeddings") {
      if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
        return refuse(response, 401, "Incorrect API key provided.");
      }
      if (body.model !== model) return refuse(response, 404, `The model '${String(body.model)}' does not exist.`);
    } else {
      return refuse(response, 404, "Not found.");
    }
    const input = body.input;
    if (!Array.isArray(input) || input.length === 0 || !input.every((item) => typeof item === "string" && item !== "")) {
      return refuse(response, 400, "'input' must be a non-empty list of non-empty strings.");
    }
    if (input.length > (options.maxInputs ?? 2048)) return refuse(response, 400, "Too many inputs.");
    if ((input as string[]).some((text) => options.refuses?.(text))) {
      return refuse(response, 400, "This model's maximum context length is 8192 tokens.");
    }
    let dimensions = native;
    if (body.dimensions !== undefined) {
      if (!options.shortens) return refuse(response, 400, "This model does not support specifying dimensions.");
      if (typeof body.dimensions !== "number" || body.dimensions < 1 || body.dimensions > native) {
        return refuse(response, 400, "'dimensions' is out of range.");
      }
      dimensions = body.dimensions;
    }
    const fault = queued.shift() ?? always;
    if (fault && "status" in fault) {
      const headers: Record<string, string> = {};
      if (fault.retryAfter !== undefined) headers["retry-after"] = fault.retryAfter;
      if (fault.retryAfterMs !== undefined) headers["retry-after-ms"] = fault.retryAfterMs;
      return refuse(response, fault.status, fault.message ?? `Stand-in fault ${fault.status}.`, headers);
    }
    let data = (input as string[]).map((text, index) => ({
      object: "embedding",
      index,
      embedding: bagOfWords(text, dimensions).map((value) => value * SCALE),
    }));
    if (fault && "wrongCount" in fault) data = data.slice(1);
    if (fault && "wrongDimensions" in fault) data = data.map((item) => ({ ...item, embedding: item.embedding.slice(1) }));
    if (fault && "shuffled" in fault) data = [...data].reverse();
    const payload = { object: "list", data, model, usage: { prompt_tokens: 0, total_tokens: 0 } };
    if (fault && "slowMs" in fault) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!response.destroyed) send(response, 200, payload);
      }, fault.slowMs);
      timers.add(timer);
      return;
    }
    send(response, 200, payload);
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => answer(request, response, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    fail: (...faults) => queued.push(...faults),
    failAlways: (fault) => (always = fault),
    heal: () => {
      always = undefined;
      queued.length = 0;
    },
    vectorOf: (text, dimensions = native) => bagOfWords(text, dimensions),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
