import { afterAll, beforeAll, beforeEach, describe, expect, test } from "@jest/globals";

import { InvalidSettingsError } from "../src/config/problems.js";
import { readSettings } from "../src/config/settings.js";
import { EmbeddingUnavailable } from "../src/domain/ports/embedder.js";
import { EndpointEmbedder, type EndpointSettings, type EndpointTuning } from "../src/search/embedding/endpointEmbedder.js";
import { type EmbeddingsStandIn, startEmbeddingsStandIn } from "./support/embeddingsStandIn.js";

/**
 * The embeddings endpoint client against a local server speaking the same API (test/support/embeddingsStandIn.ts): both URL
 * shapes and their credentials, batching, retries, and every way an answer can be wrong. Waits between retries go through an
 * injected sleep that records them, so no test waits on a clock or asserts on one.
 */
const KEY = "sk-stand-in-key";
const TOKEN = "entra-token-of-the-identity";
let standIn: EmbeddingsStandIn;
let slept: number[] = [];
const tuning: Partial<EndpointTuning> = {
  sleep: (ms) => {
    slept.push(ms);
    return Promise.resolve();
  },
};

beforeAll(async () => {
  standIn = await startEmbeddingsStandIn({
    model: "bag-of-words",
    deployment: "words-dep",
    dimensions: 32,
    shortens: true,
    apiKey: KEY,
    token: TOKEN,
  });
});

afterAll(async () => {
  await standIn.close();
});

beforeEach(() => {
  standIn.heal();
  standIn.received.length = 0;
  slept = [];
});

const openAi = (extra: Partial<EndpointSettings> = {}): EndpointSettings => ({
  url: `${standIn.url}/v1`,
  model: "bag-of-words",
  dimensions: 32,
  requestDimensions: false,
  apiKey: KEY,
  ...extra,
});
const azure = (extra: Partial<EndpointSettings> = {}): EndpointSettings => ({
  url: standIn.url,
  model: "words-dep",
  dimensions: 32,
  requestDimensions: false,
  apiKey: KEY,
  ...extra,
});

const length = (vector: Float32Array) => Math.hypot(...vector);
/** The stand-in's vector for `text`, made unit length as the client must. */
function expectedUnit(text: string, dimensions = 32): number[] {
  const raw = standIn.vectorOf(text, dimensions);
  const norm = Math.hypot(...raw);
  return raw.map((value) => (norm > 0 ? value / norm : 0));
}
function expectClose(actual: Float32Array, expected: number[]) {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((value, i) => expect(value).toBeCloseTo(expected[i]!, 6));
}
async function failure(promise: Promise<unknown>): Promise<EmbeddingUnavailable> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(EmbeddingUnavailable);
  return error as EmbeddingUnavailable;
}

