import { describe, expect, test } from "@jest/globals";

import type { ChangeEvent, FeedPosition } from "../src/domain/feed/history.js";
import { CLOCK_SKEW_ALLOWANCE_MS, feedLatenessMs } from "../src/storage/table/client.js";
import { TableGraphStore } from "../src/storage/tableGraphStore.js";
import { type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";

/** changesSince: the feed primitive (docs/history.md#the-change-feed), against real Azurite. */
let server: TestServer;
let mcp: McpTestClient;
let store: TableGraphStore;
const held: { marker: string; release: () => void; sent: Promise<void> }[] = [];
const sent: { method: string; url: string }[] = [];
withServerAndClient((started, client) => {
  server = started;
  mcp = client;
  store = new TableGraphStore(server.app.storage);
  // Holds a transaction whose body carries a marker after its writer chose the event key (the key is in the
  // body) and before it reaches storage: a slow writer on another instance.
  server.app.storage.table.pipeline.addPolicy({
    name: "testHoldWriter",
    sendRequest: async (request, next) => {
      sent.push({ method: request.method, url: request.url });
      const hold = held.find((entry) => typeof request.body === "string" && request.body.includes(entry.marker));
      if (hold) await hold.sent;
      return next(request);
    },
  });
});

function holdWritesContaining(marker: string): () => void {
  let release!: () => void;
  const sent = new Promise<void>((resolve) => (release = resolve));
  held.push({ marker, release, sent });
  return release;
}

const entityNames = (events: ChangeEvent[]) =>
  events.flatMap((event) => event.changes.filter((change) => change.kind === "entity.created").map((change) => change.entityName));

async function requestsOf<T>(work: () => Promise<T>): Promise<{ value: T; requests: number }> {
  const tally = { requests: 0 };
  const value = await server.app.storage.counter.run(work, tally);
  return { value, requests: tally.requests };
}

describe("changesSince", () => {
  test("returns the events after a position, each once, and one request when nothing changed", async () => {
    const ws = uniqueWorkspace("feed");
    const first = await store.changesSince(ws);
    expect(first.events).toEqual([]);
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "t" }));
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "B", entityType: "t" }));
    const second = await store.changesSince(ws, first.position);
    expect(entityNames(second.events)).toEqual(["A", "B"]);
    const idle = await requestsOf(() => store.changesSince(ws, second.position));
    expect(idle.value.events).toEqual([]);
    expect(idle.requests).toBe(1);
  });

  test("a writer held between choosing its event key and committing: its event is still returned, exactly once", async () => {
    const ws = uniqueWorkspace("feed-late");
    let position: FeedPosition = (await store.changesSince(ws)).position;
    const release = holdWritesContaining("held-writer-marker");
    const slow = mcp.call("upsert_entity", { workspaceName: ws, name: "Slow", entityType: "t", observations: ["held-writer-marker"] });
    // The slow writer has read and chosen its key (its transaction is held); a fast one commits a later key.
    await new Promise((resolve) => setTimeout(resolve, 300));
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Fast", entityType: "t" }));
    const early = await store.changesSince(ws, position);
    expect(entityNames(early.events)).toEqual(["Fast"]);
    position = early.position;

    release();
    ok(await slow);
    const late = await store.changesSince(ws, position);
    expect(entityNames(late.events)).toEqual(["Slow"]);
    // The slow event's key sorts before the fast one's: it was chosen first.
    expect(late.events[0]!.id < early.events[0]!.id).toBe(true);
    const again = await store.changesSince(ws, late.position);
    expect(again.events).toEqual([]);
  });

  test("writes carry the service-side timeout the bound rests on; reads do not", async () => {
    const ws = uniqueWorkspace("feed-timeout");
    sent.length = 0;
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "A", entityType: "t" }));
    const [read, write] = sent.filter((request) => request.url.includes(ws) || request.url.includes("$batch"));
    expect(read!.method).toBe("GET");
    expect(new URL(read!.url).searchParams.has("timeout")).toBe(false);
    expect(write!.method).toBe("POST");
    expect(new URL(write!.url).searchParams.get("timeout")).toBe("10");
  });

  test("the lateness bound: attempts × (server timeout + backoff) + clock-skew allowance", () => {
    // The defaults: 2 retries, 10 s per attempt.
    expect(feedLatenessMs(2, 10_000)).toBe(3 * (10_000 + 1000) + CLOCK_SKEW_ALLOWANCE_MS);
    // The service's timeout is in whole seconds, rounded up.
    expect(feedLatenessMs(0, 1500)).toBe(2000 + 1000 + CLOCK_SKEW_ALLOWANCE_MS);
  });
});
