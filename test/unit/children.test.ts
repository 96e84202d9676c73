import { describe, expect, test } from "@jest/globals";

import { groupMembers, reap, spawnChild, waitForOutput } from "../support/children.js";
import { PARENT } from "../support/stubbornProcesses.js";

/** The reaper of test/support/children.ts on real processes: a child and a grandchild that both ignore SIGTERM. */
const POLITE = `setInterval(() => {}, 1000); console.log("ready");`;

describe("reap", () => {
  test("kills a group whose processes ignore SIGTERM, after the grace period, and says which it had to kill", async () => {
    const child = spawnChild(process.execPath, ["-e", PARENT]);
    const [, parent, grandchild] = /pids (\d+) (\d+)/.exec(await waitForOutput(child, /pids \d+ \d+/, 30_000))!.map(Number);
    expect(
      groupMembers(child.pid!)
        .map((member) => member.pid)
        .sort(),
    ).toEqual([parent, grandchild].sort());

    const killed = await reap(child, "SIGTERM", 500);
    expect(killed.map((member) => member.pid).sort()).toEqual([parent, grandchild].sort());
    expect(groupMembers(child.pid!)).toEqual([]);
  }, 30_000);

  test("a child that stops on SIGTERM needs no SIGKILL", async () => {
    const child = spawnChild(process.execPath, ["-e", POLITE]);
    await waitForOutput(child, /ready/, 30_000);
    expect(await reap(child)).toEqual([]);
    expect(groupMembers(child.pid!)).toEqual([]);
  }, 30_000);

  test("waitForOutput gives up after its timeout instead of waiting for good", async () => {
    const child = spawnChild(process.execPath, ["-e", POLITE]);
    await expect(waitForOutput(child, /never printed/, 300)).rejects.toThrow(/within 300 ms/);
    await reap(child);
  }, 30_000);
});
