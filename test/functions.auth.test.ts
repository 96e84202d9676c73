import { beforeAll, describe, expect, test } from "@jest/globals";

import { handleFunctionsRequest } from "../src/functions/adapter.js";
import { invokeFunction } from "./support/functions.js";
import { testConnectionString } from "./support/harness.js";

/**
 * The Azure Functions door, called in-process as the host would call it, in a simulated Azure
 * environment (WEBSITE_SITE_NAME set) where MEMORY_AUTH was never set. Jest gives each test file
 * its own process.env, so this does not leak into other files.
 */
const SITE = "https://memory-test.azurewebsites.net";

beforeAll(() => {
  process.env.WEBSITE_SITE_NAME = "memory-test";
  process.env.MEMORY_STORAGE_CONNECTION_STRING = testConnectionString();
  delete process.env.MEMORY_AUTH;
  delete process.env.MEMORY_STORAGE_TABLE_ENDPOINT;
});

async function call(method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) {
  const response = await invokeFunction(handleFunctionsRequest, {
    method,
    url: `${SITE}${path}`,
    ...(init.headers ? { headers: init.headers } : {}),
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return { ...response, json: JSON.parse(response.body) as Record<string, unknown> };
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "1" } },
};

describe("MEMORY_AUTH unset under Azure Functions", () => {
  test.each([
    ["/api/mcp", {}],
    ["/api/workspaces/team-a/mcp", {}],
    ["/api/mcp", { Authorization: "Bearer anything-at-all" }],
  ])("POST %s with %j is refused with 401 naming MEMORY_AUTH", async (path, headers) => {
    const response = await call("POST", path, { body: initialize, headers });
    expect(response.status).toBe(401);
    expect(response.json.message).toMatch(/MEMORY_AUTH/);
    expect(response.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${SITE}/.well-known/oauth-protected-resource${path}"`);
  });

  test("health stays 200 and ready answers, both anonymous and revealing no configuration", async () => {
    const health = await call("GET", "/api/health");
    expect(health.status).toBe(200);
    expect(Object.keys(health.json).sort()).toEqual(["status", "version"]);
    const ready = await call("GET", "/api/ready");
    expect(ready.json).not.toHaveProperty("auth");
    expect(JSON.stringify(ready.json)).not.toMatch(/MEMORY_|AccountKey/);
  });

  test("the protected-resource metadata is served through the Functions door too", async () => {
    const metadata = await call("GET", "/.well-known/oauth-protected-resource/api/mcp");
    expect(metadata.status).toBe(200);
    expect(metadata.json).toMatchObject({ resource: `${SITE}/api/mcp`, bearer_methods_supported: ["header"] });
  });
});
