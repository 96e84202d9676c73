import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";

import type { RunningServer } from "../src/local/nodeServer.js";
import { startAsNpmStart } from "./support/conformanceSuite.js";
import { rawRequest } from "./support/rawHttp.js";

/**
 * DNS-rebinding protection of the local server with `npm start` defaults (MEMORY_AUTH unset, loopback bind: open auth),
 * beyond what the MCP conformance suite checks. The suite's `dns-rebinding-protection` scenario itself runs in
 * test/conformance.suite.test.ts (on Node 22, installed from the npm registry); its two checks are repeated here, on the
 * project's Node and with no install: a POST initialize with Host and Origin both naming evil.example.com is 4xx, and with
 * both naming the server's own loopback address 2xx. This file adds what the scenario leaves out: every loopback name, the
 * Host and Origin sides one at a time, with the refusal's message, and the CORS answer to a loopback origin.
 */
let server: RunningServer;

beforeAll(async () => {
  const started = await startAsNpmStart();
  expect(started.runtime.settings.auth.mode).toEqual({ kind: "none", defaulted: true });
  server = started.server;
});

afterAll(async () => {
  await server?.close();
});

function initialize(headers: Record<string, string>) {
  return rawRequest(`${server.url}/api/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "conformance-dns-rebinding-test", version: "1.0.0" } },
    }),
  });
}

describe("DNS-rebinding protection (the conformance scenario's checks, and more)", () => {
  test("localhost-host-rebinding-rejected: Host and Origin evil.example.com are 4xx", async () => {
    const response = await initialize({ host: "evil.example.com", origin: "http://evil.example.com" });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });

  test("localhost-host-valid-accepted: Host and Origin naming the server's own address are 2xx", async () => {
    const own = new URL(server.url).host;
    const response = await initialize({ host: own, origin: `http://${own}` });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body).result.serverInfo.name).toBe("central-memory-mcp");
  });

  test.each(["localhost", "127.0.0.1", "[::1]"])("every loopback name is accepted as Host and Origin: %s", async (name) => {
    const port = new URL(server.url).port;
    const response = await initialize({ host: `${name}:${port}`, origin: `http://${name}:${port}` });
    expect(response.status).toBe(200);
  });

  test("a foreign Host alone is refused (a rebound page), and so is a foreign Origin alone", async () => {
    const own = new URL(server.url).host;
    const foreignHost = await initialize({ host: "evil.example.com" });
    expect(foreignHost.status).toBe(403);
    expect(JSON.parse(foreignHost.body)).toEqual({ error: "Forbidden", message: expect.stringMatching(/loopback address/) });
    const foreignOrigin = await initialize({ host: own, origin: "http://evil.example.com" });
    expect(foreignOrigin.status).toBe(403);
    expect(JSON.parse(foreignOrigin.body)).toEqual({ error: "Forbidden", message: expect.stringMatching(/MEMORY_ALLOWED_ORIGINS/) });
  });

  test("a loopback origin gets the CORS headers a browser client needs", async () => {
    const own = new URL(server.url).host;
    const preflight = await rawRequest(`${server.url}/api/mcp`, {
      method: "OPTIONS",
      headers: { origin: `http://${own}`, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe(`http://${own}`);
  });
});
