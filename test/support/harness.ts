import { randomBytes } from "node:crypto";

import { afterAll, beforeAll } from "@jest/globals";
import {
  Client as ModernClient,
  type ResponseCacheStore,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { DEFAULT_TABLE_NAME } from "../../src/config/table.js";
import { createRuntimeHandler } from "../../src/http/runtimeHandler.js";
import { listen, type RunningServer } from "../../src/local/nodeServer.js";
import type { ToolCallLog } from "../../src/mcp/instrument.js";
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

export interface TestServerOptions {
  /** The storage account; the shared test Azurite when absent. */
  connectionString?: string;
  /** The storage client's options: a clock (skew between instances), retries, history retention. */
  storage?: StorageClientOptions;
  /** The server's settings: MEMORY_AUTH (`none` unless given) and its keys, MEMORY_TOOLSETS, MEMORY_INDEX_MAX_MB, … */
  env?: Record<string, string>;
  /** The table; the shared test table when absent. */
  tableName?: string;
  /** False leaves the table uncreated (what /api/ready does about a missing table); created before the server starts otherwise. */
  createTable?: boolean;
}

/**
 * The real local server (the same handler as production) on a free port, against test Azurite.
 * `env` holds the server's auth settings (MEMORY_AUTH etc.; MEMORY_AUTH is `none` unless given) and MEMORY_TOOLSETS.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const storage = connectStorage(
    {
      kind: "connectionString",
      connectionString: options.connectionString ?? testConnectionString(),
      tableName: options.tableName ?? TEST_TABLE,
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
  if (options.createTable !== false) await storage.ensureTable();
  const server = await listen(createRuntimeHandler(app), { host: "127.0.0.1", port: 0 });
  return { ...server, app, requests: () => storage.counter.total, logs };
}

/** A protocol era: "2025" is a client of the 2025 revisions (initialize, then requests); "2026" one pinned to 2026-07-28. */
export type Era = "2025" | "2026";

/** The revision a "2026" client pins (docs/architecture.md#protocol-eras). */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

/**
 * What tests use of an MCP client, in the 2025-era SDK's types: a client of either era provides it, so a test written
 * against it runs unchanged on both.
 */
type McpClientApi = Pick<
  Client,
  "listTools" | "callTool" | "readResource" | "listResources" | "listResourceTemplates" | "getServerVersion"
>;

export interface McpTestClient {
  client: McpClientApi;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
  /** The era it speaks; "2025" unless it was connected with another. */
  era?: Era;
  /** A "2026" client's own SDK client: its discover result, its response cache. */
  modern?: ModernClient;
}

export interface ConnectOptions {
  /** Sent with every request, as a client configured with a credential does. */
  headers?: Record<string, string>;
  /** The fetch the transport uses (to observe raw responses, or to reach a door that has no socket). */
  fetch?: typeof fetch;
  /** The protocol era the client speaks: "2025" (the default, the v1 SDK's client) or "2026" (the v2 SDK's, pinned). */
  era?: Era;
  /** A "2026" client's response cache (the SDK gives each client its own in-memory one when absent). */
  responseCacheStore?: ResponseCacheStore;
}

/** A real MCP SDK client over streamable HTTP. `path` defaults to the unbound /api/mcp route. */
export async function connectClient(baseUrl: string, path = "/api/mcp", options: ConnectOptions = {}): Promise<McpTestClient> {
  if (options.era === "2026") return connectModernClient(new URL(path, baseUrl), options);
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
    era: "2025",
  };
}

