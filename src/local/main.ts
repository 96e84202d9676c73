import { resolve } from "node:path";
import { createApp, storageOptionsFromEnv } from "../app.js";
import { listen } from "./server.js";
import { openLocalStorage } from "./storage.js";

/**
 * `npm start`: the shared handler on HOST:PORT. With no storage configured, an embedded Azurite
 * keeps data in ./.azurite, so a laptop with no Azure account has a durable memory.
 */
async function main(): Promise<void> {
  const host = process.env.HOST?.trim() || "127.0.0.1";
  const port = Number(process.env.PORT?.trim() || 7071);
  const storage = await openLocalStorage({ folder: resolve(".azurite"), client: storageOptionsFromEnv() });
  console.log(`Storage: ${storage.description}`);

  const app = createApp(storage.connection);
  await app.storage.ensureTable();
  const server = await listen(app.handler, { host, port });

  console.log(`\ncentral-memory-mcp listening on ${server.url}`);
  console.log(`  MCP (any workspace):  ${server.url}/api/mcp`);
  console.log(`  MCP (one workspace):  ${server.url}/api/workspaces/<workspaceName>/mcp`);
  console.log(`  Health / readiness:   ${server.url}/api/health  ${server.url}/api/ready`);
  console.log(`\nVS Code (.vscode/mcp.json):`);
  console.log(JSON.stringify({ servers: { "central-memory": { type: "http", url: `${server.url}/api/mcp` } } }, null, 2));
  console.log(`\nClaude Code:\n  claude mcp add --transport http central-memory ${server.url}/api/mcp\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping...`);
    await server.close();
    await storage.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((error: unknown) => {
  console.error(`central-memory-mcp failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
