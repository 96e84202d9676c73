import { startAzurite } from "../src/local/azurite.js";
import { startLatencyProxy } from "./lib/latencyProxy.js";
import { serveParent } from "./lib/processes.js";

/**
 * Child process: the embedded Azurite Table service, in memory, on a free port; behind a proxy
 * that delays every request when BENCH_STORE_LATENCY_MS is set (`--store-latency-ms`).
 */
const azurite = await startAzurite();
const delayMs = Number(process.env.BENCH_STORE_LATENCY_MS ?? 0);
const proxy = delayMs > 0 ? await startLatencyProxy(azurite.port, delayMs) : undefined;
const connectionString = proxy ? azurite.connectionString.replace(`:${azurite.port}/`, `:${proxy.port}/`) : azurite.connectionString;
serveParent({ connectionString }, {}, async () => {
  await proxy?.close();
  await azurite.stop();
});
