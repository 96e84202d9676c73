import { describe, expect, test } from "@jest/globals";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";

import { type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";

/**
 * Property-based fuzzing of the MCP surface with fast-check. A failing run prints its seed and the
 * shrunk counterexample; replay it with FUZZ_SEED=<seed> (and FUZZ_RUNS to scale a run up).
 *
 * Properties, for every input:
 * - the server answers (no hang) and never with a 5xx, and keeps running;
 * - every error is well-formed: a JSON-RPC error object, or a tool result with isError and
 *   {success:false, error, message} structured content that matches its text;
 * - a client mistake is never reported as a StorageError or ConflictError (storage is healthy here,
 *   so one would mean an internal failure, such as a thrown TypeError, masked as a storage error);
 * - a rejected call leaves the workspace exactly as it was (read_graph before and after).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const settings = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) };
/** Far above any answer this server gives; only a hang reaches it. */
const HANG_MS = Number(process.env.FUZZ_HANG_MS ?? 20_000);

const ERROR_KINDS = ["ValidationError", "NotFoundError", "ConflictError", "StorageError"];
const CLIENT_MISTAKE_KINDS = ["ValidationError", "NotFoundError"];

let server: TestServer;
let mcp: McpTestClient;
/** The workspace that fuzzed calls aim at half of the time, with a small graph in it. */
const workspace = uniqueWorkspace("fuzz");
const NAMES = ["Alice", "Bob", "Carol"];

withServerAndClient(async (started, client) => {
  server = started;
  mcp = client;
  for (const name of NAMES)
    ok(await mcp.call("upsert_entity", { workspaceName: workspace, name, entityType: "person", observations: [`${name} exists`] }));
  ok(await mcp.call("upsert_relation", { workspaceName: workspace, from: "Alice", to: "Bob", relationType: "knows" }));
});

async function readGraph(): Promise<string> {
  return JSON.stringify(ok(await mcp.call("read_graph", { workspaceName: workspace })));
}

// ---- generators ---------------------------------------------------------------------------------

/** Text with control characters, lone surrogates and non-BMP code points. */
const nastyString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)), minLength: 1, maxLength: 8 }),
  fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)), minLength: 1, maxLength: 4 }),
  fc.constantFrom("x' or PartitionKey ne '", "a/b", "#?\\", "~", "~~", "", " ", "null", "00000000-0000-0000-0000-000000000000"),
);
/** Just over and far over the 32,768-character property limit, and a name-sized overflow. */
const hugeString = fc
  .constantFrom(1025, 32_769, 70_000)
  .chain((length) => fc.constantFrom("a", "é", "😀").map((unit) => unit.repeat(length)));
/** Nested objects or arrays; deep enough to matter, shallow enough for the client to serialise. */
const deepValue = fc.integer({ min: 1, max: 2000 }).map((depth) => {
  let value: unknown = "leaf";
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { a: value } : [value];
  return value;
});
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 3, arbitrary: nastyString },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: deepValue },
  { weight: 1, arbitrary: fc.constantFrom(undefined, null, Number.NaN, -0, Number.MAX_SAFE_INTEGER + 2) },
);
/** Mostly valid, sometimes anything: so fuzzing reaches past the first check into the storage paths. */
const plausible = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 5, arbitrary: valid }, { weight: 1, arbitrary: anyValue });
const name = plausible(
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...NAMES) },
    { weight: 1, arbitrary: fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), nastyString) },
  ),
);
const fields = {
  workspaceName: plausible(fc.constant(workspace)),
  name,
  entityType: plausible(fc.constantFrom("person", "project")),
  observations: plausible(fc.array(fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), nastyString), { maxLength: 5 })),
  metadata: plausible(fc.oneof(fc.object({ maxDepth: 2 }), fc.constantFrom('{"k":1}', "[1]", "nope"))),
  from: name,
  to: name,
  fromEntityId: plausible(fc.uuid()),
  toEntityId: plausible(fc.uuid()),
  entityId: plausible(fc.uuid()),
  entityName: name,
  relationType: plausible(fc.constantFrom("knows", "works_on")),
  direction: plausible(fc.constantFrom("in", "out", "both")),
};
type Field = keyof typeof fields;

/**
 * Arguments shaped for one tool: its required fields usually present, its optional ones sometimes,
 * every value usually valid; now and then all fields are optional, or any tool's fields are mixed in,
 * plus unknown fields.
 */
function argumentsFor(required: Field[], optional: Field[]): fc.Arbitrary<Record<string, unknown>> {
  const pick = (keys: Field[]) => Object.fromEntries(keys.map((key) => [key, fields[key]])) as { [K in Field]?: fc.Arbitrary<unknown> };
  const shaped = fc.record(pick([...required, ...optional]), { requiredKeys: required });
  const loose = fc.record(pick(Object.keys(fields) as Field[]), { requiredKeys: [] });
  const extra = fc.dictionary(fc.string({ maxLength: 10 }), anyValue, { maxKeys: 2 });
  return fc
    .tuple(
      fc.oneof({ weight: 6, arbitrary: shaped }, { weight: 1, arbitrary: loose }),
      fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: extra }),
    )
    .map(([known, unknown]) => ({ ...unknown, ...known }));
}

