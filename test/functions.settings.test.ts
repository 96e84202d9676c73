import type { HttpFunctionOptions, HttpHandler } from "@azure/functions";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "@jest/globals";

import { invokeFunction, registerFunctions } from "./support/functions.js";
import { testConnectionString, uniqueWorkspace } from "./support/harness.js";

/**
 * Settings the app cannot run with, under Azure Functions: the registered triggers keep answering
 * (health 200, ready 503 naming the settings, MCP 503 saying what to fix), never a bare 500, and
 * never show a setting's value. Jest gives each test file its own process.env and modules.
 */
let registered: Map<string, HttpFunctionOptions>;
/** Every line the handlers logged through their InvocationContext, as text. */
let logged: { level: string; text: string }[] = [];

const SETTINGS = [
  "MEMORY_AUTH",
  "MEMORY_API_KEYS",
  "MEMORY_ENTRA_TENANT_ID",
  "MEMORY_ENTRA_AUDIENCE",
  "MEMORY_ENTRA_GRANTS",
  "MEMORY_TOOLSETS",
  "MEMORY_REQUEST_TIMEOUT_MS",
  "MEMORY_STORAGE_TIMEOUT_MS",
  "MEMORY_STORAGE_MAX_RETRIES",
];

beforeAll(async () => {
  process.env.WEBSITE_SITE_NAME = "memory-test";
  process.env.MEMORY_STORAGE_CONNECTION_STRING = testConnectionString();
  registered = await registerFunctions();
});

afterAll(() => {
  for (const name of [...SETTINGS, "WEBSITE_SITE_NAME", "MEMORY_STORAGE_CONNECTION_STRING"]) delete process.env[name];
});

beforeEach(() => {
  for (const name of SETTINGS) delete process.env[name];
  logged = [];
});

async function invoke(name: string, method: string, path: string, body?: unknown) {
  const response = await invokeFunction(registered.get(name)!.handler as HttpHandler, {
    method,
    url: `https://memory-test.azurewebsites.net${path}`,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    log: (level, ...args) => logged.push({ level, text: args.map(String).join(" ") }),
  });
  return { ...response, json: JSON.parse(response.body) as Record<string, unknown> };
}

const toolsList = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };

/** Health, ready and both MCP routes under the current settings. */
async function everyRoute() {
  return {
    health: await invoke("health", "GET", "/api/health"),
    ready: await invoke("ready", "GET", "/api/ready"),
    mcp: await invoke("mcp", "POST", "/api/mcp", toolsList),
    bound: await invoke("workspaceMcp", "POST", "/api/workspaces/team-a/mcp", toolsList),
  };
}

describe("invalid settings under Azure Functions", () => {
  test("MEMORY_AUTH=entra with nothing else: health 200, ready and MCP 503 naming each missing setting, logged once", async () => {
    process.env.MEMORY_AUTH = "entra";
    const { health, ready, mcp, bound } = await everyRoute();

    expect(health.status).toBe(200);
    expect(health.json).toMatchObject({ status: "ok", configuration: "invalid" });
    expect(ready.status).toBe(503);
    expect(ready.json.status).toBe("unavailable");
    for (const setting of ["MEMORY_ENTRA_TENANT_ID", "MEMORY_ENTRA_AUDIENCE", "MEMORY_ENTRA_GRANTS"]) {
      expect(ready.json.reason).toContain(setting);
      expect(mcp.json.message).toContain(setting);
    }
    for (const response of [mcp, bound]) {
      expect(response.status).toBe(503);
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(response.json).toMatchObject({ error: "InvalidConfiguration", message: expect.stringContaining("fixes them") });
    }
    expect(mcp.json.problems).toEqual(
      expect.arrayContaining([{ setting: "MEMORY_ENTRA_AUDIENCE", expected: expect.stringContaining("client id") }]),
    );

    // Four requests, one build of the handler for these settings: one error line.
    const errors = logged.filter((line) => line.level === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]!.text).toContain("MEMORY_ENTRA_GRANTS");
  });

  test("health and readiness allow the same methods as when the settings are valid (GET, HEAD)", async () => {
    process.env.MEMORY_AUTH = "entra";
    for (const name of ["health", "ready"]) {
      const refused = await invoke(name, "POST", `/api/${name}`, {});
      expect(refused.status).toBe(405);
      expect(refused.headers.get("allow")).toBe("GET, HEAD");
      expect(refused.json).toMatchObject({ error: "MethodNotAllowed" });
      expect((await invoke(name, "HEAD", `/api/${name}`)).status).toBe(name === "health" ? 200 : 503);
    }
  });

  test("an unknown MEMORY_AUTH and unparseable keys: the responses name the settings but never show their values", async () => {
    process.env.MEMORY_AUTH = "keys,s3cret-auth-value";
    let routes = await everyRoute();
    expect(routes.ready.json.reason).toContain("MEMORY_AUTH: one of none, keys, entra, keys,entra");
    for (const response of Object.values(routes)) expect(response.body).not.toContain("s3cret-auth-value");

    // JSON.parse's own message quotes the text it choked on; that stays in the log.
    process.env.MEMORY_AUTH = "keys";
    process.env.MEMORY_API_KEYS = "[{oops s3cret-key-material";
    routes = await everyRoute();
    expect(routes.mcp.status).toBe(503);
    expect(routes.mcp.json.problems).toEqual([{ setting: "MEMORY_API_KEYS", expected: "valid JSON" }]);
    for (const response of Object.values(routes)) expect(response.body).not.toContain("s3cret");
  });

  test("an unknown MEMORY_TOOLSETS group and bad timeouts and retries are reported together, none silently defaulted", async () => {
    process.env.MEMORY_AUTH = "none";
    process.env.MEMORY_TOOLSETS = "core,memory";
    process.env.MEMORY_REQUEST_TIMEOUT_MS = "soon";
    process.env.MEMORY_STORAGE_TIMEOUT_MS = "10s";
    process.env.MEMORY_STORAGE_MAX_RETRIES = "-1";
    const { ready, mcp } = await everyRoute();
    expect(ready.status).toBe(503);
    expect(mcp.status).toBe(503);
    expect(mcp.json.problems).toEqual([
      {
        setting: "MEMORY_TOOLSETS",
        expected: "comma-separated toolsets from core, graph, tags, history, search, navigate, curate, admin, apps",
      },
      { setting: "MEMORY_REQUEST_TIMEOUT_MS", expected: "a whole number of milliseconds, at least 1" },
      { setting: "MEMORY_STORAGE_TIMEOUT_MS", expected: "a whole number of milliseconds, at least 1" },
      { setting: "MEMORY_STORAGE_MAX_RETRIES", expected: "a whole number of retries, 0 or more" },
    ]);
  });

  test("once the settings are fixed, the same registered triggers serve MCP again", async () => {
    process.env.MEMORY_AUTH = "entra";
    expect((await invoke("mcp", "POST", "/api/mcp", toolsList)).status).toBe(503);

    process.env.MEMORY_AUTH = "none";
    const read = {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "read_graph", arguments: { workspaceName: uniqueWorkspace("fnset") } },
    };
    const call = await invoke("mcp", "POST", "/api/mcp", read);
    expect(call.status).toBe(200);
    expect(call.json.result).toMatchObject({ structuredContent: { entities: [], relations: [] } });
    const { health, ready, mcp } = await everyRoute();
    expect(health.json).toEqual({ status: "ok", version: expect.any(String) });
    expect(ready.status).toBe(200);
    expect((mcp.json.result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
  });
});
