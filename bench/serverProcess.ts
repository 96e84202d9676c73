import { createApp, storageOptionsFromEnv } from "../src/app.js";
import { startAzurite, type EmbeddedAzurite } from "../src/local/azurite.js";
import { listen } from "../src/local/server.js";
import { connectStorage } from "../src/storage/client.js";
import { readStorageSettings } from "../src/storage/settings.js";
import { serveParent } from "./lib/processes.js";

/**
 * Child process: our local server, as `npm start` runs it. Storage comes from the environment, as
 * in production; with none, an in-memory Azurite is embedded in this process (the load test's setup).
 * Answers {type:"stats"} with the storage requests the server has made so far, and
 * {type:"durations"} with the tool-call durations logged since the last such request.
 */
// A loopback server for the bench and load drivers only: no authentication, chosen explicitly (as
// `npm start` does on loopback), since the server refuses every MCP request while MEMORY_AUTH is unset.
process.env.MEMORY_AUTH ??= "none";
let azurite: EmbeddedAzurite | undefined;
let settings = readStorageSettings();
if (settings.kind === "none") {
  azurite = await startAzurite();
  settings = readStorageSettings({ ...process.env, MEMORY_STORAGE_CONNECTION_STRING: azurite.connectionString });
}
const storage = connectStorage(settings, storageOptionsFromEnv());
// The per-call log line's duration is kept for the bench (drained by "durations"), not printed.
const durations: number[] = [];
const app = createApp(storage, { log: (entry) => durations.push(entry.durationMs) });
await storage.ensureTable();
const server = await listen(app.handler, { host: "127.0.0.1", port: 0 });

serveParent(
  { url: server.url },
  { stats: () => ({ requests: storage.counter.total }), durations: () => ({ durations: durations.splice(0) }) },
  async () => {
    await server.close();
    await azurite?.stop();
  },
);
