import type { HttpFunctionOptions, HttpHandler } from "@azure/functions";
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";

import { hashApiKey } from "../src/http/auth/apiKeyVerifier.js";
import { viewerBuildOnce } from "./support/build.js";
import { invokeFunction, registerFunctions } from "./support/functions.js";
import { testConnectionString, type TestServer, withTestServer } from "./support/harness.js";

/**
 * Both doors answer alike: every method on every route, through the Azure Functions handler
 * (in-process, test mode) and through the local server over real HTTP, gives the same status and
 * the same Allow header. With API keys on, so that the metadata routes are served and MCP POSTs
 * stop at authentication (no storage work).
 */
const METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"] as const;
type Method = (typeof METHODS)[number];

const AUTH_ENV = {
  MEMORY_AUTH: "keys",
  MEMORY_API_KEYS: JSON.stringify([{ id: "doors", sha256: hashApiKey("cmk_doors"), workspaces: ["*"], access: "read" }]),
};

/** Each route with the trigger the Functions host sends it to; the host answers unknown paths itself, so any handler stands in. */
const ROUTES: { path: string; trigger: string }[] = [
  { path: "/api/health", trigger: "health" },
  { path: "/api/ready", trigger: "ready" },
  { path: "/api/mcp", trigger: "mcp" },
  { path: "/api/workspaces/x/mcp", trigger: "workspaceMcp" },
  { path: "/api/mcp/readonly", trigger: "mcpReadOnly" },
  { path: "/api/workspaces/x/mcp/readonly", trigger: "workspaceMcpReadOnly" },
  { path: "/.well-known/oauth-protected-resource", trigger: "protectedResourceMetadata" },
  { path: "/.well-known/oauth-protected-resource/api/mcp", trigger: "protectedResourceMetadata" },
  { path: "/.well-known/oauth-protected-resource/api/workspaces/x/mcp", trigger: "protectedResourceMetadata" },
  { path: "/.well-known/oauth-protected-resource/api/workspaces/x/mcp/readonly", trigger: "protectedResourceMetadata" },
  { path: "/api/workspaces/x/view", trigger: "viewer" },
  { path: "/api/workspaces/x/view/session", trigger: "viewer" },
  { path: "/api/workspaces/x/view/mcp", trigger: "viewer" },
  { path: "/api/viewer/app.js", trigger: "viewerAssets" },
  { path: "/api/nothing", trigger: "mcp" },
];

const READ = { GET: 200, HEAD: 200, POST: 405, PUT: 405, DELETE: 405, OPTIONS: 405 };
const MCP = { GET: 405, HEAD: 405, POST: 401, PUT: 405, DELETE: 405, OPTIONS: 204 };
const METADATA = { ...READ, OPTIONS: 204 };
const VIEW = { GET: 405, HEAD: 405, POST: 405, PUT: 405, DELETE: 405, OPTIONS: 405 };
const NOWHERE = { GET: 404, HEAD: 404, POST: 404, PUT: 404, DELETE: 404, OPTIONS: 404 };
/** What every door must answer: [status by method, the Allow header of its 405s]. */
const EXPECTED: Record<string, [Record<Method, number>, string | null]> = {
  "/api/health": [READ, "GET, HEAD"],
  "/api/ready": [READ, "GET, HEAD"],
  "/api/mcp": [MCP, "POST"],
  "/api/workspaces/x/mcp": [MCP, "POST"],
  "/api/mcp/readonly": [MCP, "POST"],
  "/api/workspaces/x/mcp/readonly": [MCP, "POST"],
  "/.well-known/oauth-protected-resource": [METADATA, "GET, HEAD"],
  "/.well-known/oauth-protected-resource/api/mcp": [METADATA, "GET, HEAD"],
  "/.well-known/oauth-protected-resource/api/workspaces/x/mcp": [METADATA, "GET, HEAD"],
  "/.well-known/oauth-protected-resource/api/workspaces/x/mcp/readonly": [METADATA, "GET, HEAD"],
  // The viewer: its page refuses a caller without a credential; its POST routes likewise; its files are public.
  "/api/workspaces/x/view": [{ ...VIEW, GET: 401, HEAD: 401 }, "GET, HEAD"],
  "/api/workspaces/x/view/session": [{ ...VIEW, POST: 401 }, "POST"],
  "/api/workspaces/x/view/mcp": [{ ...VIEW, POST: 401 }, "POST"],
  "/api/viewer/app.js": [READ, "GET, HEAD"],
  "/api/nothing": [NOWHERE, null],
};

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });

let registered: Map<string, HttpFunctionOptions>;
let server: TestServer;

beforeAll(async () => {
  process.env.MEMORY_STORAGE_CONNECTION_STRING = testConnectionString();
  Object.assign(process.env, AUTH_ENV);
  await viewerBuildOnce();
  registered = await registerFunctions();
}, 240_000); // the viewer's build (esbuild, once per run) is slow on a loaded machine

withTestServer(
  (started) => {
    server = started;
  },
  { env: AUTH_ENV },
);

// Declared after the fixture, so the settings are removed after its server stops.
afterAll(async () => {
  for (const key of ["MEMORY_STORAGE_CONNECTION_STRING", ...Object.keys(AUTH_ENV)]) delete process.env[key];
});

function hasBody(method: Method): boolean {
  return method !== "GET" && method !== "HEAD";
}

async function throughFunctions(trigger: string, method: Method, path: string) {
  const handler = registered.get(trigger)!.handler as HttpHandler;
  const response = await invokeFunction(handler, {
    method,
    url: `http://localhost:7071${path}`,
    ...(hasBody(method) ? { body: BODY } : {}),
  });
  return { status: response.status, allow: response.headers.get("allow") };
}

async function throughLocalServer(method: Method, path: string) {
  const response = await fetch(`${server.url}${path}`, { method, headers: HEADERS, ...(hasBody(method) ? { body: BODY } : {}) });
  await response.arrayBuffer();
  return { status: response.status, allow: response.headers.get("allow") };
}

describe("both doors answer alike", () => {
  test("every trigger registers every method, so the host hands every request to the shared handler", () => {
    expect(registered.size).toBe(9);
    for (const options of registered.values()) expect(options.methods).toEqual(expect.arrayContaining([...METHODS]));
  });

  test.each(ROUTES)("$path: the same status and Allow for every method through both doors", async ({ path, trigger }) => {
    const [statuses, allow] = EXPECTED[path]!;
    for (const method of METHODS) {
      const expected = { status: statuses[method], allow: statuses[method] === 405 ? allow : null };
      const functions = await throughFunctions(trigger, method, path);
      const local = await throughLocalServer(method, path);
      expect({ method, ...functions }).toEqual({ method, ...expected });
      expect({ method, ...local }).toEqual({ method, ...expected });
    }
  });
});
