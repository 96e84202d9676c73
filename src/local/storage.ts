import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import type { Settings } from "../config/settings.js";
import { connectStorage, type StorageConnection } from "../storage/table/client.js";
import { type EmbeddedAzurite, startAzurite } from "./azurite.js";

export interface LocalStorage {
  connection: StorageConnection;
  /** Where the data is, for a startup line. */
  description: string;
  /** Stops the embedded Azurite if this process started it (its data is saved under the folder). */
  close(): Promise<void>;
}

/** Written while an embedded Azurite serves a folder, so a second process (the CLI beside `npm start`) uses it instead of opening the same files. */
const ENDPOINT_FILE = "endpoint.json";

/**
 * The storage the local server and the CLI use: the configured one, or, when none is configured,
 * an embedded Azurite keeping its data in `folder` (MEMORY_AZURITE_FOLDER). If another process
 * already serves that folder, its Azurite is used rather than a second one on the same files.
 */
export async function openLocalStorage(settings: Pick<Settings, "storage" | "storageClient">, folder: string): Promise<LocalStorage> {
  const { storage, storageClient } = settings;
  if (storage.kind !== "none") {
    const where = storage.kind === "identity" ? storage.endpoint : storage.source;
    return {
      connection: connectStorage(storage, storageClient),
      description: `${where}, table '${storage.tableName}'`,
      close: async () => {},
    };
  }
  const embedded = (connectionString: string) =>
    connectStorage({ kind: "connectionString", connectionString, tableName: storage.tableName, source: "embedded Azurite" }, storageClient);
  const running = runningAzurite(folder);
  if (running) {
    return { connection: embedded(running), description: `the embedded Azurite another process runs on ${folder}`, close: async () => {} };
  }
  const azurite: EmbeddedAzurite = await startAzurite({ location: folder });
  const endpointFile = join(folder, ENDPOINT_FILE);
  writeFileSync(endpointFile, JSON.stringify({ pid: process.pid, connectionString: azurite.connectionString }));
  return {
    connection: embedded(azurite.connectionString),
    description: `embedded Azurite (data in ${folder})`,
    close: async () => {
      rmSync(endpointFile, { force: true });
      await azurite.stop();
    },
  };
}

/** The connection string of an embedded Azurite that a live process runs on this folder, if any. */
function runningAzurite(folder: string): string | undefined {
  const file = join(folder, ENDPOINT_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const { pid, connectionString } = JSON.parse(readFileSync(file, "utf8")) as { pid?: unknown; connectionString?: unknown };
    if (typeof pid !== "number" || typeof connectionString !== "string" || pid === process.pid) return undefined;
    process.kill(pid, 0); // throws if no such process: the file is left over from a crash
    return connectionString;
  } catch {
    return undefined;
  }
}
