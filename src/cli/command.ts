import { resolve } from "node:path";
import type { Writable } from "node:stream";
import { createMemory, storageOptionsFromEnv } from "../app.js";
import type { MemoryService } from "../domain/memory.js";
import { openLocalStorage } from "../local/storage.js";

/** Where a command reads its settings and writes its output: the process, or a test's buffers. */
export interface CliIo {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** A subcommand: `central-memory <name> …`. It returns the process exit code. */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  run(args: string[], io: CliIo): Promise<number>;
}

/** Per-attempt storage timeout of CLI commands when MEMORY_STORAGE_TIMEOUT_MS is not set. */
export const CLI_STORAGE_TIMEOUT_MS = 60_000;

/** A mistake in how the command was called: reported with the usage, exit code 2. */
export class UsageError extends Error {}

/**
 * Runs `work` against the memory the server would use: the configured storage (design §5), or the
 * embedded Azurite in ./.azurite when none is configured. Stops what it started, even on failure.
 * `storageRequests` counts the requests made so far (for reports of what a command cost).
 */
export async function withMemory<T>(io: CliIo, work: (memory: MemoryService, storageRequests: () => number) => Promise<T>): Promise<T> {
  // Bulk work queues many transactions: allow each longer than an interactive tool call would wait, unless told otherwise.
  const client = { timeoutMs: CLI_STORAGE_TIMEOUT_MS, ...storageOptionsFromEnv(io.env) };
  const storage = await openLocalStorage({ env: io.env, folder: resolve(io.cwd, ".azurite"), client });
  try {
    io.stderr.write(`Storage: ${storage.description}\n`);
    await storage.connection.ensureTable();
    return await work(createMemory(storage.connection), () => storage.connection.counter.total);
  } finally {
    await storage.close();
  }
}
