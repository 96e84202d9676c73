import { describe, expect, test } from "@jest/globals";
import { InMemoryResponseCacheStore, SERVER_INFO_META_KEY } from "@modelcontextprotocol/client";

import { CACHE_HINTS } from "../src/mcp/cacheHints.js";
import { connectClient, type Era, type McpTestClient, ok, type TestServer, uniqueWorkspace, withTestServer } from "./support/harness.js";

/**
 * Cache hints and icons as clients of both eras see them (docs/architecture.md#cache-hints, #icons): a 2026-07-28 client's
 * raw answers carry exactly the `ttlMs`/`cacheScope` of src/mcp/cacheHints.ts, 2025-era answers and tool results carry
 * none, the v2 client's response cache never serves a read from before a write, and every listing shows its icons.
 */

/** One JSON-RPC exchange as it crossed the wire. */
interface Seen {
  method: string;
  result?: Record<string, unknown>;
  error?: unknown;
}

/** A fetch that records each JSON-RPC request's method with the raw answer it got (a JSON body or SSE `data:` lines). */
function recordingFetch(seen: Seen[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const sent = request.method === "POST" ? (JSON.parse(await request.clone().text()) as { method?: string; id?: unknown }) : {};
    const response = await fetch(request);
    const text = await response.clone().text();
    if (sent.method !== undefined && sent.id !== undefined && text !== "") {
      const messages = response.headers.get("content-type")?.includes("text/event-stream")
        ? text
            .split("\n")
            .filter((line) => line.startsWith("data:"))
            .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>)
        : [JSON.parse(text) as Record<string, unknown>];
      for (const message of messages) seen.push({ method: sent.method, ...message } as Seen);
    }
    return response;
  };
}

let server: TestServer;
withTestServer((started) => void (server = started));

interface Connection {
  mcp: McpTestClient;
  seen: Seen[];
}

/** A client of `era` on a bound route (where the graph resource is listed), recording what crosses the wire. */
async function connectRecording(era: Era, cache?: InMemoryResponseCacheStore): Promise<Connection> {
  const ws = uniqueWorkspace(`cache${era}`);
  const seen: Seen[] = [];
  const mcp = await connectClient(server.url, `/api/workspaces/${ws}/mcp`, {
    era,
    fetch: recordingFetch(seen),
    ...(cache ? { responseCacheStore: cache } : {}),
  });
  ok(await mcp.call("upsert_entity", { name: "Alice", entityType: "person", observations: ["likes tea"] }));
  return { mcp, seen };
}

/** Lists, reads and calls once each (a listing the client already holds fresh is not asked for again). */
async function exercise({ mcp }: Connection): Promise<void> {
  await mcp.client.listTools();
  await mcp.client.listResources();
  await mcp.client.listResourceTemplates();
  // The memory-context prompt's listing (the 2025-era client type the tests share has no listPrompts).
  if (mcp.modern) await mcp.modern.listPrompts();
  await mcp.client.readResource({ uri: "memory://knowledge-graph" });
  ok(await mcp.call("get_stats"));
}

function answersTo(seen: Seen[], method: string): Record<string, unknown>[] {
  const answers = seen.filter((exchange) => exchange.method === method);
  for (const answer of answers) expect({ method, error: answer.error }).toEqual({ method, error: undefined });
  return answers.map((answer) => answer.result!);
}

const HOUR_MS = 60 * 60 * 1000;
const hintsOf = (result: Record<string, unknown>) => ({ ttlMs: result.ttlMs, cacheScope: result.cacheScope });
const NO_HINTS = { ttlMs: undefined, cacheScope: undefined };

