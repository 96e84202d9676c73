import { type ChildProcess, spawn, type SpawnOptions } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

import { afterAll } from "@jest/globals";

/**
 * Every process a test starts, started here: each in a process group of its own (detached), so that reaping it also reaps
 * whatever it started (`npm start` runs node, which may run Azurite), and registered, so that it is reaped whatever the
 * test's outcome:
 * - after the test file (an afterAll hook registered by importing this module), SIGTERM to the group, then SIGKILL to what
 *   is left after a grace period;
 * - when the jest process exits or is signalled, SIGKILL to every group still registered.
 * The child and its pipes are unref'd: on a 2-core machine jest runs the files in its own process (one worker), and a child
 * left running with open pipes kept that process alive after the summary, for good (issue #21, defect 12).
 */

/** How long a group gets between SIGTERM and SIGKILL. */
const GRACE_MS = 5_000;

/** Process-group ids (the leader's pid) of the children not yet reaped. */
const groups = new Set<number>();
/** Single processes some library started for a test (adopt), not yet reaped. */
const adopted = new Set<number>();

export interface Member {
  pid: number;
  state: string;
  command: string;
}

/**
 * The live processes of group `groupId` (zombies left out: they have exited and only wait for their parent to collect them),
 * read from /proc.
 */
export function groupMembers(groupId: number): Member[] {
  const members: Member[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // it ended while we looked
    }
    // pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses, so split after its last ")".
    const close = stat.lastIndexOf(")");
    const [state, , pgrp] = stat.slice(close + 2).split(" ");
    if (Number(pgrp) === groupId && state !== "Z" && state !== "X")
      members.push({ pid: Number(name), state: state!, command: stat.slice(stat.indexOf("(") + 1, close) });
  }
  return members;
}

function signalGroup(groupId: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-groupId, signal);
  } catch {
    // ESRCH: nothing left in the group
  }
}

/** Starts `command` in a process group of its own, registered for reaping. stdio defaults to ignore/pipe/pipe. */
export function spawnChild(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options, detached: true });
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  groups.add(child.pid);
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as { unref?: () => void } | null)?.unref?.();
  return child;
}

/**
 * Registers a process a library started (not in a group of its own: the MCP SDK's stdio transport spawns its server), so
 * that it is killed after the file or on exit if the test did not end it.
 */
export function adopt(pid: number | null | undefined): void {
  if (pid) adopted.add(pid);
}

/** Forgets an adopted process once its owner has ended it. */
export function release(pid: number | null | undefined): void {
  if (pid) adopted.delete(pid);
}

/**
 * Ends the group of `child` (or of the group id given): `signal` (SIGTERM by default) to the whole group, then SIGKILL to
 * whatever is still alive after `graceMs`. Resolves with the processes that had to be killed (empty when the signal was
 * enough), once none is left.
 */
export async function reap(child: ChildProcess | number, signal: NodeJS.Signals = "SIGTERM", graceMs = GRACE_MS): Promise<Member[]> {
  const groupId = typeof child === "number" ? child : child.pid;
  if (groupId === undefined) return [];
  signalGroup(groupId, "SIGCONT"); // a stopped process cannot act on SIGTERM
  signalGroup(groupId, signal);
  for (let waited = 0; waited < graceMs && groupMembers(groupId).length > 0; waited += 50) await sleep(50);
  const left = groupMembers(groupId);
  if (left.length > 0) {
    signalGroup(groupId, "SIGKILL");
    for (let waited = 0; waited < 10_000 && groupMembers(groupId).length > 0; waited += 50) await sleep(50);
  }
  groups.delete(groupId);
  return left;
}

/** Reaps every child still registered (the afterAll hook below; a test may call it itself). */
export async function reapAll(graceMs = GRACE_MS): Promise<void> {
  for (const pid of adopted) killProcess(pid, "SIGKILL");
  adopted.clear();
  await Promise.all([...groups].map((groupId) => reap(groupId, "SIGTERM", graceMs)));
}

/** Kills an adopted process, if it is still this process's child (its pid was not reused). */
function killProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (ppid !== process.pid) return;
    process.kill(pid, signal);
  } catch {
    // ESRCH: it has ended
  }
}

/**
 * Resolves with the output so far once the child's stdout or stderr matches `pattern`; rejects if it exits first or if
 * `timeoutMs` passes (so a child that hangs fails the test rather than the run).
 */
export function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no ${pattern} within ${timeoutMs} ms; output so far:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (pattern.test(output)) finish();
    };
    const onExit = (code: number | null, signal: string | null) =>
      finish(new Error(`exited (${code ?? signal}) before ${pattern}:\n${output}`));
    function finish(error?: Error) {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.stderr?.off("data", onData);
      child.off("exit", onExit);
      if (error) reject(error);
      else resolve(output);
    }
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", onExit);
  });
}

/** Resolves with the exit code (or signal) once `child` has exited, or rejects after `timeoutMs`. */
export function waitForExit(child: ChildProcess, timeoutMs: number): Promise<number | NodeJS.Signals> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode ?? child.signalCode!);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`pid ${child.pid} did not exit within ${timeoutMs} ms`)), timeoutMs);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? signal!);
    });
  });
}

// Last resort when the process ends or is told to: nothing may outlive the test run. Synchronous, so SIGKILL straight away.
function killAll(): void {
  for (const groupId of groups) signalGroup(groupId, "SIGKILL");
  for (const pid of adopted) killProcess(pid, "SIGKILL");
  groups.clear();
  adopted.clear();
}
process.once("exit", killAll);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
  process.once(signal, () => {
    killAll();
    // Leave the default action (ending the process) to it when nobody else handles the signal.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  });

afterAll(() => reapAll(), GRACE_MS + 15_000);
