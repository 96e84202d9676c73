import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

import { describe, expect, test } from "@jest/globals";

import { spawnChild, waitForExit } from "./support/children.js";

/**
 * CI trusts `npm test`'s exit code. A jest run whose storage tier (globalSetup starts Azurite, globalTeardown stops it)
 * has a failing test must exit non-zero: an Azurite child that no longer holds the event loop once let teardown end the
 * process with code 0 before jest reported the failure, so every failing run passed.
 */
describe("the test command's exit code", () => {
  test("a run with a failing test in the storage tier exits 1; a passing one exits 0", async () => {
    const root = resolve(".");
    const folder = mkdtempSync(join(tmpdir(), "central-memory-exit-"));
    try {
      writeFileSync(join(folder, "fails.test.js"), 'test("fails", () => { expect(1).toBe(2); });\n');
      writeFileSync(join(folder, "passes.test.js"), 'test("passes", () => { expect(1).toBe(1); });\n');
      const config = (file: string) =>
        JSON.stringify({
          rootDir: root,
          roots: [folder],
          testMatch: [join(folder, file)],
          // The repository's TypeScript setup (jest.config.js), for globalSetup and globalTeardown.
          extensionsToTreatAsEsm: [".ts"],
          moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
          transform: { "^.+\\.ts$": ["ts-jest", { useESM: true, diagnostics: false }] },
          globalSetup: join(root, "test/support/azurite.ts"),
          globalTeardown: join(root, "test/support/globalTeardown.ts"),
        });
      const run = async (file: string) => {
        const child = spawnChild(
          process.execPath,
          ["--experimental-vm-modules", join(root, "node_modules/jest/bin/jest.js"), "--config", config(file)],
          { cwd: root, stdio: ["ignore", "ignore", "pipe"] },
        );
        let output = "";
        child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
        const code = await waitForExit(child, 120_000);
        return { code, ran: /Tests:\s+1 (failed|passed), 1 total/.exec(output)?.[1] ?? output };
      };
      expect(await run("fails.test.js")).toEqual({ code: 1, ran: "failed" });
      expect(await run("passes.test.js")).toEqual({ code: 0, ran: "passed" });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 240_000);
});