const toolCall: fc.Arbitrary<{ tool: string; args: Record<string, unknown> }> = fc.oneof(
  {
    weight: 3,
    arbitrary: argumentsFor(["workspaceName", "name", "entityType"], ["observations", "metadata"]).map((args) => ({
      tool: "upsert_entity",
      args,
    })),
  },
  {
    weight: 3,
    arbitrary: argumentsFor(["workspaceName", "relationType"], ["from", "to", "fromEntityId", "toEntityId", "metadata"]).map((args) => ({
      tool: "upsert_relation",
      args,
    })),
  },
  {
    weight: 2,
    arbitrary: argumentsFor(["workspaceName"], ["entityId", "entityName", "direction"]).map((args) => ({
      tool: "get_entity_relations",
      args,
    })),
  },
  { weight: 1, arbitrary: argumentsFor(["workspaceName"], []).map((args) => ({ tool: "read_graph", args })) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.string({ maxLength: 20 }), argumentsFor([], ["workspaceName", "name"])).map(([tool, args]) => ({ tool, args })),
  },
);

// ---- checks ---------------------------------------------------------------------------------------

interface ToolResultLike {
  isError?: unknown;
  structuredContent?: unknown;
  content?: unknown;
}

/** A tool result is well-formed; returns the error kind for an error result, or undefined on success. */
function checkToolResult(result: ToolResultLike): string | undefined {
  expect(Array.isArray(result.content)).toBe(true);
  const first = (result.content as { type?: unknown; text?: unknown }[])[0];
  expect(first?.type).toBe("text");
  expect(first?.text).toBe(JSON.stringify(result.structuredContent));
  if (result.isError !== true) return undefined;
  const structured = result.structuredContent as Record<string, unknown>;
  expect(Object.keys(structured).sort()).toEqual(["error", "message", "success"]);
  expect(structured.success).toBe(false);
  expect(ERROR_KINDS).toContain(structured.error);
  expect(typeof structured.message).toBe("string");
  expect((structured.message as string).length).toBeGreaterThan(0);
  expect(structured.message).not.toMatch(/\n\s+at /); // no stack trace
  return structured.error as string;
}

function checkJsonRpcError(error: unknown): void {
  expect(error).toEqual({ code: expect.any(Number), message: expect.any(String), ...(hasData(error) ? { data: expect.anything() } : {}) });
  expect(Number.isInteger((error as { code: number }).code)).toBe(true);
}

const hasData = (error: unknown) => error !== null && typeof error === "object" && "data" in error;

/**
 * Checks one HTTP answer to a raw POST. Returns whether any tool call in it succeeded (which may
 * have changed the workspace), so the caller knows whether to compare or re-read the graph.
 */
async function checkRawAnswer(response: Response): Promise<{ anyToolSuccess: boolean }> {
  expect(response.status).toBeLessThan(500);
  const text = await response.text();
  if (response.status === 202) {
    expect(text).toBe(""); // notifications and responses only: accepted, nothing to say
    return { anyToolSuccess: false };
  }
  const body: unknown = JSON.parse(text);
  if (response.status === 406 || response.status === 415) {
    // A refusal of the request's headers, before any JSON-RPC: the one HTTP error shape (docs/usage.md).
    expect(body).toEqual({ error: expect.any(String), message: expect.any(String) });
    return { anyToolSuccess: false };
  }
  if (response.status >= 400) {
    expect(body).toMatchObject({ jsonrpc: "2.0", error: expect.anything() });
    checkJsonRpcError((body as { error: unknown }).error);
    return { anyToolSuccess: false };
  }
  expect(response.status).toBe(200);
  let anyToolSuccess = false;
  for (const message of Array.isArray(body) ? body : [body]) {
    expect(message).toMatchObject({ jsonrpc: "2.0" });
    if ("error" in message) {
      checkJsonRpcError(message.error);
      continue;
    }
    expect(message).toHaveProperty("result");
    const result = message.result as ToolResultLike;
    if (result && typeof result === "object" && "content" in result) {
      const kind = checkToolResult(result);
      if (kind === undefined) anyToolSuccess = true;
      else expect(CLIENT_MISTAKE_KINDS).toContain(kind);
    }
  }
  return { anyToolSuccess };
}

// ---- properties -----------------------------------------------------------------------------------

describe("fuzzing tool arguments through the MCP SDK client", () => {
  test("every call answers well-formed; rejected calls change nothing; client mistakes are never storage errors", async () => {
    let before = await readGraph();
    await fc.assert(
      fc.asyncProperty(toolCall, async ({ tool, args }) => {
        const result = (await mcp.client.callTool({ name: tool, arguments: args }, undefined, { timeout: HANG_MS })) as CallToolResult;
        const kind = checkToolResult(result);
        if (kind === undefined) {
          before = await readGraph(); // a successful write may change the graph
          return;
        }
        expect(CLIENT_MISTAKE_KINDS).toContain(kind);
        expect(await readGraph()).toBe(before);
      }),
      settings,
    );
  }, 240_000);
});