describe("cache hints", () => {
  test("a 2026-07-28 client's raw answers carry exactly the hints cacheHints.ts sets, and tool results none", async () => {
    const connection = await connectRecording("2026");
    try {
      await exercise(connection);
      expect(Object.keys(CACHE_HINTS).sort()).toEqual([
        "prompts/list",
        "resources/list",
        "resources/read",
        "resources/templates/list",
        "server/discover",
        "tools/list",
      ]);
      // Whatever cacheHints.ts comes to say, a read stays valid only at the moment it was made (the write test's premise).
      expect(CACHE_HINTS["resources/read"]).toEqual({ ttlMs: 0, cacheScope: "private" });
      expect(CACHE_HINTS["tools/list"]).toEqual({ ttlMs: HOUR_MS, cacheScope: "private" });
      for (const [method, hints] of Object.entries(CACHE_HINTS)) {
        const answers = answersTo(connection.seen, method);
        expect({ method, answers: answers.length > 0 }).toEqual({ method, answers: true });
        for (const result of answers) expect({ method, ...hintsOf(result) }).toEqual({ method, ...hints });
      }
      const calls = answersTo(connection.seen, "tools/call");
      expect(calls.length).toBeGreaterThan(0);
      for (const result of calls) expect(hintsOf(result)).toEqual(NO_HINTS);
    } finally {
      await connection.mcp.close();
    }
  });

  test("2025-era answers carry none", async () => {
    const connection = await connectRecording("2025");
    try {
      await exercise(connection);
      const methods = new Set(connection.seen.map((exchange) => exchange.method));
      for (const method of ["initialize", "tools/list", "resources/list", "resources/templates/list", "resources/read", "tools/call"]) {
        expect({ method, seen: methods.has(method) }).toEqual({ method, seen: true });
      }
      for (const exchange of connection.seen)
        expect({ method: exchange.method, ...hintsOf(exchange.result ?? {}) }).toEqual({ method: exchange.method, ...NO_HINTS });
    } finally {
      await connection.mcp.close();
    }
  });

  test("a write is never served from a cached read: the v2 client's response cache shows it at once", async () => {
    const cache = new InMemoryResponseCacheStore();
    const connection = await connectRecording("2026", cache);
    const { mcp, seen } = connection;
    const requestsFor = async (work: () => Promise<unknown>) => {
      const before = seen.length;
      await work();
      return seen.length - before;
    };
    const graphText = async () => {
      const { contents } = await mcp.client.readResource({ uri: "memory://knowledge-graph" });
      return contents.map((content) => ("text" in content ? content.text : "")).join("");
    };
    try {
      // The cache is on: a listing (an hour's hint) is served from it without a request.
      expect(await requestsFor(() => mcp.client.listTools())).toBe(0);
      const before = await graphText();
      expect(before).toContain("Alice");
      expect(before).not.toContain("Bob");
      ok(await mcp.call("upsert_entity", { name: "Bob", entityType: "person", observations: ["writes code"] }));
      let after = "";
      expect(await requestsFor(async () => void (after = await graphText()))).toBe(1);
      expect(after).toContain("Bob");
    } finally {
      await mcp.close();
    }
  });
});

/** A `data:image/svg+xml` icon's SVG text. */
function svgOf(icon: { src: string; mimeType?: string }): string {
  const match = /^data:image\/svg\+xml(;base64)?,(.*)$/s.exec(icon.src);
  if (!match) throw new Error(`Not an SVG data: URI: ${icon.src.slice(0, 60)}`);
  return match[1] ? Buffer.from(match[2]!, "base64").toString("utf8") : decodeURIComponent(match[2]!);
}

function expectOneSvgIcon(icons: unknown, what: string): void {
  const list = (icons ?? []) as { src: string; mimeType?: string }[];
  expect({ what, icons: list.length }).toEqual({ what, icons: 1 });
  expect({ what, svg: svgOf(list[0]!).trimStart().startsWith("<svg") }).toEqual({ what, svg: true });
  expect({ what, svg: svgOf(list[0]!).trimEnd().endsWith("</svg>") }).toEqual({ what, svg: true });
}

describe("icons", () => {
  test.each(["2025", "2026"] as const)("%s: serverInfo has the server icon, and every listed tool exactly one SVG icon", async (era) => {
    const connection = await connectRecording(era);
    try {
      await exercise(connection);
      if (era === "2025") {
        const [initialize] = answersTo(connection.seen, "initialize");
        expectOneSvgIcon((initialize!.serverInfo as { icons?: unknown }).icons, "initialize serverInfo");
      } else {
        const [discover] = answersTo(connection.seen, "server/discover");
        const meta = discover!._meta as Record<string, { icons?: unknown }>;
        expectOneSvgIcon(meta[SERVER_INFO_META_KEY]?.icons, "discover serverInfo");
      }
      expectOneSvgIcon(connection.mcp.client.getServerVersion()?.icons, "the client's serverInfo");
      const [listing] = answersTo(connection.seen, "tools/list");
      const tools = (listing!.tools as { name: string; icons?: unknown }[]) ?? [];
      expect(tools.length).toBeGreaterThan(0);
      for (const tool of tools) expectOneSvgIcon(tool.icons, tool.name);
    } finally {
      await connection.mcp.close();
    }
  });
});
