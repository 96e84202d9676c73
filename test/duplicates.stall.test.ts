import { monitorEventLoopDelay } from "node:perf_hooks";

import { describe, expect, test } from "@jest/globals";

import { type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";

/**
 * Issue #21, defect 5: one detect_duplicate_entities call on a hostile workspace (every name shares a word, each entity
 * holds much long text) must not hold the instance. The server runs in this process, so a health probe looping beside
 * the call, and the event loop's own delay histogram, see every stretch the call keeps the loop to itself.
 */
let server: TestServer;
let mcp: McpTestClient;
withServerAndClient((started, client) => {
  server = started;
  mcp = client;
});

const ENTITIES = 50;
const OBSERVATIONS = 100;
const CHARS = 1000;
/** The bound; the call itself takes well under a second of CPU once the text is read once. */
const BOUND_MS = 1000;

const WORDS = "alpha beta gamma delta service payment invoice ledger cluster search latency release mobile cache queue".split(" ");

/** Distinct text per entity and observation, deterministic: `CHARS` characters of words. */
function observation(entity: number, index: number): string {
  let state = entity * 7919 + index * 104729 + 1;
  let text = `${entity}-${index}`;
  while (text.length < CHARS) {
    state = (state * 1103515245 + 12345) % 2147483648;
    text += ` ${WORDS[state % WORDS.length]!}`;
  }
  return text.slice(0, CHARS);
}

describe("detect_duplicate_entities on a hostile workspace", () => {
  test(`${ENTITIES} entities sharing a name word, ${OBSERVATIONS} observations of ${CHARS} characters each: no probe waits ${BOUND_MS} ms`, async () => {
    const ws = uniqueWorkspace("dup-stall");
    for (let first = 0; first < ENTITIES; first += 10) {
      const entities = Array.from({ length: 10 }, (_, k) => ({
        name: `Shared project ${first + k}`,
        entityType: "project",
        observations: Array.from({ length: OBSERVATIONS }, (_, j) => observation(first + k, j)),
      }));
      ok(await mcp.call("create_entities", { workspaceName: ws, entities }));
    }

    const delay = monitorEventLoopDelay({ resolution: 10 });
    const waits: number[] = [];
    let done = false;
    const probing = (async () => {
      while (!done) {
        const sent = performance.now();
        const response = await fetch(`${server.url}/api/health`);
        await response.arrayBuffer();
        waits.push(performance.now() - sent);
      }
    })();
    delay.enable();
    let detected: { comparisons: number; entities: number; pairs: unknown[] };
    try {
      detected = ok(await mcp.call("detect_duplicate_entities", { workspaceName: ws }));
    } finally {
      done = true;
      delay.disable();
      await probing;
    }
    // Every pair compared (all names share "shared" and "project"): the call did the whole work.
    expect(detected.entities).toBe(ENTITIES);
    expect(detected.comparisons).toBe((ENTITIES * (ENTITIES - 1)) / 2);
    const longestWait = Math.max(...waits);
    const longestDelay = delay.max / 1e6;
    process.stderr.write(
      `detect_duplicate_entities: ${waits.length} health probes, longest wait ${longestWait.toFixed(0)} ms, longest event-loop delay ${longestDelay.toFixed(0)} ms\n`,
    );
    expect(waits.length).toBeGreaterThan(0);
    expect(longestWait).toBeLessThan(BOUND_MS);
    expect(longestDelay).toBeLessThan(BOUND_MS);
  });
});
