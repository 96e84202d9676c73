import { resolve } from "node:path";

import { readSettings } from "../config/settings.js";
import type { ToolCallLog } from "../mcp/instrument.js";
import { type Runtime, runtimeFrom } from "../runtime.js";
import { openLocalStorage } from "./storage.js";

export interface LocalRuntime extends Runtime {
  /** Where the data is, for a startup line. */
  storageDescription: string;
  /** Stops what this process started (the embedded Azurite, whose data is saved in its folder). */
  close(): Promise<void>;
}

/**
 * The runtime of the doors that run on a developer's machine (`npm start`, the CLI): as
 * createRuntime, but with no storage configured an embedded Azurite serves MEMORY_AZURITE_FOLDER
 * (resolved against `cwd`). Settings are checked before anything starts.
 */
export async function openLocalRuntime(
  env: NodeJS.ProcessEnv,
  options: { door: "local" | "cli"; cwd: string; log?: (entry: ToolCallLog) => void },
): Promise<LocalRuntime> {
  const settings = readSettings(env, options.door);
  const storage = await openLocalStorage(settings, resolve(options.cwd, settings.azuriteFolder));
  const runtime = runtimeFrom(settings, { storage: storage.connection, ...(options.log ? { log: options.log } : {}) });
  return { ...runtime, storageDescription: storage.description, close: storage.close };
}