/** The v2 SDK's client pinned to 2026-07-28: it sends server/discover, then each request with its `_meta` envelope. */
async function connectModernClient(url: URL, options: ConnectOptions): Promise<McpTestClient> {
  const client = new ModernClient(
    { name: "central-memory-tests", version: "1.0.0" },
    {
      versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } },
      ...(options.responseCacheStore ? { responseCacheStore: options.responseCacheStore } : {}),
    },
  );
  const transport = new ModernTransport(url, {
    requestInit: { headers: options.headers ?? {} },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  await client.connect(transport);
  // As for the 2025 client: the listing is what callTool validates structuredContent against.
  await client.listTools();
  // The two SDKs type the same wire shapes differently (v2's structuredContent is `unknown`, its callTool takes no result
  // schema); the casts only restate v2's answers in the v1 types the tests are written against.
  type Api = McpClientApi;
  const api: Api = {
    listTools: (params, requestOptions) => client.listTools(params, requestOptions) as unknown as ReturnType<Api["listTools"]>,
    callTool: (params, _resultSchema, requestOptions) => client.callTool(params, requestOptions) as unknown as ReturnType<Api["callTool"]>,
    readResource: (params, requestOptions) => client.readResource(params, requestOptions) as unknown as ReturnType<Api["readResource"]>,
    listResources: (params, requestOptions) => client.listResources(params, requestOptions) as unknown as ReturnType<Api["listResources"]>,
    listResourceTemplates: (params, requestOptions) =>
      client.listResourceTemplates(params, requestOptions) as unknown as ReturnType<Api["listResourceTemplates"]>,
    getServerVersion: () => client.getServerVersion() as ReturnType<Api["getServerVersion"]>,
  };
  return {
    client: api,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as unknown as CallToolResult,
    close: () => client.close(),
    era: "2026",
    modern: client,
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

/** One client of a file's fixture: which server it talks to (the first one when absent), on which route, with which headers. */
export interface FixtureClient<Server extends string> extends ConnectOptions {
  on?: Server;
  /** The route; the unbound /api/mcp when absent. */
  path?: string;
}

/**
 * What a file's fixture starts: named servers (each its own instance, all on the test table unless told), named clients.
 * A server's options may be a function, called when the server starts: for what an earlier `beforeAll` made (a JWKS
 * issuer's URL, an Azurite of the file's own).
 */
export interface FixtureSpec<Server extends string, ClientName extends string> {
  servers: Record<Server, TestServerOptions | (() => TestServerOptions)>;
  clients?: Record<ClientName, FixtureClient<NoInfer<Server>>>;
  /** The start's own timeout, where jest's default is too short on a loaded machine. */
  timeoutMs?: number;
}

/** The started fixture, by the names the spec gave. */
export type Started<Server extends string, ClientName extends string> = Record<Server, TestServer> & Record<ClientName, McpTestClient>;

/**
 * A file's servers and clients: started before its tests (servers first, together), closed after them (clients first).
 * Two servers are two instances of one deployment (one table, separate memories and indexes), as in production.
 * `use` receives them by name once they are up; what it returns is awaited, so it can add to the setup (a fault
 * injector on a server's table, seed data).
 *
 * @example
 * let server: TestServer, mcp: McpTestClient, pastMcp: McpTestClient;
 * withTestServers(
 *   { servers: { server: {}, past: { storage: { clock: () => Date.now() - DAY_MS } } }, clients: { mcp: {}, pastMcp: { on: "past" } } },
 *   (started) => void ({ server, mcp, pastMcp } = started),
 * );
 */
export function withTestServers<Server extends string, ClientName extends string = never>(
  spec: FixtureSpec<Server, ClientName>,
  use: (started: Started<Server, ClientName>) => void | Promise<void>,
): void {
  const servers: TestServer[] = [];
  const clients: McpTestClient[] = [];
  beforeAll(async () => {
    const serverEntries = Object.entries<TestServerOptions | (() => TestServerOptions)>(spec.servers);
    const started: Record<string, TestServer | McpTestClient> = {};
    await Promise.all(
      serverEntries.map(async ([name, options]) => {
        const server = await startTestServer(typeof options === "function" ? options() : options);
        servers.push(server);
        started[name] = server;
      }),
    );
    const firstServer = serverEntries[0]?.[0];
    await Promise.all(
      Object.entries<FixtureClient<string>>(spec.clients ?? {}).map(async ([name, { on = firstServer, path, ...options }]) => {
        const server = started[on ?? ""] as TestServer | undefined;
        if (!server) throw new Error(`Client '${name}' is on '${on}', which is not one of this fixture's servers.`);
        const client = await connectClient(server.url, path, options);
        clients.push(client);
        started[name] = client;
      }),
    );
    await use(started as Started<Server, ClientName>);
  }, spec.timeoutMs);
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all(servers.map((server) => server.close()));
  });
}

/** One test server for the whole file (or describe block), with no client: for tests that speak raw HTTP or connect their own. */
export function withTestServer(
  use: (server: TestServer) => void | Promise<void>,
  options: TestServerOptions | (() => TestServerOptions) = {},
  timeoutMs?: number,
): void {
  withTestServers({ servers: { server: options }, ...(timeoutMs === undefined ? {} : { timeoutMs }) }, ({ server }) => use(server));
}

/**
 * The usual file setup: one test server (with `options.server`) and one client on it (on `options.client`'s route, with
 * its headers; /api/mcp when absent) for the whole file, stopped after it. `use` receives both once they are up.
 */
export function withServerAndClient(
  use: (server: TestServer, mcp: McpTestClient) => void | Promise<void>,
  options: { server?: TestServerOptions | (() => TestServerOptions); client?: FixtureClient<"server"> } = {},
): void {
  withTestServers({ servers: { server: options.server ?? {} }, clients: { mcp: options.client ?? {} } }, ({ server, mcp }) =>
    use(server, mcp),
  );
}
