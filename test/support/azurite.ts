import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { createRequire } from "node:module";

/**
 * Azurite's Table service as a child process the tests control: stop it to simulate an outage,
 * start it again on the same port. This file is also jest's globalSetup (default export), which
 * jest loads outside its module system, so it imports only Node built-ins.
 */
const ACCOUNT_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

export interface AzuriteProcess {
  port: number;
  connectionString: string;
  /** Kills the process (in-memory data is lost; data under `location` survives). */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

function launch(port: number, location: string | undefined): Promise<ChildProcess> {
  const main = createRequire(import.meta.url).resolve("azurite/dist/src/table/main.js");
  const storage = location ? ["--location", location] : ["--inMemoryPersistence"];
  const args = [main, "--tableHost", "127.0.0.1", "--tablePort", String(port), ...storage, "--skipApiVersionCheck", "--disableTelemetry", "--silent"];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("Azurite did not start within 30 s")), 30_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("successfully started")) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once("exit", (code) => reject(new Error(`Azurite exited early with code ${code}`)));
  });
}

export async function startAzuriteProcess(options: { port?: number; location?: string } = {}): Promise<AzuriteProcess> {
  const port = options.port ?? (await freePort());
  let child: ChildProcess | undefined = await launch(port, options.location);
  return {
    port,
    connectionString:
      `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${ACCOUNT_KEY};` +
      `TableEndpoint=http://127.0.0.1:${port}/devstoreaccount1;`,
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once("exit", resolve));
      running.kill("SIGKILL");
      await exited;
    },
    async start() {
      if (!child) child = await launch(port, options.location);
    },
  };
}

/** jest globalSetup: one in-memory Azurite for the whole run; test files isolate themselves by workspace. */
export default async function globalSetup(): Promise<void> {
  const azurite = await startAzuriteProcess();
  process.env.TEST_STORAGE_CONNECTION_STRING = azurite.connectionString;
  (globalThis as { __azurite?: AzuriteProcess }).__azurite = azurite;
}
