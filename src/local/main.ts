import type { AuthSettings } from "../config/auth.js";
import { createRuntimeHandler } from "../http/runtimeHandler.js";
import { describeToolsets } from "../mcp/toolsets.js";
import { openLocalRuntime } from "./localRuntime.js";
import { listen } from "./nodeServer.js";
import { startSweeper } from "./sweeper.js";

/**
 * `npm start`: the shared handler on HOST:PORT. With no storage configured, an embedded Azurite
 * keeps data in ./.azurite (MEMORY_AZURITE_FOLDER), so a laptop with no Azure account has a durable memory.
 */
async function main(): Promise<void> {
  // Settings are read before anything starts, so a bad one stops the server with a message naming it
  // (every problem at once). Under Functions the same problems are served as 503s instead (src/functions/adapter.ts).
  const runtime = await openLocalRuntime(process.env, { door: "local", cwd: process.cwd() });
  const { auth, toolsets, listen: address } = runtime.settings;
  console.log(`Storage: ${runtime.storageDescription}`);
  await runtime.storage.ensureTable();
  const server = await listen(createRuntimeHandler(runtime), address);
  const sweeper = startSweeper(runtime.services.time, runtime.settings.sweepIntervalMinutes);

  console.log(`\ncentral-memory-mcp listening on ${server.url}`);
  console.log(`  MCP (any workspace):  ${server.url}/api/mcp`);
  console.log(`  MCP (one workspace):  ${server.url}/api/workspaces/<workspaceName>/mcp`);
  console.log(`  Health / readiness:   ${server.url}/api/health  ${server.url}/api/ready`);
  const sweeps = runtime.settings.sweepIntervalMinutes;
  console.log(`  Sweep of expired:     ${sweeps > 0 ? `every ${sweeps} minutes` : "off"} (MEMORY_SWEEP_INTERVAL_MINUTES)`);
  console.log(`  Toolsets:             ${describeToolsets(toolsets)} (MEMORY_TOOLSETS; a client narrows them with ?toolsets=graph,tags)`);
  console.log(`\n${describeAuth(auth)}`);
  console.log(clientConfigs(`${server.url}/api/mcp`, auth));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping...`);
    await server.close();
    await sweeper.stop();
    await runtime.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

/** Client configs to paste. With API keys they send the header; VS Code prompts for the key once and stores it. */
function clientConfigs(url: string, auth: AuthSettings): string {
  const keys = auth.mode.kind === "required" && auth.mode.keys !== undefined;
  const vscode = keys
    ? {
        inputs: [{ type: "promptString", id: "central-memory-key", description: "central-memory API key", password: true }],
        servers: { "central-memory": { type: "http", url, headers: { Authorization: "Bearer ${input:central-memory-key}" } } },
      }
    : { servers: { "central-memory": { type: "http", url } } };
  const claude = `claude mcp add --transport http central-memory ${url}${keys ? ' --header "Authorization: Bearer $CENTRAL_MEMORY_KEY"' : ""}`;
  return `\nVS Code (.vscode/mcp.json):\n${JSON.stringify(vscode, null, 2)}\n\nClaude Code:\n  ${claude}\n`;
}

function describeAuth(auth: AuthSettings): string {
  const { mode } = auth;
  if (mode.kind === "none") {
    const why = mode.defaulted ? "MEMORY_AUTH is unset and the server listens on loopback" : "MEMORY_AUTH=none";
    const bar = "!".repeat(78);
    return `${bar}\n!! AUTH: NONE (${why}).\n!! Anyone who can reach this address can read and write EVERY workspace.\n!! Set MEMORY_AUTH=keys or entra before exposing it.\n${bar}`;
  }
  if (mode.kind === "unset")
    return "AUTH: MEMORY_AUTH is unset on a non-loopback address: every MCP request is refused (401) until it is set.";
  const methods = [mode.keys && `API keys (${mode.keys.length})`, mode.entra && `Entra ID (issuer ${mode.entra.issuer})`].filter(Boolean);
  return `Auth: ${methods.join(" and ")}. Clients send Authorization: Bearer <credential>.`;
}

main().catch((error: unknown) => {
  console.error(`central-memory-mcp failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
