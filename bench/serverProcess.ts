import { readSettings } from "../src/config/settings.js";
import { createRuntimeHandler } from "../src/http/runtimeHandler.js";
import { startAzurite } from "../src/local/azurite.js";
import { listen } from "../src/local/nodeServer.js";
import { runtimeFrom } from "../src/runtime.js";
import { connectStorage } from "../src/storage/table/client.js";
import { serveParent } from "./lib/processes.js";

/**
 * Child process: our local server, as `npm start` runs it. Storage comes from the environment, as
 * in production; with none, an in-memory Azurite is embedded in this process (the load test's setup).
 * Answers {type:"stats"} with the storage requests the server has made so far (and the bytes they downloaded), and
 * {type:"durations"} with the tool-call durations logged since the last such request.
 */
// A loopback server for the bench and load drivers only: no authentication, chosen explicitly (as
// `npm start` does on loopback), since the server refuses every MCP request while MEMORY_AUTH is unset.
const settings = readSettings({ MEMORY_AUTH: "none", ...process.env }, "local");
const azurite = settings.storage.kind === "none" ? await startAzurite() : undefined;
const storage = azurite
  ? connectStorage(
      { kind: "connectionString", connectionString: azurite.connectionString, tableName: settings.storage.tableName, source: "bench" },
      settings.storageClient,
    )
  : undefined;
// The per-call log line's duration is kept for the bench (drained by "durations"), not printed.
const durations: number[] = [];
const runtime = runtimeFrom(settings, { storage, log: (entry) => durations.push(entry.durationMs) });
await runtime.storage.ensureTable();
const server = await listen(createRuntimeHandler(runtime), { host: "127.0.0.1", port: 0 });

serveParent(
  { url: server.url },
  {
    stats: () => ({ requests: runtime.storage.counter.total, bytes: runtime.storage.counter.bytes }),
    durations: () => ({ durations: durations.splice(0) }),
  },
  async () => {
    await server.close();
    await azurite?.stop();
  },
);
