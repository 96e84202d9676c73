import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

/** Azurite's well-known development account (public, documented; not a secret). */
const ACCOUNT = "devstoreaccount1";
const ACCOUNT_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

export interface EmbeddedAzurite {
  port: number;
  connectionString: string;
  stop(): Promise<void>;
}

export interface AzuriteOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** A folder to keep data in; omit to keep everything in memory. */
  location?: string;
}

interface TableServerLike {
  start(): Promise<void>;
  close(): Promise<void>;
  getHttpServerAddress(): string;
}

/**
 * Runs Azurite's Table service inside this process: nothing to install or start by hand, and no
 * child process to orphan when the parent is stopped. Azurite is a dev dependency, loaded on demand.
 */
export async function startAzurite(options: AzuriteOptions = {}): Promise<EmbeddedAzurite> {
  const require = createRequire(import.meta.url);
  let modules: { TableServer: new (config: unknown) => TableServerLike; TableConfiguration: new (...args: unknown[]) => unknown };
  try {
    modules = {
      TableServer: require("azurite/dist/src/table/TableServer.js").default,
      TableConfiguration: require("azurite/dist/src/table/TableConfiguration.js").default,
    };
  } catch {
    throw new Error("Azurite is not installed. Run `npm install` in the repository, or set MEMORY_STORAGE_CONNECTION_STRING.");
  }
  const host = options.host ?? "127.0.0.1";
  const inMemory = options.location === undefined;
  if (options.location) mkdirSync(options.location, { recursive: true });
  const config = new modules.TableConfiguration(
    host,
    options.port ?? 0,
    5, // keep-alive timeout (s)
    join(options.location ?? ".", "__azurite_db_table__.json"),
    false, // debug log
    false, // access log
    undefined,
    undefined,
    false, // loose
    true, // skip API version check: the SDK may be newer than the emulator
    "",
    "",
    "",
    undefined,
    false,
    inMemory,
  );
  const server = new modules.TableServer(config);
  await server.start();
  const port = Number(new URL(server.getHttpServerAddress()).port);
  const connectionString =
    `DefaultEndpointsProtocol=http;AccountName=${ACCOUNT};AccountKey=${ACCOUNT_KEY};` + `TableEndpoint=http://${host}:${port}/${ACCOUNT};`;
  return { port, connectionString, stop: () => server.close() };
}
