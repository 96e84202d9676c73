import type { ChildProcess } from "node:child_process";

export default async function globalTeardown(): Promise<void> {
  const child = (globalThis as { __azurite?: ChildProcess }).__azurite;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL"); // in-memory data: nothing to flush
  await exited;
}
