import { afterEach, describe, expect, test } from "@jest/globals";
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";

import { ANONYMOUS } from "../../src/domain/model/access.js";
import { APP_RESOURCE_URI } from "../../src/mcp/appShapes.js";
import { createMcpServer, mayListAppOnly, type McpContext } from "../../src/mcp/server.js";
import { createRuntime } from "../../src/runtime.js";
import { connectStorage } from "../../src/storage/table/client.js";
import { azuriteConnectionString, freePort } from "../support/azurite.js";

/**
 * The MCP Apps' `ui://` resource (src/mcp/resources.ts) as the MCP server serves it, whatever the http layer's provider
 * (McpContext.appHtml) answers: read by a real SDK Client over the SDK's in-memory transport, without HTTP or storage (the
 * resource reads none). And which requests are listed the app-only tools (mayListAppOnly), on envelopes the SDK's HTTP
 * layer would not let a test send (another protocol version string).
 */
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

async function clientWith(appHtml: McpContext["appHtml"]): Promise<Client> {
  // An account nothing listens on: a read that reached storage would fail, and none should.
  const storage = connectStorage(
    { kind: "connectionString", connectionString: azuriteConnectionString(await freePort()), tableName: "unreachable", source: "test" },
    { maxRetries: 0 },
  );
  const runtime = createRuntime({ MEMORY_AUTH: "none" }, { door: "local", storage, log: () => {} });
  const server = createMcpServer({ services: runtime.services, version: "test", principal: ANONYMOUS, ...(appHtml ? { appHtml } : {}) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "app-resource-test", version: "1.0.0" });
  await client.connect(clientSide);
  closing.push(async () => {
    await client.close();
    await server.close();
  });
  expect(storage.counter.total).toBe(0);
  return client;
}

describe("the ui:// resource", () => {
  test("not built (the provider resolves to undefined, or there is none): a JSON-RPC error saying to run npm run build", async () => {
    for (const appHtml of [async () => undefined, undefined]) {
      const client = await clientWith(appHtml);
      // Still listed: the apps toolset is offered, and the error says what to do.
      expect((await client.listResources()).resources.map((resource) => resource.uri)).toContain(APP_RESOURCE_URI);
      await expect(client.readResource({ uri: APP_RESOURCE_URI })).rejects.toThrow(
        /viewer \(ui:\/\/central-memory\/viewer\.html\) is not built on this server: run `npm run build`, which writes dist\/viewer\/mcp-app\.html/,
      );
    }
  });

  test("built: the provider's HTML as is, with the MCP Apps MIME type and a CSP allowing no other origin", async () => {
    const html = "<!doctype html><title>viewer</title>";
    const client = await clientWith(async () => html);
    expect((await client.readResource({ uri: APP_RESOURCE_URI })).contents).toEqual([
      {
        uri: APP_RESOURCE_URI,
        mimeType: RESOURCE_MIME_TYPE,
        text: html,
        _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
      },
    ]);
  });
});

describe("app-only tools on tools/list (mayListAppOnly)", () => {
  const envelope = (version: string, capabilities?: Record<string, unknown>) => ({
    [PROTOCOL_VERSION_META_KEY]: version,
    ...(capabilities ? { [CLIENT_CAPABILITIES_META_KEY]: capabilities } : {}),
  });
  const withApps = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };

  test("decided by the capabilities an envelope declares, whatever its protocol version", () => {
    for (const version of ["2026-07-28", "2027-03-01"]) {
      expect({ version, plain: mayListAppOnly(envelope(version, {})) }).toEqual({ version, plain: false });
      expect({ version, other: mayListAppOnly(envelope(version, { extensions: { "example.com/other": {} } })) }).toEqual({
        version,
        other: false,
      });
      expect({ version, apps: mayListAppOnly(envelope(version, withApps)) }).toEqual({ version, apps: true });
    }
  });

  test("a request that declares no capabilities (2025-era: no envelope) is listed them, marked app-only", () => {
    expect(mayListAppOnly(undefined)).toBe(true);
    expect(mayListAppOnly({})).toBe(true);
    expect(mayListAppOnly(envelope("2027-03-01"))).toBe(true);
  });
});
