import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectStorage, type StorageClientOptions, type StorageConnection } from "../storage/client.js";
import { readStorageSettings } from "../storage/settings.js";
import { startAzurite, type EmbeddedAzurite } from "./azurite.js";

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
 * The storage the local server and the CLI use: the configured one (design §5), or, when none is
 * configured, an embedded Azurite keeping its data in `folder` (./.azurite). If another process
 * already serves that folder, its Azurite is used rather than a second one on the same files.
 */
export async function openLocalStorage(options: {
  env?: NodeJS.ProcessEnv;
  folder: string;
  client?: StorageClientOptions;
}): Promise<LocalStorage> {
  const settings = readStorageSettings(options.env);
  if (settings.kind !== "none") {
    const where = settings.kind === "identity" ? settings.endpoint : settings.source;
    return {
      connection: connectStorage(settings, options.client),
      description: `${where}, table '${settings.tableName}'`,
      close: async () => {},
    };
  }
  const running = runningAzurite(options.folder);
  if (running) {
    const connection = connectStorage(
      { kind: "connectionString", connectionString: running, tableName: settings.tableName, source: "embedded Azurite" },
      options.client,
    );
    return { connection, description: `the embedded Azurite another process runs on ${options.folder}`, close: async () => {} };
  }
  const azurite: EmbeddedAzurite = await startAzurite({ location: options.folder });
  const endpointFile = join(options.folder, ENDPOINT_FILE);
  writeFileSync(endpointFile, JSON.stringify({ pid: process.pid, connectionString: azurite.connectionString }));
  const connection = connectStorage(
    { kind: "connectionString", connectionString: azurite.connectionString, tableName: settings.tableName, source: "embedded Azurite" },
    options.client,
  );
  return {
    connection,
    description: `embedded Azurite (data in ${options.folder})`,
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
