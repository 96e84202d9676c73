import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { ANONYMOUS, type Principal } from "../../src/domain/model/access.js";
import { createMcpServer } from "../../src/mcp/server.js";
import type { Toolsets } from "../../src/mcp/tool.js";
import { createRuntime } from "../../src/runtime.js";
import { connectStorage } from "../../src/storage/table/client.js";
import { azuriteConnectionString, freePort } from "./azurite.js";
import type { McpTestClient } from "./harness.js";

export interface InMemoryOptions {
  /** The groups the connection offers; every group when absent. */
  toolsets?: Toolsets;
  /** Set for a /api/workspaces/{ws}/mcp connection. */
  boundWorkspace?: string;
  /** The caller; the anonymous writer of MEMORY_AUTH=none when absent. */
  principal?: Principal;
}

export interface InMemoryClient extends McpTestClient {
  /** Storage requests the server made so far: the fast tier expects none. */
  requests(): number;
}

/**
 * The tool registry's fast tier: the MCP server one HTTP request gets (src/mcp/server.ts, as src/http/mcpExchange.ts builds
 * it, from the composition root's services and instrument), connected to a real SDK Client over the SDK's in-memory
 * transport. Its storage is an account nothing listens on, so no Azurite is needed, and a call that reached storage
 * would fail and show in `requests()`. The one place the fast tier builds a server: adapt it when the composition changes.
 */
export async function connectInMemory(options: InMemoryOptions = {}): Promise<InMemoryClient> {
  const storage = connectStorage(
    { kind: "connectionString", connectionString: azuriteConnectionString(await freePort()), tableName: "unreachable", source: "test" },
    { maxRetries: 0 },
  );
  const runtime = createRuntime({ MEMORY_AUTH: "none" }, { door: "local", storage, log: () => {} });
  const server = createMcpServer({
    services: runtime.services,
    version: "test",
    principal: options.principal ?? ANONYMOUS,
    instrument: runtime.instrument,
    ...(options.toolsets ? { toolsets: options.toolsets } : {}),
    ...(options.boundWorkspace !== undefined ? { boundWorkspace: options.boundWorkspace } : {}),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "central-memory-fast-tier", version: "1.0.0" });
  await client.connect(clientSide);
  // As connectClient does: listing caches the output schemas, so the client validates structuredContent.
  await client.listTools();
  return {
    client,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await client.close();
      await server.close();
    },
    requests: () => storage.counter.total,
  };
}
