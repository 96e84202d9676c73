import { randomBytes } from "node:crypto";

import { describe, expect, test } from "@jest/globals";
import { Client as ModernClient, type ElicitResult, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

import { LIMITS } from "../src/domain/model/limits.js";
import { hashApiKey } from "../src/http/auth/apiKeyVerifier.js";
import { CONFIRMATION_PARTITION, confirmationKey } from "../src/storage/rows/keys.js";
import { connectStorage } from "../src/storage/table/client.js";
import { TableConfirmationStore } from "../src/storage/writes/confirmations.js";
import { failed, type McpTestClient, ok, TEST_TABLE, testConnectionString, type TestServer, withTestServers } from "./support/harness.js";
import { partitionRows, rawTable } from "./support/rawRows.js";

/**
 * Confirmation before destruction (docs/confirmation.md), through real SDK clients of both eras on two instances of one
 * deployment: delete_workspace, merge_entities and a delete_entities of more than LIMITS.deleteEntitiesUnconfirmed
 * entities run on a 2026-07-28 client with elicitation only when its user says yes, through a sealed request state that
 * any instance verifies and that confirms one call once; every other client passes the tool's explicit `confirm`. Whatever
 * is refused leaves the workspace's partition exactly as it was (every row, ETags included). Retries the SDK client would
 * never send (no answer, a tampered or replayed state, a state sent with other arguments) are sent as raw HTTP, made from
 * a retry the client did send.
 */

const prefix = `cf${randomBytes(4).toString("hex")}`;
const KEYS = { alice: "alice-key-0123456789", bob: "bob-key-0123456789" };
const ENTRIES = [
  { id: "alice", sha256: hashApiKey(KEYS.alice), workspaces: [`${prefix}-*`], access: "write" },
  { id: "bob", sha256: hashApiKey(KEYS.bob), workspaces: [`${prefix}-*`], access: "write" },
];
const AUTH = { MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify(ENTRIES) };
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

let one: TestServer;
let two: TestServer;
let setup: McpTestClient;

// Two instances of one deployment: one table, each its own memory.
withTestServers(
  { servers: { one: { env: AUTH }, two: { env: AUTH } }, clients: { setup: { headers: bearer(KEYS.alice) } } },
  (started) => void ({ one, two, setup } = started),
);

const table = rawTable();
let workspaces = 0;
const freshWorkspace = () => `${prefix}-${(workspaces += 1)}`;

/** More entities than one delete_entities may delete unconfirmed. */
const NAMES = Array.from({ length: LIMITS.deleteEntitiesUnconfirmed + 2 }, (_, i) => `E${String(i + 1).padStart(2, "0")}`);

async function seed(ws: string): Promise<void> {
  ok(
    await setup.call("create_entities", {
      workspaceName: ws,
      entities: NAMES.map((name) => ({ name, entityType: "t", observations: [`${name} fact`] })),
    }),
  );
  ok(await setup.call("create_relations", { workspaceName: ws, relations: [{ from: "E01", to: "E02", relationType: "knows" }] }));
}

/** Every row of the partition, as storage holds it (with ETags and timestamps: a refused call must not touch one). */
const rowsOf = (ws: string) => partitionRows(table, ws);
const entityNames = async (ws: string) => (await partitionRows(table, ws, { only: ["entity"] })).map((row) => String(row.name)).sort();

// ---- the four tools ---------------------------------------------------------------------------------------------------

type Tool = "delete_workspace" | "merge_entities" | "delete_entities" | "execute_batch";

interface Case {
  tool: Tool;
  /** The destructive call's arguments in workspace `ws` (without workspaceName, and without confirm unless it is required). */
  args(ws: string): Record<string, unknown>;
  /** What a client that cannot ask its user passes to confirm, in workspace `ws`. */
  explicit(ws: string): Record<string, unknown>;
  /** A call such a client makes without confirming (in `ws`), and what the refusal says to do. */
  unconfirmed(ws: string): { args: Record<string, unknown>; says: string };
  /** The same tool with arguments that would destroy something else (delete_workspace has none). */
  other?: Record<string, unknown>;
  /** The entities left once the call ran. */
  after: string[];
}

const CASES: Case[] = [
  {
    // Its confirm (the name again) is required of every client; a client that can ask its user asks too.
    tool: "delete_workspace",
    args: (ws) => ({ confirm: ws }),
    explicit: (ws) => ({ confirm: ws }),
    unconfirmed: (ws) => ({ args: { confirm: `${ws}x` }, says: `confirm must repeat the workspace name exactly ('${ws}')` }),
    after: [],
  },
  {
    tool: "merge_entities",
    args: () => ({ target: "E01", sources: ["E02"] }),
    explicit: () => ({ confirm: true }),
    unconfirmed: () => ({ args: { target: "E01", sources: ["E02"] }, says: "cannot ask its user: pass confirm: true" }),
    other: { target: "E01", sources: ["E03"] },
    after: NAMES.filter((name) => name !== "E02"),
  },
  {
    tool: "delete_entities",
    args: () => ({ entityNames: NAMES }),
    explicit: () => ({ confirm: true }),
    unconfirmed: () => ({ args: { entityNames: NAMES }, says: "cannot ask its user: pass confirm: true" }),
    other: { entityNames: NAMES.slice(0, LIMITS.deleteEntitiesUnconfirmed + 1) },
    after: [],
  },
  {
    // A batch may not delete more unconfirmed than delete_entities may: its delete_entities operations count together.
    tool: "execute_batch",
    args: () => ({ operations: splitDeletes(NAMES) }),
    explicit: () => ({ confirm: true }),
    unconfirmed: () => ({ args: { operations: splitDeletes(NAMES) }, says: "cannot ask its user: pass confirm: true" }),
    other: { operations: splitDeletes(NAMES.slice(0, LIMITS.deleteEntitiesUnconfirmed + 1)) },
    after: [],
  },
];

/** Two delete_entities operations that between them delete `names`, each under the threshold on its own. */
function splitDeletes(names: string[]) {
  const half = Math.ceil(names.length / 2);
  return [names.slice(0, half), names.slice(half)].map((entityNames) => ({ op: "delete_entities", args: { entityNames } }));
}

// ---- clients and raw retries ------------------------------------------------------------------------------------------

/** One tools/call as it crossed the wire: enough to send it again, changed. */
interface SentCall {
  url: string;
  headers: Record<string, string>;
  body: { jsonrpc: "2.0"; id: unknown; method: string; params: CallParams };
}
interface CallParams {
  name: string;
  arguments: Record<string, unknown>;
  inputResponses?: Record<string, unknown>;
  requestState?: string;
  _meta?: unknown;
}

interface Modern {
  client: ModernClient;
  /** The tools/call requests it sent, in order. */
  sent: SentCall[];
  /** The questions its user was asked. */
  asked: string[];
  call(tool: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/**
 * The v2 SDK's client pinned to 2026-07-28, as `key`'s holder, on `server`'s /api/mcp. With `answer` it declares form
 * elicitation and its user answers each question so; without, it declares no elicitation. `route` may send a request
 * elsewhere (another instance).
 */
async function modernClient(
  server: TestServer,
  options: { answer?: ElicitResult; key?: string; route?: (call: SentCall) => string } = {},
): Promise<Modern> {
  const sent: SentCall[] = [];
  const asked: string[] = [];
  const client = new ModernClient(
    { name: "confirmation-tests", version: "1.0.0" },
    {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
      ...(options.answer ? { capabilities: { elicitation: { form: {} } } } : {}),
    },
  );
  if (options.answer) {
    const answer = options.answer;
    client.setRequestHandler("elicitation/create", (request) => {
      asked.push(request.params.message);
      return answer;
    });
  }
  const transport = new ModernTransport(new URL("/api/mcp", server.url), {
    requestInit: { headers: bearer(options.key ?? KEYS.alice) },
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const body = request.method === "POST" ? (JSON.parse(await request.clone().text()) as SentCall["body"]) : undefined;
      if (body?.method !== "tools/call") return fetch(request);
      const call: SentCall = { url: request.url, headers: Object.fromEntries(request.headers), body };
      sent.push(call);
      const url = options.route?.(call) ?? request.url;
      return fetch(url, { method: "POST", headers: call.headers, body: JSON.stringify(body) });
    },
  });
  await client.connect(transport);
  await client.listTools();
  return {
    client,
    sent,
    asked,
    call: async (tool, args) => (await client.callTool({ name: tool, arguments: args })) as unknown as CallToolResult,
    close: () => client.close(),
  };
}

/** Sends a tools/call as raw HTTP (to `server`, or where it was sent): its result, or the JSON-RPC error it met. */
async function resend(call: SentCall, server?: TestServer): Promise<CallToolResult> {
  const url = server ? new URL("/api/mcp", server.url).toString() : call.url;
  const response = await fetch(url, { method: "POST", headers: call.headers, body: JSON.stringify(call.body) });
  const answer = (await response.json()) as { result?: CallToolResult; error?: unknown };
  if (!answer.result) throw new Error(`tools/call answered ${response.status}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

/** A sent call with changed params (and the routing header that names the tool, which the SDK checks against the body). */
function changed(call: SentCall, params: Partial<CallParams>, headers: Record<string, string> = {}): SentCall {
  const body = { ...call.body, params: { ...call.body.params, ...params } };
  // The routing headers follow the body, as a client sends them (a header that disagreed would be refused before any tool ran).
  const workspace = (body.params.arguments as { workspaceName?: unknown } | undefined)?.workspaceName;
  const kept = Object.fromEntries(Object.entries(call.headers).filter(([name]) => name.toLowerCase() !== "mcp-param-workspace"));
  const routing = { "mcp-name": body.params.name, ...(typeof workspace === "string" ? { "mcp-param-workspace": workspace } : {}) };
  const next = { ...call, body, headers: { ...kept, ...routing, ...headers } };
  if (params.inputResponses === undefined && "inputResponses" in params) delete next.body.params.inputResponses;
  return next;
}

const ACCEPT: ElicitResult = { action: "accept", content: { confirm: true } };
const DECLINE: ElicitResult = { action: "decline" };
const ACCEPTED = { confirm: { action: "accept", content: { confirm: true } } };

/** The retry a client sent after its user answered: the call that carries the request state. */
function retryOf(client: Modern): SentCall {
  const retry = client.sent.find((call) => call.body.params.requestState !== undefined);
  if (!retry) throw new Error(`The client sent no retry with a request state: ${JSON.stringify(client.sent.map((c) => c.body.params))}`);
  return retry;
}

/** A seeded workspace, a 2026 client whose user declines, and the retry it sent: the raw material of a crafted retry. */
async function declinedRetry(kase: Case): Promise<{ ws: string; retry: SentCall }> {
  const ws = freshWorkspace();
  await seed(ws);
  const client = await modernClient(one, { answer: DECLINE });
  try {
    failed(await client.call(kase.tool, { workspaceName: ws, ...kase.args(ws) }));
    return { ws, retry: retryOf(client) };
  } finally {
    await client.close();
  }
}

/** One character of the request state's payload changed (so its MAC no longer matches). */
function tampered(state: string): string {
  const at = Math.floor(state.length / 3);
  return `${state.slice(0, at)}${state[at] === "A" ? "B" : "A"}${state.slice(at + 1)}`;
}

async function expectUnchanged(ws: string, before: Awaited<ReturnType<typeof rowsOf>>): Promise<void> {
  expect(await rowsOf(ws)).toEqual(before);
}

// ---- 2026-07-28 clients that can ask their user -------------------------------------------------------------------------

describe.each(CASES)("$tool on a 2026-07-28 client with elicitation", (kase) => {
  test("the user's yes runs it, whatever the agent passed", async () => {
    const ws = freshWorkspace();
    await seed(ws);
    const client = await modernClient(one, { answer: ACCEPT });
    try {
      ok(await client.call(kase.tool, { workspaceName: ws, ...kase.args(ws) }));
      expect(client.asked).toEqual([expect.stringContaining(`'${ws}'`)]);
      expect(await entityNames(ws)).toEqual(kase.after);
      // The user's yes is stored as used, outside the workspace.
      const used = await partitionRows(table, CONFIRMATION_PARTITION, { only: ["confirmation"] });
      expect(used.filter((row) => row.workspace === ws)).toEqual([
        expect.objectContaining({ tool: kase.tool, principal: "key:alice", expiresAt: expect.any(String) }),
      ]);
    } finally {
      await client.close();
    }
  });

  test("the user's no changes nothing, even with the agent's own confirm", async () => {
    const ws = freshWorkspace();
    await seed(ws);
    const before = await rowsOf(ws);
    const client = await modernClient(one, { answer: DECLINE });
    try {
      const error = failed(await client.call(kase.tool, { workspaceName: ws, ...kase.args(ws), ...kase.explicit(ws) }));
      expect(error).toEqual(
        expect.objectContaining({ error: "ValidationError", message: expect.stringMatching(/user declined\. Nothing was changed/) }),
      );
      expect(client.asked).toHaveLength(1);
      await expectUnchanged(ws, before);
    } finally {
      await client.close();
    }
  });

  test("a retry with no answer changes nothing", async () => {
    const { ws, retry } = await declinedRetry(kase);
    const before = await rowsOf(ws);
    const error = failed(await resend(changed(retry, { inputResponses: undefined })));
    expect(error.message).toMatch(/carries no answer.*Nothing was changed/);
    await expectUnchanged(ws, before);
  });

  test("a tampered request state is refused, even with a yes", async () => {
    const { ws, retry } = await declinedRetry(kase);
    const before = await rowsOf(ws);
    const state = retry.body.params.requestState!;
    const error = failed(await resend(changed(retry, { inputResponses: ACCEPTED, requestState: tampered(state) })));
    expect(error).toEqual(
      expect.objectContaining({ error: "ValidationError", message: expect.stringMatching(/not one this server issued/) }),
    );
    await expectUnchanged(ws, before);
    // The same retry with the state as it was runs: only the changed character was refused.
    ok(await resend(changed(retry, { inputResponses: ACCEPTED })));
    expect(await entityNames(ws)).toEqual(kase.after);
  });

  test("a confirmed retry sent again is refused: a confirmation confirms one call", async () => {
    const ws = freshWorkspace();
    await seed(ws);
    const client = await modernClient(one, { answer: ACCEPT });
    try {
      ok(await client.call(kase.tool, { workspaceName: ws, ...kase.args(ws) }));
      await seed(ws); // what the replay would destroy
      const before = await rowsOf(ws);
      const error = failed(await resend(retryOf(client)));
      expect(error).toEqual(expect.objectContaining({ error: "ConflictError", message: expect.stringMatching(/already used/) }));
      await expectUnchanged(ws, before);
    } finally {
      await client.close();
    }
  });

  test("a yes for one workspace cannot confirm another", async () => {
    const { ws, retry } = await declinedRetry(kase);
    const other = freshWorkspace();
    await seed(other);
    const [before, otherBefore] = [await rowsOf(ws), await rowsOf(other)];
    const moved = changed(retry, { inputResponses: ACCEPTED, arguments: { workspaceName: other, ...kase.args(other) } });
    expect(failed(await resend(moved)).message).toMatch(/given for another call/);
    await expectUnchanged(ws, before);
    await expectUnchanged(other, otherBefore);
  });

  test("a yes cannot confirm another tool, other arguments, or another caller", async () => {
    const { ws, retry } = await declinedRetry(kase);
    const before = await rowsOf(ws);
    const accepted = changed(retry, { inputResponses: ACCEPTED });
    const otherTool = CASES.find((other) => other.tool !== kase.tool)!;
    const attempts = [
      changed(accepted, { name: otherTool.tool, arguments: { workspaceName: ws, ...otherTool.args(ws) } }),
      ...(kase.other ? [changed(accepted, { arguments: { workspaceName: ws, ...kase.other } })] : []),
      changed(accepted, {}, { authorization: `Bearer ${KEYS.bob}` }),
    ];
    for (const attempt of attempts) expect(failed(await resend(attempt)).message).toMatch(/given for another call/);
    await expectUnchanged(ws, before);
    // The untouched retry, with the user's yes, still confirms: each refusal above was the change's, and used nothing up.
    ok(await resend(accepted));
    expect(await entityNames(ws)).toEqual(kase.after);
  });
});

describe("asking only where something is destroyed", () => {
  test("delete_entities of at most the threshold, and a dry-run merge, ask nothing", async () => {
    const ws = freshWorkspace();
    await seed(ws);
    const client = await modernClient(one, { answer: DECLINE });
    try {
      ok(await client.call("merge_entities", { workspaceName: ws, target: "E01", sources: ["E02"], dryRun: true }));
      ok(await client.call("delete_entities", { workspaceName: ws, entityNames: NAMES.slice(0, LIMITS.deleteEntitiesUnconfirmed - 1) }));
      const oneMore = NAMES.slice(LIMITS.deleteEntitiesUnconfirmed - 1, LIMITS.deleteEntitiesUnconfirmed);
      ok(await client.call("execute_batch", { workspaceName: ws, operations: splitDeletes(oneMore) }));
      expect(client.asked).toEqual([]);
      expect(await entityNames(ws)).toEqual(NAMES.slice(LIMITS.deleteEntitiesUnconfirmed));
    } finally {
      await client.close();
    }
  });

  test("an operation's own confirm does not confirm a batch: the batch is confirmed as a whole", async () => {
    const ws = freshWorkspace();
    await seed(ws);
    const before = await rowsOf(ws);
    const operations = splitDeletes(NAMES).map((operation) => ({ ...operation, args: { ...operation.args, confirm: true } }));
    const error = failed(await setup.call("execute_batch", { workspaceName: ws, operations }));
    expect(error.message).toMatch(/cannot ask its user: pass confirm: true/);
    await expectUnchanged(ws, before);
  });

  test("a 2025-era request with envelope capabilities but no protocol version is not asked: it is told what to pass", async () => {
    const ws = freshWorkspace();
    await seed(ws);
    const before = await rowsOf(ws);
    const response = await fetch(new URL("/api/mcp", one.url), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...bearer(KEYS.alice) },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "merge_entities",
          arguments: { workspaceName: ws, target: "E01", sources: ["E02"] },
          _meta: { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } },
        },
      }),
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { result?: CallToolResult };
    expect(answer.result).toBeDefined();
    expect(failed(answer.result!).message).toMatch(/cannot ask its user: pass confirm: true/);
    await expectUnchanged(ws, before);
  });

  test("delete_workspace with a wrong name is refused before the user is asked", async () => {
    const ws = freshWorkspace();
    await seed(ws);
    const before = await rowsOf(ws);
    const client = await modernClient(one, { answer: ACCEPT });
    try {
      expect(failed(await client.call("delete_workspace", { workspaceName: ws, confirm: `${ws}x` })).message).toMatch(
        /confirm must repeat the workspace name exactly/,
      );
      expect(client.asked).toEqual([]);
      await expectUnchanged(ws, before);
    } finally {
      await client.close();
    }
  });
});

describe("what it costs", () => {
  test("asking costs no storage request; a confirmed call one more than an explicitly confirmed one (the nonce's insert)", async () => {
    await declinedRetry(CASES[2]!); // the shared key is read once per process: read by now
    const [asked, told] = [freshWorkspace(), freshWorkspace()];
    await seed(asked);
    await seed(told);
    const modern = await modernClient(one, { answer: ACCEPT });
    const plain = await modernClient(one);
    try {
      const start = one.logs.length;
      ok(await plain.call("delete_entities", { workspaceName: told, entityNames: NAMES, confirm: true }));
      ok(await modern.call("delete_entities", { workspaceName: asked, entityNames: NAMES }));
      const [explicit, asking, confirmed] = one.logs.slice(start).map((log) => log.storageRequests);
      expect([asking, confirmed]).toEqual([0, explicit! + 1]);
    } finally {
      await Promise.all([modern.close(), plain.close()]);
    }
  });
});

describe("used confirmations", () => {
  test("an instance clears expired records once an hour, on a confirmed call, and keeps the others", async () => {
    let now = Date.now();
    const storage = connectStorage(
      { kind: "connectionString", connectionString: testConnectionString(), tableName: TEST_TABLE, source: "test" },
      { clock: () => now },
    );
    const store = new TableConfirmationStore(storage.gateway);
    const record = (expiresAtMs: number) => ({
      nonce: randomBytes(16).toString("hex"),
      expiresAtMs,
      tool: "delete_entities",
      workspace: freshWorkspace(),
      principal: "key:alice",
    });
    // A key from long ago sorts first: it is among the 100 records one prune takes, whatever else expired.
    const [old, kept] = [record(1_000 + Math.floor(Math.random() * 1_000)), record(now + 2 * 60 * 60_000)];
    expect(await store.consume(old)).toBe(true);
    expect(await store.consume(kept)).toBe(true);
    expect(await store.consume(old)).toBe(false);
    const stored = async (used: { nonce: string; expiresAtMs: number }) =>
      (
        await partitionRows(table, CONFIRMATION_PARTITION, {
          range: { from: confirmationKey(used.expiresAtMs, used.nonce), to: `${confirmationKey(used.expiresAtMs, used.nonce)}~` },
        })
      ).length;
    now += 59 * 60_000;
    expect(await store.consume(record(now + 600_000))).toBe(true);
    expect([await stored(old), await stored(kept)]).toEqual([1, 1]);
    now += 2 * 60_000; // an hour since the store was made: this confirmed call prunes
    expect(await store.consume(record(now + 600_000))).toBe(true);
    expect([await stored(old), await stored(kept)]).toEqual([0, 1]);
  });
});

describe("across instances", () => {
  test("instance one asks, instance two receives the confirmed retry and runs it", async () => {
    const ws = freshWorkspace();
    await seed(ws);
    const retried: string[] = [];
    const toTwo = (call: SentCall) => {
      if (call.body.params.requestState === undefined) return call.url;
      retried.push(call.body.params.name);
      return new URL("/api/mcp", two.url).toString();
    };
    const client = await modernClient(one, { answer: ACCEPT, route: toTwo });
    try {
      const [oneBefore, twoBefore] = [one.logs.length, two.logs.length];
      ok(await client.call("delete_entities", { workspaceName: ws, entityNames: NAMES }));
      expect(retried).toEqual(["delete_entities"]);
      expect(one.logs.slice(oneBefore).map((log) => log.tool)).toEqual(["delete_entities"]);
      expect(two.logs.slice(twoBefore).map((log) => [log.tool, log.outcome])).toEqual([["delete_entities", "ok"]]);
      expect(await entityNames(ws)).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

// ---- clients that cannot ask their user ---------------------------------------------------------------------------------

/** The v1 SDK's client (2025-era), declaring elicitation: a stateless server cannot use it, so it is never asked. */
async function legacyClientWithElicitation(asked: string[]): Promise<Caller> {
  const client = new LegacyClient({ name: "confirmation-tests", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params.message);
    return { action: "accept", content: { confirm: true } };
  });
  await client.connect(new LegacyTransport(new URL("/api/mcp", one.url), { requestInit: { headers: bearer(KEYS.alice) } }));
  await client.listTools();
  return {
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: () => client.close(),
  };
}

/** What the tests below use of a client of either era. */
type Caller = Pick<Modern, "call" | "close">;

describe.each(CASES)("$tool on clients that cannot ask their user", (kase) => {
  const clients: [string, (asked: string[]) => Promise<Caller>][] = [
    ["a 2025-era client (declaring elicitation)", legacyClientWithElicitation],
    ["a 2026-07-28 client without elicitation", async () => modernClient(one)],
  ];

  test.each(clients)("%s: unconfirmed it is refused and says what to pass; confirmed, it runs", async (_label, connect) => {
    const ws = freshWorkspace();
    await seed(ws);
    const before = await rowsOf(ws);
    const asked: string[] = [];
    const client = await connect(asked);
    try {
      const unconfirmed = kase.unconfirmed(ws);
      const error = failed(await client.call(kase.tool, { workspaceName: ws, ...unconfirmed.args }));
      expect(error.message).toContain(unconfirmed.says);
      expect(error.message).toMatch(/Nothing was (changed|deleted)\.$/);
      await expectUnchanged(ws, before);
      ok(await client.call(kase.tool, { workspaceName: ws, ...kase.args(ws), ...kase.explicit(ws) }));
      expect(asked).toEqual([]);
      expect(await entityNames(ws)).toEqual(kase.after);
    } finally {
      await client.close();
    }
  });
});
