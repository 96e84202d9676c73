import type { Toolsets } from "../mcp/tool.js";
import { ALL_TOOLSETS } from "../mcp/toolsets.js";
import type { EmbeddingSettings } from "../search/embedding/choose.js";
import { AZURE_OPENAI_SCOPE, isAzureHost, isAzureShape, knownDimensions } from "../search/embedding/endpointEmbedder.js";
import type { StorageClientOptions } from "../storage/table/client.js";
import type { StorageSettings } from "../storage/table/storageSettings.js";
import { type AuthSettings, authSettingsFrom } from "./auth.js";
import { tokenSource } from "./azureIdentity.js";
import { isLoopbackHost } from "./kinds.js";
import {
  CLI_STORAGE_TIMEOUT_MS,
  DEFAULT_AZURITE_FOLDER,
  DEFAULT_HOST,
  DEFAULT_INDEX_MAX_MB,
  DEFAULT_PORT,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_STORAGE_MAX_RETRIES,
  DEFAULT_STORAGE_TIMEOUT_MS,
  DEFAULT_SWEEP_INTERVAL_MINUTES,
  DEFAULT_TABLE_NAME,
  SettingsReader,
} from "./table.js";

/** Which entry point runs: what an unset setting means differs between them (auth on loopback, storage timeouts). */
export type Door = "functions" | "local" | "cli";

/** Everything any entry point needs from the environment, validated. */
export interface Settings {
  door: Door;
  storage: StorageSettings;
  storageClient: Required<Omit<StorageClientOptions, "clock">>;
  /** The embedded Azurite's data folder (as given; relative to the working directory). */
  azuriteFolder: string;
  /** Authentication (MEMORY_AUTH and the settings it needs); the CLI's is always "unset", since it serves nothing. */
  auth: AuthSettings;
  /** The default toolsets. */
  toolsets: Toolsets;
  /** The deadline of one MCP request. */
  requestTimeoutMs: number;
  /** The memory cap of the workspace indexes, in bytes (MEMORY_INDEX_MAX_MB). */
  indexMaxBytes: number;
  /** Where the local server listens. */
  listen: { host: string; port: number };
  /** What turns texts into vectors (MEMORY_EMBEDDINGS): src/search/embedding/choose.ts embedderFrom makes the Embedder. */
  embeddings: EmbeddingSettings;
  /** How often expired items are swept, in minutes; 0: never (MEMORY_SWEEP_INTERVAL_MINUTES). */
  sweepIntervalMinutes: number;
}

/**
 * Reads every setting `door` needs and reports all problems at once (an InvalidSettingsError naming
 * each setting and what it expects), so every door says the same thing.
 */
export function readSettings(env: NodeJS.ProcessEnv, door: Door): Settings {
  const read = new SettingsReader(env);
  // Only the local server listens itself; under Functions the host owns the address.
  const host = (door === "local" && read.get("HOST")) || DEFAULT_HOST;
  const port = (door === "local" ? read.get("PORT") : undefined) ?? DEFAULT_PORT;
  const local = door === "local" && isLoopbackHost(host);
  // The CLI serves no requests: what only the HTTP doors use is neither read nor checked there.
  const serves = door !== "cli";
  const auth = serves ? authSettingsFrom(read, { localLoopback: local }) : { mode: { kind: "unset" as const }, allowedOrigins: [] };
  const toolsets = (serves && read.get("MEMORY_TOOLSETS")) || ALL_TOOLSETS;
  const requestTimeoutMs = (serves && read.get("MEMORY_REQUEST_TIMEOUT_MS")) || DEFAULT_REQUEST_TIMEOUT_MS;
  const storageClient = {
    timeoutMs: read.get("MEMORY_STORAGE_TIMEOUT_MS") ?? (door === "cli" ? CLI_STORAGE_TIMEOUT_MS : DEFAULT_STORAGE_TIMEOUT_MS),
    maxRetries: read.get("MEMORY_STORAGE_MAX_RETRIES") ?? DEFAULT_STORAGE_MAX_RETRIES,
    historyRetentionDays: read.get("MEMORY_HISTORY_RETENTION_DAYS") ?? 0,
  };
  const storage = storageFrom(read);
  if (door === "functions" && storage.kind === "none") {
    const expected = "set (or MEMORY_STORAGE_TABLE_ENDPOINT, or the host's AzureWebJobsStorage): Functions has no embedded storage";
    read.problem(
      "MEMORY_STORAGE_CONNECTION_STRING",
      expected,
      `No storage is configured: MEMORY_STORAGE_CONNECTION_STRING is ${expected}.`,
    );
  }
  const azuriteFolder = read.get("MEMORY_AZURITE_FOLDER") ?? DEFAULT_AZURITE_FOLDER;
  const embeddings = embeddingsFrom(read);
  // The CLI sweeps nothing on a schedule; the HTTP doors do (src/functions/sweep.ts, src/local/sweeper.ts).
  const sweepIntervalMinutes = (serves ? read.get("MEMORY_SWEEP_INTERVAL_MINUTES") : 0) ?? DEFAULT_SWEEP_INTERVAL_MINUTES;
  read.check();
  const indexMaxBytes = (read.get("MEMORY_INDEX_MAX_MB") ?? DEFAULT_INDEX_MAX_MB) * 1024 * 1024;
  return {
    door,
    storage,
    storageClient,
    azuriteFolder,
    auth,
    toolsets,
    requestTimeoutMs,
    indexMaxBytes,
    listen: { host, port },
    embeddings,
    sweepIntervalMinutes,
  };
}