describe("URL shapes and credentials", () => {
  test("an OpenAI-compatible base URL: POST {base}/embeddings with the model in the body and the key as a bearer token", async () => {
    const embedder = new EndpointEmbedder(openAi(), tuning);
    const [first, second] = await embedder.embed(["Payments service owns refunds", "the on-call rota"]);
    expect(standIn.received).toHaveLength(1);
    const [request] = standIn.received;
    expect(request!.path).toBe("/v1/embeddings");
    expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request!.headers["api-key"]).toBeUndefined();
    expect(request!.body).toEqual({ input: ["Payments service owns refunds", "the on-call rota"], model: "bag-of-words" });
    expectClose(first!, expectedUnit("Payments service owns refunds"));
    expectClose(second!, expectedUnit("the on-call rota"));
    expect(embedder.model).toBe("endpoint:bag-of-words@32");
    expect(embedder.remote).toBe(true);
    expect(embedder.dimensions).toBe(32);
  });

  test("an Azure OpenAI resource URL: the deployment in the path, api-version in the query, the key in api-key", async () => {
    const embedder = new EndpointEmbedder(azure(), tuning);
    const [vector] = await embedder.embed(["Payments service owns refunds"]);
    const [request] = standIn.received;
    expect(request!.path).toBe("/openai/deployments/words-dep/embeddings?api-version=2024-10-21");
    expect(request!.headers["api-key"]).toBe(KEY);
    expect(request!.headers.authorization).toBeUndefined();
    expect(request!.body).toEqual({ input: ["Payments service owns refunds"] });
    expectClose(vector!, expectedUnit("Payments service owns refunds"));
    expect(embedder.model).toBe("endpoint:words-dep@32");
  });

  test("on Azure without a key, the identity's token goes as a bearer token", async () => {
    const asked: number[] = [];
    const token = () => {
      asked.push(1);
      return Promise.resolve(TOKEN);
    };
    const { apiKey: _none, ...keyless } = azure();
    const [vector] = await new EndpointEmbedder({ ...keyless, token }, tuning).embed(["refunds"]);
    expect(standIn.received[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(standIn.received[0]!.headers["api-key"]).toBeUndefined();
    expect(asked).toHaveLength(1);
    expectClose(vector!, expectedUnit("refunds"));
  });

  test("a credential that gives no token fails at once, naming the role to grant", async () => {
    const { apiKey: _none, ...keyless } = azure();
    const token = () => Promise.reject(new Error("ManagedIdentityCredential: no managed identity endpoint found"));
    const error = await failure(new EndpointEmbedder({ ...keyless, token }, tuning).embed(["refunds"]));
    expect(error.message).toMatch(/no managed identity endpoint found/);
    expect(error.message).toMatch(/Cognitive Services OpenAI User/);
    expect(standIn.received).toHaveLength(0);
  });

  test("a wrong key is refused once, not retried, and the message says which setting to check (never the key)", async () => {
    for (const settings of [openAi({ apiKey: "sk-wrong" }), azure({ apiKey: "sk-wrong" })]) {
      standIn.received.length = 0;
      const error = await failure(new EndpointEmbedder(settings, tuning).embed(["refunds"]));
      expect(error.message).toMatch(/answered 401/);
      expect(error.message).toMatch(/MEMORY_EMBEDDINGS_API_KEY/);
      expect(error.message).not.toMatch(/sk-wrong/);
      expect(standIn.received).toHaveLength(1);
    }
    expect(slept).toEqual([]);
  });

  test("an unknown deployment or api-version answers 404, and the message points at the endpoint and model settings", async () => {
    const deployment = await failure(new EndpointEmbedder(azure({ model: "nope" }), tuning).embed(["x"]));
    expect(deployment.message).toMatch(/answered 404: The API deployment for this resource does not exist.*MEMORY_EMBEDDINGS_MODEL/);
    const version = await failure(new EndpointEmbedder(azure({ apiVersion: "2023-01-01" }), tuning).embed(["x"]));
    expect(version.message).toMatch(/404/);
    expect(standIn.received.at(-1)!.path).toMatch(/api-version=2023-01-01$/);
  });

  test("dimensions are asked for only when configured, and the vectors have that length", async () => {
    const embedder = new EndpointEmbedder(openAi({ dimensions: 8, requestDimensions: true }), tuning);
    const [vector] = await embedder.embed(["refunds are owned by payments"]);
    expect(standIn.received[0]!.body.dimensions).toBe(8);
    expect(embedder.model).toBe("endpoint:bag-of-words@8");
    expectClose(vector!, expectedUnit("refunds are owned by payments", 8));
  });
});

describe("batches and answers", () => {
  test("inputs go in batches (150 texts, 64 a call: 3 calls), and come back in input order, each unit length", async () => {
    const texts = Array.from({ length: 150 }, (_, i) => `observation number ${i} about service s${i % 7}`);
    const vectors = await new EndpointEmbedder(openAi(), { ...tuning, batchSize: 64 }).embed(texts);
    expect(standIn.received.map((request) => (request.body.input as string[]).length).sort((a, b) => a - b)).toEqual([22, 64, 64]);
    expect(vectors).toHaveLength(150);
    vectors.forEach((vector, i) => {
      expect(length(vector)).toBeCloseTo(1, 5);
      expectClose(vector, expectedUnit(texts[i]!));
    });
  });

  test("blank texts are not sent (the API refuses them) and get the zero vector; a text too long is cut", async () => {
    const long = `refunds ${"x".repeat(50)}`;
    const vectors = await new EndpointEmbedder(openAi(), { ...tuning, maxInputChars: 10 }).embed(["", "refunds", "   ", long]);
    expect(standIn.received).toHaveLength(1);
    expect(standIn.received[0]!.body.input).toEqual(["refunds", long.slice(0, 10)]);
    expect([...vectors[0]!].every((value) => value === 0)).toBe(true);
    expect([...vectors[2]!].every((value) => value === 0)).toBe(true);
    expectClose(vectors[1]!, expectedUnit("refunds"));
    expect(await new EndpointEmbedder(openAi(), tuning).embed([])).toEqual([]);
  });

  test("an answer out of order is put back in order by its indexes", async () => {
    standIn.fail({ shuffled: true });
    const [a, b, c] = await new EndpointEmbedder(openAi(), tuning).embed(["alpha team", "beta service", "gamma rota"]);
    expectClose(a!, expectedUnit("alpha team"));
    expectClose(b!, expectedUnit("beta service"));
    expectClose(c!, expectedUnit("gamma rota"));
  });

  test("fewer vectors than texts is an error, not retried", async () => {
    standIn.fail({ wrongCount: true });
    const error = await failure(new EndpointEmbedder(openAi(), tuning).embed(["alpha", "beta"]));
    expect(error.message).toMatch(/answered with 1 vectors for 2 texts/);
    expect(standIn.received).toHaveLength(1);
  });

  test("vectors of the wrong length are an error that names MEMORY_EMBEDDINGS_DIMENSIONS", async () => {
    standIn.fail({ wrongDimensions: true });
    const error = await failure(new EndpointEmbedder(openAi(), tuning).embed(["alpha"]));
    expect(error.message).toMatch(/31 dimensions where 32 were expected.*MEMORY_EMBEDDINGS_DIMENSIONS/);
    // A model configured with the wrong length is the same error.
    const configured = await failure(new EndpointEmbedder(openAi({ dimensions: 64 }), tuning).embed(["alpha"]));
    expect(configured.message).toMatch(/32 dimensions where 64 were expected/);
  });
});

describe("retries", () => {
  test("a 500 then success: retried once, with a backoff", async () => {
    standIn.fail({ status: 500 });
    const [vector] = await new EndpointEmbedder(openAi(), tuning).embed(["refunds"]);
    expect(standIn.received).toHaveLength(2);
    expect(slept).toEqual([500]);
    expectClose(vector!, expectedUnit("refunds"));
  });

  test("a 429 waits what retry-after (seconds) or retry-after-ms asks, then succeeds", async () => {
    standIn.fail({ status: 429, retryAfter: "2" }, { status: 429, retryAfterMs: "750" });
    const [vector] = await new EndpointEmbedder(azure(), tuning).embed(["refunds"]);
    expect(standIn.received).toHaveLength(3);
    expect(slept).toEqual([2000, 750]);
    expectClose(vector!, expectedUnit("refunds"));
  });

  test("a service that keeps failing: bounded retries, then EmbeddingUnavailable with the status and the service's words", async () => {
    standIn.failAlways({ status: 503, message: "The service is temporarily overloaded." });
    const error = await failure(new EndpointEmbedder(openAi(), { ...tuning, maxRetries: 3 }).embed(["refunds"]));
    expect(standIn.received).toHaveLength(4);
    expect(slept).toEqual([500, 1000, 2000]);
    expect(error.message).toMatch(/answered 503: The service is temporarily overloaded \(4 attempts\)\.$/);
    expect(error.message).toContain(`${standIn.url}/v1/embeddings`);
  });

  test("a retry-after longer than the client waits ends the call at once, saying so", async () => {
    standIn.fail({ status: 429, retryAfter: "3600" });
    const error = await failure(new EndpointEmbedder(openAi(), tuning).embed(["refunds"]));
    expect(error.message).toMatch(/429.*retry after 3600 s, longer than this client waits/);
    expect(standIn.received).toHaveLength(1);
    expect(slept).toEqual([]);
  });

  test("a service that does not answer in time: each attempt is abandoned at the timeout, then EmbeddingUnavailable", async () => {
    standIn.failAlways({ slowMs: 30_000 });
    const error = await failure(new EndpointEmbedder(openAi(), { ...tuning, timeoutMs: 200, maxRetries: 1 }).embed(["refunds"]));
    expect(error.message).toMatch(/did not answer within 200 ms \(2 attempts\)\.$/);
    expect(standIn.received).toHaveLength(2);
  });

  test("nothing listening: EmbeddingUnavailable saying it could not be reached", async () => {
    const gone = await startEmbeddingsStandIn();
    const url = `${gone.url}/v1`;
    await gone.close();
    const error = await failure(new EndpointEmbedder(openAi({ url }), { ...tuning, maxRetries: 1 }).embed(["refunds"]));
    expect(error.message).toMatch(/could not be reached/);
  });
});

describe("settings", () => {
  const problems = (env: NodeJS.ProcessEnv): string[] => {
    try {
      readSettings(env, "cli");
      return [];
    } catch (error) {
      if (!(error instanceof InvalidSettingsError)) throw error;
      return error.problems.map((problem) => problem.setting);
    }
  };

  test("unset means the local model; an endpoint URL alone means the endpoint; off is off", () => {
    expect(readSettings({}, "cli").embeddings).toEqual({ kind: "local" });
    expect(readSettings({ MEMORY_EMBEDDINGS: "OFF" }, "cli").embeddings).toEqual({ kind: "off" });
    const endpoint = readSettings(
      { MEMORY_EMBEDDINGS_ENDPOINT: "https://api.openai.com/v1", MEMORY_EMBEDDINGS_MODEL: "text-embedding-3-small" },
      "cli",
    ).embeddings;
    expect(endpoint).toEqual({
      kind: "endpoint",
      url: "https://api.openai.com/v1",
      model: "text-embedding-3-small",
      dimensions: 1536,
      requestDimensions: false,
    });
  });

  test("an Azure resource URL without a key gets the identity's token source; with a key, none", () => {
    const base = {
      MEMORY_EMBEDDINGS_ENDPOINT: "https://acct.openai.azure.com/",
      MEMORY_EMBEDDINGS_MODEL: "embed",
      MEMORY_EMBEDDINGS_DIMENSIONS: "256",
    };
    const keyless = readSettings(base, "cli").embeddings;
    expect(keyless).toMatchObject({ kind: "endpoint", dimensions: 256, requestDimensions: true });
    expect(typeof (keyless as { token?: unknown }).token).toBe("function");
    const keyed = readSettings({ ...base, MEMORY_EMBEDDINGS_API_KEY: "k", MEMORY_EMBEDDINGS_API_VERSION: "2024-06-01" }, "cli").embeddings;
    expect(keyed).toMatchObject({ apiKey: "k", apiVersion: "2024-06-01" });
    expect((keyed as { token?: unknown }).token).toBeUndefined();
    // Azure's OpenAI-compatible path on an Azure host: the identity too; any other host without a key: no credential at all.
    const v1 = readSettings({ ...base, MEMORY_EMBEDDINGS_ENDPOINT: "https://acct.openai.azure.com/openai/v1" }, "cli").embeddings;
    expect(typeof (v1 as { token?: unknown }).token).toBe("function");
    const elsewhere = readSettings({ ...base, MEMORY_EMBEDDINGS_ENDPOINT: "https://embed.example/v1" }, "cli").embeddings;
    expect(elsewhere).not.toHaveProperty("token");
    expect(elsewhere).not.toHaveProperty("apiKey");
  });

  test("invalid combinations are reported together, each naming its setting", () => {
    expect(problems({ MEMORY_EMBEDDINGS: "endpoint" })).toEqual(["MEMORY_EMBEDDINGS_ENDPOINT", "MEMORY_EMBEDDINGS_MODEL"]);
    expect(problems({ MEMORY_EMBEDDINGS: "local", MEMORY_EMBEDDINGS_MODEL: "m" })).toEqual(["MEMORY_EMBEDDINGS_MODEL"]);
    expect(problems({ MEMORY_EMBEDDINGS: "vectors" })).toEqual(["MEMORY_EMBEDDINGS"]);
    expect(problems({ MEMORY_EMBEDDINGS_ENDPOINT: "http://example.com/v1", MEMORY_EMBEDDINGS_MODEL: "text-embedding-3-small" })).toEqual([
      "MEMORY_EMBEDDINGS_ENDPOINT",
    ]);
    expect(problems({ MEMORY_EMBEDDINGS_ENDPOINT: "https://h.example/v1", MEMORY_EMBEDDINGS_MODEL: "home-made" })).toEqual([
      "MEMORY_EMBEDDINGS_DIMENSIONS",
    ]);
    expect(
      problems({
        MEMORY_EMBEDDINGS_ENDPOINT: "https://h.example/v1",
        MEMORY_EMBEDDINGS_MODEL: "text-embedding-3-small",
        MEMORY_EMBEDDINGS_API_VERSION: "2024-10-21",
      }),
    ).toEqual(["MEMORY_EMBEDDINGS_API_VERSION"]);
  });

  test("the settings read from the environment drive the client against the stand-in", async () => {
    const read = readSettings(
      {
        MEMORY_EMBEDDINGS_ENDPOINT: standIn.url,
        MEMORY_EMBEDDINGS_MODEL: "words-dep",
        MEMORY_EMBEDDINGS_DIMENSIONS: "16",
        MEMORY_EMBEDDINGS_API_KEY: KEY,
      },
      "cli",
    ).embeddings;
    if (read.kind !== "endpoint") throw new Error("expected the endpoint");
    const { kind: _kind, ...settings } = read;
    const [vector] = await new EndpointEmbedder(settings, tuning).embed(["refunds"]);
    expect(standIn.received[0]!.path).toBe("/openai/deployments/words-dep/embeddings?api-version=2024-10-21");
    expect(standIn.received[0]!.body).toEqual({ input: ["refunds"], dimensions: 16 });
    expectClose(vector!, expectedUnit("refunds", 16));
  });
});
