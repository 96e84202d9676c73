import type { Writable } from "node:stream";

import type { Services } from "../domain/services/services.js";
import { openLocalRuntime } from "../local/localRuntime.js";

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

/** A mistake in how the command was called: reported with the usage, exit code 2. */
export class UsageError extends Error {}

/**
 * Runs `work` against the services the server would use: the configured storage, or the
 * embedded Azurite in ./.azurite (MEMORY_AZURITE_FOLDER) when none is configured. Stops what it started, even on failure.
 * `storageRequests` counts the requests made so far (for reports of what a command cost).
 */
export async function withServices<T>(io: CliIo, work: (services: Services, storageRequests: () => number) => Promise<T>): Promise<T> {
  const runtime = await openLocalRuntime(io.env, { door: "cli", cwd: io.cwd });
  try {
    io.stderr.write(`Storage: ${runtime.storageDescription}\n`);
    await runtime.storage.ensureTable();
    return await work(runtime.services, () => runtime.storage.counter.total);
  } finally {
    await runtime.close();
  }
}