const ENDPOINT_SETTINGS = [
  "MEMORY_EMBEDDINGS_ENDPOINT",
  "MEMORY_EMBEDDINGS_MODEL",
  "MEMORY_EMBEDDINGS_DIMENSIONS",
  "MEMORY_EMBEDDINGS_API_KEY",
  "MEMORY_EMBEDDINGS_API_VERSION",
] as const;

/**
 * MEMORY_EMBEDDINGS and the endpoint's settings. An endpoint setting under `local` or `off` is a problem rather than ignored:
 * the operator meant something by it. Without an API key an Azure OpenAI endpoint is called with the managed identity.
 */
function embeddingsFrom(read: SettingsReader): EmbeddingSettings {
  const url = read.get("MEMORY_EMBEDDINGS_ENDPOINT");
  const kind = read.get("MEMORY_EMBEDDINGS") ?? (read.raw("MEMORY_EMBEDDINGS_ENDPOINT") ? "endpoint" : "local");
  if (kind !== "endpoint") {
    const stray = ENDPOINT_SETTINGS.filter((name) => read.raw(name) !== undefined);
    if (stray.length > 0) {
      read.problem(
        stray.join(", "),
        "unset unless MEMORY_EMBEDDINGS is endpoint",
        `${stray.join(", ")}: set, but MEMORY_EMBEDDINGS is ${kind}; set MEMORY_EMBEDDINGS=endpoint to use the endpoint, or unset them.`,
      );
    }
    return { kind };
  }
  const model = read.get("MEMORY_EMBEDDINGS_MODEL");
  const dimensions = read.get("MEMORY_EMBEDDINGS_DIMENSIONS");
  const apiKey = read.get("MEMORY_EMBEDDINGS_API_KEY");
  const apiVersion = read.get("MEMORY_EMBEDDINGS_API_VERSION");
  const missing = (name: string, what: string) =>
    read.problem(name, `set when MEMORY_EMBEDDINGS is endpoint`, `${name} is not set: MEMORY_EMBEDDINGS=endpoint needs ${what}.`);
  if (read.raw("MEMORY_EMBEDDINGS_ENDPOINT") === undefined) missing("MEMORY_EMBEDDINGS_ENDPOINT", "the endpoint's URL");
  if (model === undefined) missing("MEMORY_EMBEDDINGS_MODEL", "the model (or the Azure OpenAI deployment)");
  const length = dimensions ?? (model === undefined ? undefined : knownDimensions(model));
  if (model !== undefined && length === undefined) {
    read.problem(
      "MEMORY_EMBEDDINGS_DIMENSIONS",
      "set for a model whose vector length is not known",
      `MEMORY_EMBEDDINGS_DIMENSIONS is not set, and the length of '${model}' vectors is not known: set it to the model's vector length.`,
    );
  }
  if (url === undefined || model === undefined || length === undefined) return { kind: "local" }; // never used: check() throws
  const azure = isAzureShape(url);
  if (apiVersion !== undefined && !azure) {
    read.problem(
      "MEMORY_EMBEDDINGS_API_VERSION",
      "unset unless MEMORY_EMBEDDINGS_ENDPOINT is an Azure OpenAI resource URL (no path)",
      "MEMORY_EMBEDDINGS_API_VERSION is set, but MEMORY_EMBEDDINGS_ENDPOINT has a path, so it is called as an OpenAI-compatible " +
        "base URL, which takes no api-version: unset it, or give the Azure OpenAI resource URL without a path.",
    );
  }
  const identity = apiKey === undefined && (azure || isAzureHost(url));
  return {
    kind: "endpoint",
    url,
    model,
    dimensions: length,
    requestDimensions: dimensions !== undefined,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(apiVersion === undefined ? {} : { apiVersion }),
    ...(identity ? { token: tokenSource(read.get("AZURE_CLIENT_ID"), AZURE_OPENAI_SCOPE) } : {}),
  };
}

/** The endpoint (managed identity) first, then our connection string, then the Functions host's. */
function storageFrom(read: SettingsReader): StorageSettings {
  const tableName = read.get("MEMORY_TABLE_NAME") ?? DEFAULT_TABLE_NAME;
  const endpoint = read.get("MEMORY_STORAGE_TABLE_ENDPOINT");
  if (endpoint) {
    const clientId = read.get("AZURE_CLIENT_ID");
    return { kind: "identity", endpoint, tableName, ...(clientId ? { clientId } : {}) };
  }
  const own = read.get("MEMORY_STORAGE_CONNECTION_STRING");
  if (own) return { kind: "connectionString", connectionString: own, tableName, source: "MEMORY_STORAGE_CONNECTION_STRING" };
  const host = read.get("AzureWebJobsStorage");
  if (host) return { kind: "connectionString", connectionString: host, tableName, source: "AzureWebJobsStorage" };
  return { kind: "none", tableName };
}
