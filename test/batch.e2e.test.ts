import { describe, expect, test } from "@jest/globals";
import { ProtocolErrorCode, type RequestId, Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";

import { BATCH_LIMITS, limitBatch } from "../src/http/batchLimits.js";
import { recordRequestIds, withDeadline } from "../src/http/deadline.js";
import { connectClient, ok, type TestServer, uniqueWorkspace, withTestServer } from "./support/harness.js";

/**
 * Hardening: one small HTTP request must not cost hundreds of MB. A JSON-RPC batch is capped in
 * calls, run one call at a time, and stops starting calls once its answers are large; the calls
 * past a cap are answered with a JSON-RPC error that says to send them separately, and do nothing.
 */
type RpcAnswer = { jsonrpc: "2.0"; id: number; result?: { structuredContent?: unknown }; error?: { code: number; message: string } };

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

function readGraphCalls(count: number, workspaceName: string) {
  return Array.from({ length: count }, (_, index) => ({
    jsonrpc: "2.0",
    id: index + 1,
    method: "tools/call",
    params: { name: "read_graph", arguments: { workspaceName } },
  }));
}

async function postBatch(url: string, batch: unknown[]): Promise<{ status: number; answers: RpcAnswer[]; chars: number }> {
  const response = await fetch(`${url}/api/mcp`, { method: "POST", headers: HEADERS, body: JSON.stringify(batch) });
  const text = await response.text();
  return { status: response.status, answers: JSON.parse(text) as RpcAnswer[], chars: text.length };
}

describe("a JSON-RPC batch through the local server", () => {
  let server: TestServer;
  withTestServer((started) => {
    server = started;
  });

  test(`answers at most ${BATCH_LIMITS.requests} requests; the rest get an error naming the fix, and run nothing`, async () => {
    const ws = uniqueWorkspace("batch");
    const sent = BATCH_LIMITS.requests + 5;
    const before = server.logs.length;
    const { status, answers } = await postBatch(server.url, readGraphCalls(sent, ws));
    expect(status).toBe(200);
    expect(answers.map((answer) => answer.id)).toEqual(Array.from({ length: sent }, (_, index) => index + 1));
    const answered = answers.filter((answer) => answer.result !== undefined);
    expect(answered.map((answer) => answer.id)).toEqual(Array.from({ length: BATCH_LIMITS.requests }, (_, index) => index + 1));
    for (const refused of answers.slice(BATCH_LIMITS.requests)) {
      expect(refused.error).toEqual({
        code: ProtocolErrorCode.InvalidRequest,
        message: expect.stringMatching(/more than 20 JSON-RPC requests.*nothing was done\. Send it again in a separate HTTP request\./),
      });
    }
    // Only the answered calls reached a tool.
    expect(server.logs.length - before).toBe(BATCH_LIMITS.requests);
  });

  test("the caps hold for every JSON-RPC method, not only tools/call: resources/read of a graph", async () => {
    const ws = uniqueWorkspace("batch-res");
    const reads = Array.from({ length: BATCH_LIMITS.requests + 1 }, (_, index) => ({
      jsonrpc: "2.0",
      id: index + 1,
      method: "resources/read",
      params: { uri: `memory://workspaces/${ws}/graph` },
    }));
    const { answers } = await postBatch(server.url, reads);
    expect(answers.filter((answer) => answer.result !== undefined)).toHaveLength(BATCH_LIMITS.requests);
    expect(answers[BATCH_LIMITS.requests]!.error!.message).toMatch(/Send it again in a separate HTTP request/);
  });

  test(`stops starting calls once the answers hold ${BATCH_LIMITS.responseChars} characters; the first call always runs`, async () => {
    const ws = uniqueWorkspace("batch-big");
    // About 2.5 MB of observations: read_graph answers them twice (structured content and text), over the cap.
    const mcp = await connectClient(server.url);
    const observation = (entity: number, index: number) => `${entity}:${index}:`.padEnd(30_000, "x");
    for (let entity = 0; entity < 3; entity++) {
      const observations = Array.from({ length: 28 }, (_, index) => observation(entity, index));
      ok(await mcp.call("upsert_entity", { workspaceName: ws, name: `Big${entity}`, entityType: "blob", observations }));
    }
    await mcp.close();
    const before = server.logs.length;
    const { answers, chars } = await postBatch(server.url, readGraphCalls(4, ws));
    expect(answers[0]!.result).toBeDefined();
    expect(JSON.stringify(answers[0]).length).toBeGreaterThan(BATCH_LIMITS.responseChars);
    for (const refused of answers.slice(1)) {
      expect(refused.result).toBeUndefined();
      expect(refused.error!.message).toMatch(/already hold \d+ characters.*nothing was done\. Send it again in a separate HTTP request\./);
    }
    expect(server.logs.length - before).toBe(1);
    expect(chars).toBeLessThan(2 * BATCH_LIMITS.responseChars);
  }, 60_000);
});

describe("limitBatch on a real transport and server", () => {
  /** A server whose one tool answers `size` characters and records how many calls run at once. */
  async function serve(limits: typeof BATCH_LIMITS | { requests: number; concurrent: number; responseChars: number }) {
    const server = new Server({ name: "limits", version: "1" }, { capabilities: { tools: {} } });
    let running = 0;
    let mostAtOnce = 0;
    const ran: number[] = [];
    server.setRequestHandler("tools/call", async (request) => {
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      const { index, size } = request.params.arguments as { index: number; size: number };
      // A negative size never answers (a call that outlives the request's deadline).
      await new Promise((resolve) => (size < 0 ? undefined : setImmediate(resolve)));
      ran.push(index);
      running -= 1;
      return { content: [{ type: "text", text: "x".repeat(size) }] };
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    const batchLimits = limitBatch(transport, limits);
    const requestIds: RequestId[] = [];
    recordRequestIds(transport, requestIds);
    const call = async (sizes: number[], ids: number[] = sizes.map((_, index) => index), deadlineMs?: number) => {
      const batch = sizes.map((size, index) => ({
        jsonrpc: "2.0",
        id: ids[index],
        method: "tools/call",
        params: { name: "t", arguments: { index, size } },
      }));
      const handle = () =>
        transport.handleRequest(new Request("http://localhost/mcp", { method: "POST", headers: HEADERS, body: JSON.stringify(batch) }));
      const response = deadlineMs === undefined ? await handle() : await withDeadline(handle, deadlineMs, requestIds, batchLimits.started);
      const body = (await response.json()) as RpcAnswer | RpcAnswer[];
      return Array.isArray(body) ? body : [body];
    };
    return { call, ran, mostAtOnce: () => mostAtOnce, close: () => server.close() };
  }

  test("runs the calls of a batch one at a time, in order", async () => {
    const subject = await serve(BATCH_LIMITS);
    const answers = await subject.call([10, 10, 10, 10, 10]);
    expect(answers.every((answer) => answer.result !== undefined)).toBe(true);
    expect(subject.ran).toEqual([0, 1, 2, 3, 4]);
    expect(subject.mostAtOnce()).toBe(1);
    await subject.close();
  });

  test("a call starts only while the answers so far are under the character cap", async () => {
    const subject = await serve({ requests: 10, concurrent: 1, responseChars: 1_000 });
    const answers = await subject.call([400, 400, 400, 10, 10]);
    // 0 and 1 start under the cap (0, then ~450 characters); 2 starts at ~900; 3 and 4 find ~1,350 and are refused.
    expect(subject.ran).toEqual([0, 1, 2]);
    expect(answers.map((answer) => (answer.result ? "ran" : answer.error?.code))).toEqual([
      "ran",
      "ran",
      "ran",
      ProtocolErrorCode.InvalidRequest,
      ProtocolErrorCode.InvalidRequest,
    ]);
    await subject.close();
  });

  test("a request whose id repeats an earlier one of the batch is not run (its answer would be taken for the first one's)", async () => {
    const subject = await serve(BATCH_LIMITS);
    const answers = await subject.call([10, 10, 10], [7, 7, 8]);
    expect(subject.ran).toEqual([0, 2]);
    expect(answers.map((answer) => answer.id)).toEqual([7, 8]);
    await subject.close();
  });

  test("at the deadline, a request that ran may have written; one still queued is told nothing was done", async () => {
    const subject = await serve(BATCH_LIMITS);
    const warn = console.warn;
    console.warn = () => {};
    const answers = await subject.call([-1, 10], [1, 2], 200).finally(() => (console.warn = warn));
    expect(subject.ran).toEqual([]);
    expect(answers.map((answer) => [answer.id, answer.error?.message])).toEqual([
      [1, expect.stringContaining("A write may or may not have been applied")],
      [2, expect.stringContaining("had not started, so nothing was done for it")],
    ]);
    await subject.close();
  });

  test("a single request is answered in full whatever its size", async () => {
    const subject = await serve({ requests: 10, concurrent: 1, responseChars: 100 });
    const [answer] = await subject.call([5_000]);
    expect(answer!.result).toBeDefined();
    await subject.close();
  });
});
