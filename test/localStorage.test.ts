import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { describe, expect, test } from "@jest/globals";

import { readSettings } from "../src/config/settings.js";
import { openLocalStorage as openWith } from "../src/local/storage.js";
import { testConnectionString } from "./support/harness.js";

/** How `npm start` and the CLI pick their storage when none is configured: one embedded Azurite per ./.azurite folder. */
/** The local server's storage for `env`, with the embedded Azurite's data in `folder`. */
const openLocalStorage = ({ env, folder }: { env: NodeJS.ProcessEnv; folder: string }) => openWith(readSettings(env, "local"), folder);

describe("openLocalStorage", () => {
  test("uses the configured storage when there is one", async () => {
    const storage = await openLocalStorage({ env: { MEMORY_STORAGE_CONNECTION_STRING: testConnectionString() }, folder: "/nonexistent" });
    expect(storage.description).toBe("MEMORY_STORAGE_CONNECTION_STRING, table 'memorygraph'");
    await storage.close();
  });

  test("joins the Azurite another live process serves on the folder, and starts its own when that process is gone", async () => {
    const folder = await mkdtemp(join(tmpdir(), "central-memory-local-"));
    try {
      await mkdir(folder, { recursive: true });
      // A live process (our parent) has registered an Azurite: the test one.
      await writeFile(join(folder, "endpoint.json"), JSON.stringify({ pid: process.ppid, connectionString: testConnectionString() }));
      const joined = await openLocalStorage({ env: {}, folder });
      expect(joined.description).toMatch(/another process runs/);
      await joined.connection.ensureTable(); // it really is reachable
      await joined.close();
      expect(existsSync(join(folder, "endpoint.json"))).toBe(true); // not ours to remove

      // Left over from a crash: the process is gone, so start an embedded Azurite and register it.
      const dead = spawnSync(process.execPath, ["-e", "0"]).pid;
      await writeFile(join(folder, "endpoint.json"), JSON.stringify({ pid: dead, connectionString: "unused" }));
      const own = await openLocalStorage({ env: {}, folder });
      expect(own.description).toBe(`embedded Azurite (data in ${folder})`);
      await own.connection.ensureTable();
      await own.close();
      expect(existsSync(join(folder, "endpoint.json"))).toBe(false);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
