import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { describe, expect, test } from "@jest/globals";

import { ROOT } from "./support/build.js";
import { spawnChild, waitForExit } from "./support/children.js";

/**
 * The promise of test/support/children.ts, shown on a whole jest run: a test file that starts a child ignoring SIGTERM (with
 * a grandchild that ignores it too) and then fails still lets jest end, in-band as it runs on a 2-core machine, and leaves
 * no process behind (issue #21, defect 12: a failed test once left `npm start` running and jest waited for it for good).
 */
function alive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[0];
    return state !== "Z" && state !== "X"; // a zombie has ended: it waits only for its parent to collect it
  } catch {
    return false;
  }
}

describe("a failing test file that started a stubborn child", () => {
  test("jest still ends, reports the failure, and neither the child nor its grandchild is left", async () => {
    const folder = mkdtempSync(join(tmpdir(), "central-memory-stuck-"));
    const pidsFile = join(folder, "pids");
    const config = {
      rootDir: ROOT,
      testEnvironment: "node",
      testMatch: ["<rootDir>/test/fixtures/stuckChild.test.ts"],
      extensionsToTreatAsEsm: [".ts"],
      moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
      transform: { "^.+\\.ts$": ["ts-jest", { useESM: true, diagnostics: false }] },
    };
    try {
      // --runInBand: the file runs in jest's own process, where a child's open pipes once kept it alive after the summary.
      const jest = spawnChild(
        process.execPath,
        ["--experimental-vm-modules", join(ROOT, "node_modules/jest/bin/jest.js"), "--runInBand", "--config", JSON.stringify(config)],
        { cwd: ROOT, env: { ...process.env, STUCK_PIDS_FILE: pidsFile, CI: "true" } },
      );
      let output = "";
      jest.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
      jest.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
      // Generous: jest starts and compiles TypeScript, slowly on a loaded machine; a hang would last for good.
      const code = await waitForExit(jest, 150_000).catch((error: Error) => `${error.message}\n${output}`);
      expect(code).toBe(1); // the fixture's failure, reported
      expect(output).toContain("failing on purpose");
      const pids = readFileSync(pidsFile, "utf8").split(" ").map(Number);
      expect(pids).toHaveLength(2);
      expect(pids.filter(alive)).toEqual([]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 180_000);
});
