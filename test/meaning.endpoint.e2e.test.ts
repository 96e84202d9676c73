import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";

import { type EmbeddingsStandIn, startEmbeddingsStandIn } from "./support/embeddingsStandIn.js";
import { connectClient, type McpTestClient, ok, startTestServer, type TestServer, uniqueWorkspace } from "./support/harness.js";
import type { SearchHits } from "./support/outputs.js";
import { partitionRows, rawTable } from "./support/rawRows.js";

/**
 * Search by meaning through an embeddings endpoint, end to end (issue #24, docs/search.md#meaning): the server configured
 * with MEMORY_EMBEDDINGS=endpoint against a local stand-in speaking the OpenAI embeddings API. Vectors are kept in storage,
 * so a cold instance does not embed the workspace again; a change of model embeds it again, in the background, and says
 * how far it got; delete_workspace takes the kept vectors with it.
 */

const table = rawTable();
const vectorRows = (workspace: string) => partitionRows(table, `~vectors~${workspace}`);

let modelA: EmbeddingsStandIn;
let modelB: EmbeddingsStandIn;
let picky: EmbeddingsStandIn;
const started: { server: TestServer; client: McpTestClient }[] = [];

async function instance(
  standIn: EmbeddingsStandIn,
  model: string,
  dimensions: number,
): Promise<{ server: TestServer; client: McpTestClient }> {
  const server = await startTestServer({
    env: {
      MEMORY_EMBEDDINGS: "endpoint",
      MEMORY_EMBEDDINGS_ENDPOINT: `${standIn.url}/v1`,
      MEMORY_EMBEDDINGS_MODEL: model,
      MEMORY_EMBEDDINGS_DIMENSIONS: String(dimensions),
    },
  });
  const client = await connectClient(server.url);
  started.push({ server, client });
  return { server, client };
}

beforeAll(async () => {
  modelA = await startEmbeddingsStandIn({ model: "embed-a", dimensions: 32, shortens: true });
  modelB = await startEmbeddingsStandIn({ model: "embed-b", dimensions: 48, shortens: true });
  picky = await startEmbeddingsStandIn({ model: "embed-c", dimensions: 16, shortens: true, refuses: (text) => text.includes("TOO LONG") });
});

afterAll(async () => {
  await Promise.all(started.map(({ client }) => client.close()));
  await Promise.all(started.map(({ server }) => server.close()));
  await Promise.all([modelA?.close(), modelB?.close(), picky?.close()]);
});

/** The texts the stand-in was asked to embed, each request's inputs in order. */
const inputsOf = (standIn: EmbeddingsStandIn, from = 0) =>
  standIn.received.slice(from).flatMap((request) => request.body.input as string[]);

interface Embedding {
  model: string;
  remote: boolean;
  vectors: number;
  pending: number;
}
const embeddingOf = async (client: McpTestClient, workspaceName: string) =>
  ok<{ embedding: Embedding }>(await client.call("get_stats", { workspaceName })).embedding;

describe("an embeddings endpoint", () => {
  const ws = uniqueWorkspace("endpoint");
  // 40 entities of one observation each: 80 texts, more than one batch of 64, so a change of model re-embeds in the background.
  const entities = Array.from({ length: 40 }, (_, i) => ({
    name: `Service ${i}`,
    entityType: "service",
    observations: [i === 7 ? "rotates the signing keys every night" : `handles request kind ${i}`],
  }));
  const texts = entities.length * 2;

  test("embeds through the endpoint once, keeps the vectors under the model, and a cold instance reads them instead of embedding again", async () => {
    const first = await instance(modelA, "embed-a", 32);
    ok(await first.client.call("create_entities", { workspaceName: ws, entities }));
    const before = modelA.received.length;
    // The stand-in's vectors are a bag of words: the query shares its words with one observation, and words mode is not asked.
    const page = ok<SearchHits>(
      await first.client.call("search_entities", { workspaceName: ws, query: "signing keys rotates", mode: "meaning", limit: 3 }),
    );
    expect(page.hits[0]!.entity.name).toBe("Service 7");
    // Every text once (80, more than a batch of 64, so the first search embedded them in the background: wait for it), and
    // the query.
    for (let i = 0; i < 100 && (await embeddingOf(first.client, ws)).pending > 0; i++) await new Promise((r) => setTimeout(r, 50));
    const sent = inputsOf(modelA, before);
    expect(new Set(sent).size).toBe(texts + 1);
    expect(sent.filter((text) => text === "rotates the signing keys every night")).toHaveLength(1);
    expect(await embeddingOf(first.client, ws)).toEqual({ model: "endpoint:embed-a@32", remote: true, vectors: texts, pending: 0 });
    const rows = await vectorRows(ws);
    expect(rows).toHaveLength(texts);
    // Now that every text has its vector (the first answer ranked those the first batch had made).
    const whole = ok<SearchHits>(
      await first.client.call("search_entities", { workspaceName: ws, query: "signing keys rotates", mode: "meaning", limit: 3 }),
    );

    // A cold instance: one range read brings the kept vectors; the endpoint embeds only the query.
    const cold = await instance(modelA, "embed-a", 32);
    const calls = modelA.received.length;
    const requests = cold.server.requests();
    const again = ok<SearchHits>(
      await cold.client.call("search_entities", { workspaceName: ws, query: "signing keys rotates", mode: "meaning", limit: 3 }),
    );
    expect(again.hits.map((hit) => hit.entity.name)).toEqual(whole.hits.map((hit) => hit.entity.name));
    expect(inputsOf(modelA, calls)).toEqual(["signing keys rotates"]);
    // Its index's build (one scan, the generation claim) and one read of the kept vectors.
    expect(cold.server.requests() - requests).toBeLessThanOrEqual(4);
    expect(await embeddingOf(cold.client, ws)).toMatchObject({ vectors: texts, pending: 0 });
  });

  test("a change of model embeds the workspace again in the background, says how far it got, and keeps both models' vectors apart", async () => {
    const changed = await instance(modelB, "embed-b", 48);
    // The new model's first two calls (the first batch of 64 and the query, in either order) take a while, and the third (the
    // second batch, sent once the first is kept) longer: the first search answers, and get_stats is asked, before it is done.
    modelB.fail({ slowMs: 300 }, { slowMs: 300 }, { slowMs: 3000 });
    ok(await changed.client.call("search_entities", { workspaceName: ws, query: "nightly key rotation" }));
    const during = await embeddingOf(changed.client, ws);
    expect(during.model).toBe("endpoint:embed-b@48");
    expect(during.pending).toBeGreaterThan(0);
    expect(during.vectors + during.pending).toBe(texts);
    for (let i = 0; i < 200 && (await embeddingOf(changed.client, ws)).pending > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await embeddingOf(changed.client, ws)).toEqual({ model: "endpoint:embed-b@48", remote: true, vectors: texts, pending: 0 });
    expect(new Set(inputsOf(modelB).filter((text) => text !== "nightly key rotation")).size).toBe(texts);
    // Both models' vectors are kept, each under its own model.
    expect(await vectorRows(ws)).toHaveLength(2 * texts);
    const found = ok<SearchHits>(
      await changed.client.call("search_entities", { workspaceName: ws, query: "signing keys rotates", mode: "meaning", limit: 1 }),
    );
    expect(found.hits[0]!.entity.name).toBe("Service 7");
  });

  test("delete_workspace takes the kept vectors with it", async () => {
    const { client } = started[0]!;
    ok(await client.call("delete_workspace", { workspaceName: ws, confirm: ws }));
    expect(await vectorRows(ws)).toEqual([]);
  });
});