describe("fuzzing raw JSON-RPC bodies POSTed to /api/mcp", () => {
  const id = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), fc.jsonValue({ maxDepth: 1 }));
  const method = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        "tools/call",
        "tools/list",
        "initialize",
        "ping",
        "notifications/initialized",
        "resources/list",
        "prompts/get",
        "logging/setLevel",
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  );
  const callParams = fc.oneof(
    { weight: 4, arbitrary: toolCall.map(({ tool, args }) => ({ name: tool, arguments: args })) },
    { weight: 1, arbitrary: fc.record({ name: anyValue, arguments: anyValue }, { requiredKeys: [] }) },
  );
  const message = fc.record(
    { jsonrpc: plausible(fc.constant("2.0")), id, method, params: fc.oneof(callParams, anyValue) },
    { requiredKeys: ["jsonrpc", "method"] },
  );
  /** Objects nested far deeper than any client would, written as text (no serialiser recursion). */
  const deepText = fc
    .integer({ min: 1, max: 100_000 })
    .map((depth) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${"[".repeat(depth)}${"]".repeat(depth)}}`);
  const deepMetadata = fc
    .integer({ min: 1000, max: 20_000 })
    .map(
      (depth) =>
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"upsert_entity","arguments":{"workspaceName":"${workspace}","name":"Deep","entityType":"t","metadata":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}}}`,
    );
  const body = fc.oneof(
    { weight: 6, arbitrary: message.map((value) => JSON.stringify(value)) },
    { weight: 2, arbitrary: fc.array(message, { minLength: 1, maxLength: 4 }).map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
    { weight: 1, arbitrary: deepText },
    { weight: 1, arbitrary: deepMetadata },
  );
  const correctHeaders = fc.constant({ accept: "application/json, text/event-stream", "content-type": "application/json" });
  const wrongHeaders = fc.record({
    accept: fc.constantFrom("application/json, text/event-stream", "application/json", "*/*", ""),
    "content-type": fc.constantFrom("application/json", "application/json; charset=utf-8", "text/plain", ""),
    "mcp-protocol-version": fc.constantFrom("", "2025-06-18", "1999-01-01", "garbage"),
  });
  const headers = fc.oneof({ weight: 5, arbitrary: correctHeaders }, { weight: 1, arbitrary: wrongHeaders });

  test("never a 5xx or a hang; every answer is a well-formed JSON-RPC response or error; rejected calls change nothing", async () => {
    let before = await readGraph();
    await fc.assert(
      fc.asyncProperty(body, headers, async (text, headerValues) => {
        const sent = Object.fromEntries(Object.entries(headerValues).filter(([, value]) => value !== "")) as Record<string, string>;
        const response = await fetch(`${server.url}/api/mcp`, {
          method: "POST",
          headers: sent,
          body: text,
          signal: AbortSignal.timeout(HANG_MS),
        });
        const { anyToolSuccess } = await checkRawAnswer(response);
        if (anyToolSuccess) {
          before = await readGraph();
          return;
        }
        expect(await readGraph()).toBe(before);
      }),
      settings,
    );
    // Still alive and serving after everything above.
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    ok(await mcp.call("read_graph", { workspaceName: workspace }));
  }, 240_000);
});

describe("regressions found by fuzzing", () => {
  const nested = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`;

  test("metadata nested deeper than the limit is a ValidationError and writes nothing (it used to overflow the stack)", async () => {
    const ws = uniqueWorkspace("deep");
    // 4,000 levels fit the 32,768-character limit; JSON.stringify overflowed the stack: an internal
    // error reported as StorageError on write, and a response the MCP SDK never sent on read_graph.
    for (const depth of [33, 4000]) {
      const result = await mcp.call("upsert_entity", { workspaceName: ws, name: "Deep", entityType: "t", metadata: nested(depth) });
      expect(result.structuredContent).toEqual({
        success: false,
        error: "ValidationError",
        message: "metadata is nested more than 32 levels deep. Flatten it.",
      });
    }
    expect(ok(await mcp.call("read_graph", { workspaceName: ws }))).toMatchObject({ entities: [] });
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Deep", entityType: "t", metadata: nested(32) }));
    ok(await mcp.call("upsert_entity", { workspaceName: ws, name: "Other", entityType: "t" }));
    const relation = await mcp.call("upsert_relation", {
      workspaceName: ws,
      from: "Deep",
      to: "Other",
      relationType: "r",
      metadata: JSON.parse(nested(33)),
    });
    expect(relation.structuredContent).toMatchObject({ error: "ValidationError" });
    expect(ok<{ entities: unknown[]; relations: unknown[] }>(await mcp.call("read_graph", { workspaceName: ws })).relations).toEqual([]);
  });
});
