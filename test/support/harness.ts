import { afterAll, beforeAll } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_TABLE_NAME } from "../../src/config/table.js";
import { createRuntimeHandler } from "../../src/http/runtimeHandler.js";
import type { ToolCallLog } from "../../src/mcp/instrument.js";
import { listen, type RunningServer } from "../../src/local/server.js";
import { createRuntime, type Runtime } from "../../src/runtime.js";
import { connectStorage, type StorageClientOptions } from "../../src/storage/table/client.js";

export const TEST_TABLE = DEFAULT_TABLE_NAME;

export function testConnectionString(): string {
  const value = process.env.TEST_STORAGE_CONNECTION_STRING;
  if (!value)
    throw new Error("TEST_STORAGE_CONNECTION_STRING is not set: run the tests with `npm test` (jest globalSetup starts Azurite).");
  return value;
}

/** A workspace name no other test uses, so test files can run in parallel against one Azurite. */
export function uniqueWorkspace(prefix = "t"): string {
  return `${prefix}-${randomBytes(6).toString("hex")}`;
}

export interface TestServer extends RunningServer {
  app: Runtime;
  /** Storage requests made by the server so far. */
  requests(): number;
  /** The structured log lines the server wrote, one per tool call. */
  logs: ToolCallLog[];
}

/**
 * The real local server (the same handler as production) on a free port, against test Azurite.
 * `env` holds the server's auth settings (MEMORY_AUTH etc.; MEMORY_AUTH is `none` unless given) and MEMORY_TOOLSETS.
 */
export async function startTestServer(
  options: { connectionString?: string; storage?: StorageClientOptions; env?: Record<string, string> } = {},
): Promise<TestServer> {
  const storage = connectStorage(
    {
      kind: "connectionString",
      connectionString: options.connectionString ?? testConnectionString(),
      tableName: TEST_TABLE,
      source: "test",
    },
    options.storage,
  );
  const logs: ToolCallLog[] = [];
  // The settings come from `env` alone (not the test process's environment), read as `npm start` reads them, for a server
  // that is not bound to loopback only (as deployed: no loopback-origin or Host rules) unless `env` sets a loopback HOST.
  // It listens on 127.0.0.1 either way.
  const app = createRuntime(
    { MEMORY_AUTH: "none", HOST: "0.0.0.0", PORT: "0", ...options.env },
    { door: "local", storage, log: (entry) => logs.push(entry) },
  );
  await storage.ensureTable();
  const server = await listen(createRuntimeHandler(app), { host: "127.0.0.1", port: 0 });
  return { ...server, app, requests: () => storage.counter.total, logs };
}

export interface McpTestClient {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** Sent with every request, as a client configured with a credential does. */
  headers?: Record<string, string>;
  /** The fetch the transport uses (to observe raw responses). */
  fetch?: typeof fetch;
}

/** A real MCP SDK client over streamable HTTP. `path` defaults to the unbound /api/mcp route. */
export async function connectClient(baseUrl: string, path = "/api/mcp", options: ConnectOptions = {}): Promise<McpTestClient> {
  const client = new Client({ name: "central-memory-tests", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(path, baseUrl), {
    requestInit: { headers: options.headers ?? {} },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  await client.connect(transport);
  // listTools caches output schemas so callTool validates structuredContent, as real clients do.
  await client.listTools();
  return {
    client,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: () => client.close(),
  };
}

/** The structured content of a successful call; fails the test with the message otherwise. */
export function ok<T = Record<string, unknown>>(result: CallToolResult): T {
  if (result.isError) throw new Error(`Expected success, got error: ${JSON.stringify(result.structuredContent ?? result.content)}`);
  return result.structuredContent as T;
}

/**
 * The error of a failed call; fails the test if the call succeeded. Design §4: the text is the error
 * JSON, and so is structuredContent, except on tools with an exact (official) outputSchema, which
 * cannot admit it and so carry the text only.
 */
export function failed(result: CallToolResult): { success: false; error: string; message: string } {
  if (!result.isError) throw new Error(`Expected an error, got: ${JSON.stringify(result.structuredContent)}`);
  const text = result.content[0];
  if (text?.type !== "text") throw new Error(`Error has no text content: ${JSON.stringify(result.content)}`);
  const parsed = JSON.parse(text.text) as { success: false; error: string; message: string };
  if (result.structuredContent !== undefined && JSON.stringify(parsed) !== JSON.stringify(result.structuredContent)) {
    throw new Error(`Error text does not match structuredContent: ${JSON.stringify(result.content)}`);
  }
  return parsed;
}

/**
 * The usual file setup: one test server and one client on /api/mcp for the whole file, stopped
 * after it. `use` receives both once they are up.
 */
export function withServerAndClient(use: (server: TestServer, mcp: McpTestClient) => void): void {
  let server: TestServer | undefined;
  let mcp: McpTestClient | undefined;
  beforeAll(async () => {
    server = await startTestServer();
    mcp = await connectClient(server.url);
    use(server, mcp);
  });
  afterAll(async () => {
    await mcp?.close();
    await server?.close();
  });
}
