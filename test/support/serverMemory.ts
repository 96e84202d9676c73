import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

import { adopt, release } from "./children.js";
import type { McpTestClient } from "./harness.js";

/** The official memory server (@modelcontextprotocol/server-memory, a dev dependency), as the reference for parity. */
export interface ServerMemory extends McpTestClient {
  /** Its memory file (JSONL), in a temporary folder removed on close. */
  file: string;
}

/** Spawns server-memory over stdio, as MCP clients run it, with a fresh temporary MEMORY_FILE_PATH. */
export async function startServerMemory(): Promise<ServerMemory> {
  const folder = await mkdtemp(join(tmpdir(), "server-memory-"));
  const file = join(folder, "memory.jsonl");
  const entry = join(
    dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/server-memory/package.json")),
    "dist",
    "index.js",
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry],
    env: { MEMORY_FILE_PATH: file },
    stderr: "ignore",
  });
  const client = new Client({ name: "central-memory-parity", version: "1.0.0" });
  try {
    await client.connect(transport);
  } catch (error) {
    await transport.close();
    throw error;
  } finally {
    adopt(transport.pid); // killed after the test file if a test never closes it (test/support/children.ts)
  }
  await client.listTools(); // so callTool validates structuredContent against its output schemas, as for ours
  return {
    client,
    file,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as Awaited<ReturnType<McpTestClient["call"]>>,
    close: async () => {
      const pid = transport.pid;
      await client.close();
      release(pid);
      await rm(folder, { recursive: true, force: true });
    },
  };
}
