import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";

/**
 * Azurite's Table service as a child process the tests control: stop it to simulate an outage,
 * start it again on the same port. This file is also jest's globalSetup (default export), which
 * jest loads outside its module system, so it imports only Node built-ins.
 */
const ACCOUNT_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

export interface AzuriteProcess {
  port: number;
  connectionString: string;
  /**
   * Stops the process. "kill" (SIGKILL) is an abrupt crash: in-memory data is lost, and with a
   * `location` so is every write since Azurite's last autosave (LokiJS saves every 5 s), although
   * Azurite acknowledged it. "graceful" (SIGINT) is Azurite's own shutdown: it stops accepting
   * requests, lets in-flight ones finish, and saves, so with a `location` every acknowledged write
   * survives. Tests that check "every acknowledged write is present" after a restart need "graceful",
   * or they would be measuring the emulator's persistence, not us.
   */
  stop(mode?: "kill" | "graceful"): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /**
   * Freezes the process (SIGSTOP): the kernel still accepts connections, but nothing answers,
   * like a storage account behind a black-holing network. `resume()` (SIGCONT) thaws it.
   */
  pause(): void;
  resume(): void;
}

/** The connection string of an Azurite Table service on `port` of this machine (its well-known development account). */
export function azuriteConnectionString(port: number): string {
  return (
    `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${ACCOUNT_KEY};` +
    `TableEndpoint=http://127.0.0.1:${port}/devstoreaccount1;`
  );
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
  const args = [
    main,
    "--tableHost",
    "127.0.0.1",
    "--tablePort",
    String(port),
    ...storage,
    "--skipApiVersionCheck",
    "--disableTelemetry",
    "--silent",
  ];
  // If this process dies without stopping Azurite (a killed test run), Azurite is re-parented; it
  // notices and exits instead of lingering as an orphan on its port. (Not an IPC channel: Azurite
  // listens for messages, which would keep it alive after its own graceful shutdown.)
  const watchdog = "--import=data:text/javascript,const p=process.ppid;setInterval(()=>{if(process.ppid!==p)process.exit(1)},500).unref()";
  // In a process group of its own, so that stopping it ends all of it (test/support/children.ts does the same for the
  // tests' children; this file may import only Node built-ins). Unref'd with its pipes: a test that forgets to stop it
  // must not keep jest alive after the run (issue #21, defect 12); the exit hook below and the watchdog end it then.
  const child = spawn(process.execPath, [watchdog, ...args], { stdio: ["ignore", "pipe", "pipe"], detached: true });
  if (child.pid !== undefined) azurites.add(child.pid);
  child.once("exit", () => azurites.delete(child.pid!));
  child.unref();
  for (const stream of [child.stdout, child.stderr]) (stream as { unref?: () => void } | null)?.unref?.();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(child, "SIGKILL");
      reject(new Error("Azurite did not start within 60 s"));
    }, 60_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("successfully started")) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once("exit", (code) => reject(new Error(`Azurite exited early with code ${code}`)));
  });
}

/** Process-group ids of the Azurites started by this process and not yet exited. */
const azurites = new Set<number>();
process.once("exit", () => {
  for (const groupId of azurites) signalGroup(groupId, "SIGKILL");
});

function signalGroup(groupId: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-groupId, signal);
  } catch {
    // ESRCH: already gone
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid !== undefined) signalGroup(child.pid, signal);
}

export async function startAzuriteProcess(options: { port?: number; location?: string } = {}): Promise<AzuriteProcess> {
  const port = options.port ?? (await freePort());
  let child: ChildProcess | undefined = await launch(port, options.location);
  return {
    port,
    connectionString: azuriteConnectionString(port),
    async stop(mode = "kill") {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once("exit", resolve));
      // Referenced again while we wait: an unref'd child's exit does not keep the loop alive, and in jest's globalTeardown
      // an empty loop ends the process with code 0 before jest reports the failures (every failing run "passed").
      running.ref();
      killGroup(running, "SIGCONT"); // a paused process cannot shut itself down
      killGroup(running, mode === "graceful" ? "SIGINT" : "SIGKILL");
      // A graceful stop that does not finish is a bug in the emulator; do not let it hang the suite.
      const force = mode === "graceful" ? setTimeout(() => killGroup(running, "SIGKILL"), 20_000) : undefined;
      await exited;
      clearTimeout(force);
    },
    async start() {
      if (!child) child = await launch(port, options.location);
    },
    pause() {
      child?.kill("SIGSTOP");
    },
    resume() {
      child?.kill("SIGCONT");
    },
  };
}

/** jest globalSetup: one in-memory Azurite for the whole run; test files isolate themselves by workspace. */
export default async function globalSetup(): Promise<void> {
  // The local embedder's word-vector model (scripts/wordVectors.mjs; a no-op when the binary is current).
  execFileSync(process.execPath, [new URL("../../scripts/wordVectors.mjs", import.meta.url).pathname], { stdio: "inherit" });
  const azurite = await startAzuriteProcess();
  process.env.TEST_STORAGE_CONNECTION_STRING = azurite.connectionString;
  // Names this run for test/support/build.ts (compile once per run, whichever test file asks first).
  process.env.TEST_RUN_ID = `${Date.now()}-${process.pid}`;
  (globalThis as { __azurite?: AzuriteProcess }).__azurite = azurite;
}
