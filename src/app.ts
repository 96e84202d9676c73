import { MemoryService } from "./domain/memory.js";
import { createHandler, type FetchHandler } from "./http/handler.js";
import { tableReadiness } from "./http/readiness.js";
import { connectStorage, type StorageConnection } from "./storage/client.js";
import { readStorageSettings } from "./storage/settings.js";
import { TableGraphStore } from "./storage/tableGraphStore.js";
import { VERSION } from "./version.js";

export interface App {
  handler: FetchHandler;
  storage: StorageConnection;
  memory: MemoryService;
}

/** The composition root both doors share: storage → store → domain → HTTP handler. */
export function createApp(storage: StorageConnection = connectStorage(readStorageSettings(), storageOptionsFromEnv())): App {
  const memory = createMemory(storage);
  const handler = createHandler({ memory, readiness: tableReadiness(storage.probe), version: VERSION });
  return { handler, storage, memory };
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
