import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { createRequire } from "node:module";

/**
 * One in-memory Azurite Table service for the whole run, in its own process so it does not share
 * an event loop with the tests. Test files isolate themselves by workspace name. (This file is
 * loaded outside jest's module system, so it imports only Node built-ins.)
 */
const ACCOUNT_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

export default async function globalSetup(): Promise<void> {
  const port = await freePort();
  const main = createRequire(import.meta.url).resolve("azurite/dist/src/table/main.js");
  const child = spawn(
    process.execPath,
    [main, "--tableHost", "127.0.0.1", "--tablePort", String(port), "--inMemoryPersistence", "--skipApiVersionCheck", "--disableTelemetry", "--silent"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("Azurite did not start within 30 s")), 30_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("successfully started")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`Azurite exited early with code ${code}`)));
  });
  process.env.TEST_STORAGE_CONNECTION_STRING =
    `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${ACCOUNT_KEY};` +
    `TableEndpoint=http://127.0.0.1:${port}/devstoreaccount1;`;
  (globalThis as { __azurite?: ChildProcess }).__azurite = child;
}
