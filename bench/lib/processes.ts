import { type ChildProcess, fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * Child processes the bench and load scripts run: our server and Azurite each in their own process,
 * so the server's RSS is its own, and the driver's work does not share the server's event loop.
 * They talk over the IPC channel: the child sends {type:"ready", ...} once, then answers requests.
 */
export interface ChildHandle<Ready> {
  child: ChildProcess;
  ready: Ready;
  /** Sends {type, id} and resolves with the child's reply carrying the same id. */
  ask<Reply>(type: string): Promise<Reply>;
  stop(): Promise<void>;
}

export async function startChild<Ready>(entry: URL, env: NodeJS.ProcessEnv = {}): Promise<ChildHandle<Ready>> {
  // stdout ignored: the server logs a line per tool call, which would bury the table the bench prints.
  const child = fork(fileURLToPath(entry), [], { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`${fileURLToPath(entry)} exited with code ${code} before it was ready`)));
    child.on("message", (message: { type?: string }) => {
      if (message.type === "ready") resolve(message as Ready);
    });
  });
  child.removeAllListeners("exit");
  let nextId = 0;
  return {
    child,
    ready,
    ask<Reply>(type: string) {
      const id = ++nextId;
      return new Promise<Reply>((resolve) => {
        const listener = (message: { id?: number }) => {
          if (message.id !== id) return;
          child.off("message", listener);
          resolve(message as Reply);
        };
        child.on("message", listener);
        child.send({ type, id });
      });
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.send({ type: "stop" });
      const force = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(force);
    },
  };
}

/** Peak resident set size of a process (Linux VmHWM), or undefined where /proc is not available. */
export function peakRssBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The child side: answers the parent's {type, id} messages, and stops cleanly on {type:"stop"}. */
export function serveParent(ready: Record<string, unknown>, handlers: Record<string, () => unknown>, stop: () => Promise<void>): void {
  process.on("message", (message: { type: string; id?: number }) => {
    if (message.type === "stop") {
      void stop().finally(() => process.exit(0));
      return;
    }
    const handler = handlers[message.type];
    process.send?.({ ...(handler ? (handler() as object) : { error: `unknown request ${message.type}` }), id: message.id });
  });
  // Orphaned (the parent died): do not linger.
  process.on("disconnect", () => void stop().finally(() => process.exit(0)));
  process.send?.({ type: "ready", ...ready });
}