describe("an endpoint that fails", () => {
  test("hybrid ranks by words and graph and says why; meaning is an error saying what to do", async () => {
    const ws = uniqueWorkspace("endpointdown");
    const { client } = await instance(modelA, "embed-a", 32);
    ok(
      await client.call("create_entities", {
        workspaceName: ws,
        entities: [{ name: "Vault", entityType: "service", observations: ["keeps secrets"] }],
      }),
    );
    modelA.failAlways({ status: 401, message: "Incorrect API key provided." });
    try {
      const result = await client.call("search_entities", { workspaceName: ws, query: "vault secrets" });
      const page = ok<SearchHits>(result);
      expect(page.hits[0]!.entity.name).toBe("Vault");
      expect(JSON.stringify(result.content)).toMatch(/search by meaning is unavailable/);
      // The endpoint failed: for a while, searches do not call it again (each would wait for it), and say so.
      const calls = modelA.received.length;
      const refused = await client.call("search_entities", { workspaceName: ws, query: "vault secrets", mode: "meaning" });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toMatch(/mode 'words'/);
      expect(modelA.received.length).toBe(calls);
    } finally {
      modelA.heal();
    }
  });
});

describe("texts the endpoint refuses, and searches that arrive together", () => {
  test("a text the service refuses gets no vector; the rest of the workspace is searched by meaning", async () => {
    const ws = uniqueWorkspace("picky");
    const { client } = await instance(picky, "embed-c", 16);
    ok(
      await client.call("create_entities", {
        workspaceName: ws,
        entities: [
          { name: "Runbook", entityType: "doc", observations: ["TOO LONG for the model", "restart the queue workers"] },
          { name: "Queue", entityType: "service", observations: ["holds the pending orders"] },
        ],
      }),
    );
    const result = await client.call("search_entities", { workspaceName: ws, query: "restart queue workers", mode: "meaning" });
    const page = ok<SearchHits>(result);
    expect(page.hits[0]!.entity.name).toBe("Runbook");
    // Two names and three observations; the refused one holds the zero vector (found by nothing), so none is pending.
    expect(await embeddingOf(client, ws)).toMatchObject({ vectors: 5, pending: 0 });
    // Refused once as part of its batch, then alone; never again.
    const before = picky.received.length;
    ok(await client.call("search_entities", { workspaceName: ws, query: "restart queue workers", mode: "meaning" }));
    expect(picky.received.length).toBe(before);
  });

  test("searches of a cold workspace that arrive together embed each text once", async () => {
    const ws = uniqueWorkspace("together");
    const writer = await instance(modelA, "embed-a", 32);
    const entities = Array.from({ length: 20 }, (_, i) => ({ name: `Shop ${i}`, entityType: "shop", observations: [`sells item ${i}`] }));
    ok(await writer.client.call("create_entities", { workspaceName: ws, entities }));
    const reader = await instance(modelA, "embed-a", 32);
    const from = modelA.received.length;
    await Promise.all(
      Array.from({ length: 5 }, () =>
        reader.client.call("search_entities", { workspaceName: ws, query: "sells item", mode: "meaning" }),
      ).map(async (call) => ok(await call)),
    );
    const sent = inputsOf(modelA, from).filter((text) => text !== "sells item");
    expect(sent).toHaveLength(new Set(sent).size);
    expect(new Set(sent).size).toBe(entities.length * 2);
  });
});
