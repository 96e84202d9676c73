import { resolve } from "node:path";
import { createApp, storageOptionsFromEnv } from "../app.js";
import { connectStorage } from "../storage/client.js";
import { readStorageSettings } from "../storage/settings.js";
import { startAzurite, type EmbeddedAzurite } from "./azurite.js";
import { listen } from "./server.js";

/**
 * `npm start`: the shared handler on HOST:PORT. With no storage configured, an embedded Azurite
 * keeps data in ./.azurite, so a laptop with no Azure account has a durable memory.
 */
async function main(): Promise<void> {
  const host = process.env.HOST?.trim() || "127.0.0.1";
  const port = Number(process.env.PORT?.trim() || 7071);
  let settings = readStorageSettings();
  let azurite: EmbeddedAzurite | undefined;
  if (settings.kind === "none") {
    const location = resolve(".azurite");
    azurite = await startAzurite({ location });
    settings = { kind: "connectionString", connectionString: azurite.connectionString, tableName: settings.tableName, source: "embedded Azurite" };
    console.log(`Storage: embedded Azurite (data in ${location})`);
  } else {
    console.log(`Storage: ${settings.kind === "identity" ? settings.endpoint : settings.source}, table '${settings.tableName}'`);
  }

  const app = createApp(connectStorage(settings, storageOptionsFromEnv()));
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
    await azurite?.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((error: unknown) => {
  console.error(`central-memory-mcp failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
