import { MemoryService } from "./domain/memory.js";
import { createAuthenticator } from "./http/auth/authenticate.js";
import { readAuthSettings, type AuthSettings } from "./http/auth/settings.js";
import { createHandler, type FetchHandler } from "./http/handler.js";
import { tableReadiness } from "./http/readiness.js";
import { loggingInstrument, type ToolCallLog } from "./mcp/instrument.js";
import type { Toolsets } from "./mcp/tool.js";
import { readDefaultToolsets } from "./mcp/toolsets.js";
import { connectStorage, type StorageConnection } from "./storage/client.js";
import { readStorageSettings } from "./storage/settings.js";
import { TableGraphStore } from "./storage/tableGraphStore.js";
import { VERSION } from "./version.js";

export interface App {
  handler: FetchHandler;
  storage: StorageConnection;
  memory: MemoryService;
  auth: AuthSettings;
  toolsets: Toolsets;
}

export interface AppOptions {
  /** Authentication settings; read from the environment when not given (invalid ones throw here). */
  auth?: AuthSettings;
  /** The default tool groups; read from MEMORY_TOOLSETS when not given (an unknown group throws here). */
  toolsets?: Toolsets;
  /** Where per-call log lines go; by default one JSON line on stdout (captured by the Functions host). */
  log?: (entry: ToolCallLog) => void;
}

/** The composition root both doors share: storage → store → domain → HTTP handler, with auth and logging. */
export function createApp(
  storage: StorageConnection = connectStorage(readStorageSettings(), storageOptionsFromEnv()),
  options: AppOptions = {},
): App {
  const auth = options.auth ?? readAuthSettings();
  const toolsets = options.toolsets ?? readDefaultToolsets();
  const memory = createMemory(storage);
  const instrument = loggingInstrument({
    countRequests: (work, tally) => storage.counter.run(work, tally),
    log: options.log ?? ((entry) => console.info(JSON.stringify(entry))),
  });
  const handler = createHandler({
    memory,
    readiness: tableReadiness(storage),
    version: VERSION,
    instrument,
    toolsets,
    auth: { settings: auth, authenticate: createAuthenticator(auth.mode) },
  });
  return { handler, storage, memory, auth, toolsets };
}

/** The domain over Table Storage: what the HTTP doors and the CLI share. */
export function createMemory(storage: StorageConnection): MemoryService {
  return new MemoryService(new TableGraphStore(storage));
}

/** MEMORY_STORAGE_TIMEOUT_MS and MEMORY_STORAGE_MAX_RETRIES bound how long a tool call waits on storage. */
export function storageOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): { timeoutMs?: number; maxRetries?: number } {
  const number = (value: string | undefined) => (value && /^\d+$/.test(value) ? Number(value) : undefined);
  const timeoutMs = number(env.MEMORY_STORAGE_TIMEOUT_MS);
  const maxRetries = number(env.MEMORY_STORAGE_MAX_RETRIES);
  return { ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(maxRetries !== undefined ? { maxRetries } : {}) };
}
