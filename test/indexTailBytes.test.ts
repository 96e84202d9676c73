import { describe, expect, test } from "@jest/globals";

import { type McpTestClient, ok, type TestServer, uniqueWorkspace, withTestServers } from "./support/harness.js";

/**
 * Issue #21, defect 11: after a burst of writes, an index-served read of the unchanged workspace downloads only what is new
 * (the registry row), not the burst again. Counted, not timed: a pipeline policy on the reading instance's TableClient adds
 * up the bytes of every query answer. A row can become visible a little after the commit time it carries, so a tail read
 * downloads again the rows committed within the commit margin (5 s, src/storage/reads/indexSource.ts) of the previous read's
 * server time (docs/search.md#freshness): the reads wait out the margin, and the first of them may download once more
 * what the read before the pause could not yet rule out. Every read after that downloads only the registry row.
 */

const MARGIN_MS = 5_000;
/** What a read of an unchanged workspace may download: the registry row and the answer's envelope. */
const SMALL_BYTES = 4_096;

let reader: TestServer;
let r: McpTestClient;
let w: McpTestClient;
let downloaded = 0;

withTestServers({ servers: { reader: {}, writer: {} }, clients: { r: { on: "reader" }, w: { on: "writer" } } }, (started) => {
  ({ reader, r, w } = started);
  reader.app.storage.table.pipeline.addPolicy({
    name: "testBytesDownloaded",
    sendRequest: async (request, next) => {
      const response = await next(request);
      if (request.method === "GET") downloaded += Buffer.byteLength(response.bodyAsText ?? "");
      return response;
    },
  });
});

async function bytesOf(call: () => Promise<unknown>): Promise<number> {
  const before = downloaded;
  await call();
  return downloaded - before;
}

/** 300 entities, 3 observations of 100 characters each, in 3 calls (about 150 KB of events). */
async function burst(ws: string, tag: string): Promise<void> {
  for (let call = 0; call < 3; call++) {
    const entities = Array.from({ length: 100 }, (_, i) => ({
      name: `${tag}-${call}-${i}`,
      entityType: "thing",
      observations: [0, 1, 2].map((k) => `${tag} observation ${k} of ${call}-${i} `.padEnd(100, "x")),
    }));
    ok(await w.call("create_entities", { workspaceName: ws, entities }));
  }
}

const reads = (ws: string) => [
  () => r.call("search_entities", { workspaceName: ws, query: "observation" }),
  () => r.call("read_graph", { workspaceName: ws, limit: 5 }),
  () => r.call("get_stats", { workspaceName: ws }),
];

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("index-served reads of an unchanged workspace after a burst of writes", () => {
  test("an index built before the burst: the first read downloads the burst once, later reads only the registry row", async () => {
    const ws = uniqueWorkspace("bytes");
    ok(await w.call("upsert_entity", { workspaceName: ws, name: "seed", entityType: "thing" }));
    ok(await r.call("get_stats", { workspaceName: ws })); // built (and its generation claimed)
    await burst(ws, "b");
    const first = await bytesOf(() => r.call("get_stats", { workspaceName: ws }));
    expect(first).toBeGreaterThan(100_000); // what is new
    await pause(MARGIN_MS + 1_500);
    expect(await bytesOf(() => r.call("get_stats", { workspaceName: ws }))).toBeLessThanOrEqual(first);
    const later: number[] = [];
    for (let round = 0; round < 3; round++) for (const read of reads(ws)) later.push(await bytesOf(read));
    expect(later.filter((bytes) => bytes > SMALL_BYTES)).toEqual([]);
  });

  test("an index built right after the burst: no later read downloads the burst again", async () => {
    const ws = uniqueWorkspace("bytes");
    ok(await w.call("upsert_entity", { workspaceName: ws, name: "seed", entityType: "thing" }));
    await burst(ws, "c");
    ok(await r.call("get_stats", { workspaceName: ws })); // the build: its scan reads the burst's rows and events
    await pause(MARGIN_MS + 1_500);
    ok(await r.call("get_stats", { workspaceName: ws }));
    const later: number[] = [];
    for (let round = 0; round < 3; round++) for (const read of reads(ws)) later.push(await bytesOf(read));
    expect(later.filter((bytes) => bytes > SMALL_BYTES)).toEqual([]);
  });
});
