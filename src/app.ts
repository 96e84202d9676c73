import { MemoryService } from "./domain/memory.js";
import { ValidationError } from "./domain/errors.js";
import { createAuthenticator } from "./http/auth/authenticate.js";
import { readAuthSettings, type AuthEnvironment, type AuthSettings } from "./http/auth/settings.js";
import { createHandler, type FetchHandler } from "./http/handler.js";
import { InvalidSettingsError, type SettingProblem } from "./http/invalidConfiguration.js";
import { tableReadiness } from "./http/readiness.js";
import { loggingInstrument, type ToolCallLog } from "./mcp/instrument.js";
import { TOOL_GROUPS, type Toolsets } from "./mcp/tool.js";
import { readDefaultToolsets } from "./mcp/toolsets.js";
import { connectStorage, type StorageConnection } from "./storage/client.js";
import { tableCursorKey } from "./storage/cursorKey.js";
import { readStorageSettings } from "./storage/settings.js";
import { TableGraphStore } from "./storage/tableGraphStore.js";
import { VERSION } from "./version.js";

export interface App {
  handler: FetchHandler;
  storage: StorageConnection;
  memory: MemoryService;
  auth: AuthSettings;
  toolsets: Toolsets;
}

/** What the HTTP handler is configured with; each is read from the environment unless given. */
export interface AppSettings {
  /** Authentication (MEMORY_AUTH and the settings it needs). */
  auth: AuthSettings;
  /** The default tool groups (MEMORY_TOOLSETS). */
  toolsets: Toolsets;
  /** The deadline of one MCP request (MEMORY_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
}

export interface AppOptions extends Partial<AppSettings> {
  /** Where per-call log lines go; by default one JSON line on stdout (captured by the Functions host). */
  log?: (entry: ToolCallLog) => void;
}

/**
 * 120 s. A legitimate call is slow only when storage is, and one storage request gives up after
 * (MEMORY_STORAGE_MAX_RETRIES + 1) × (MEMORY_STORAGE_TIMEOUT_MS + 1 s backoff) = 3 × 11 s = 33 s
 * by default; so a call whose request succeeds on its last attempt, after a few slow round trips,
 * still answers in time, and so does read_graph over a large workspace (1 request per 1,000 rows).
 * It stays under the 230 s after which Azure's front end drops the request, so a hung request gets
 * this server's JSON-RPC answer rather than the load balancer's bare error.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

/**
 * Reads every setting the handler needs that `given` does not hold, and reports all problems at
 * once (an InvalidSettingsError naming each setting), so both doors say the same thing.
 */
export function readAppSettings(
  env: NodeJS.ProcessEnv = process.env,
  where: AuthEnvironment = {},
  given: Partial<AppSettings> = {},
): AppSettings {
  const problems: SettingProblem[] = [];
  const auth = given.auth ?? collect(problems, () => readAuthSettings(env, where));
  const toolsets = given.toolsets ?? collect(problems, () => toolsetsFrom(env));
  const requestTimeoutMs = given.requestTimeoutMs ?? requestTimeoutFrom(env, problems);
  collect(problems, () => storageOptionsFromEnv(env)); // read again where storage is connected; checked here so every problem is listed at once
  if (problems.length > 0 || !auth || !toolsets) throw new InvalidSettingsError(problems);
  return { auth, toolsets, requestTimeoutMs };
}

function collect<T>(problems: SettingProblem[], read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof InvalidSettingsError)) throw error;
    problems.push(...error.problems);
    return undefined;
  }
}

/** MEMORY_TOOLSETS, its mistake as a setting problem (the parser serves ?toolsets= too, where it is a ValidationError). */
function toolsetsFrom(env: NodeJS.ProcessEnv): Toolsets {
  try {
    return readDefaultToolsets(env);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new InvalidSettingsError([
      { setting: "MEMORY_TOOLSETS", expected: `comma-separated tool groups from ${TOOL_GROUPS.join(", ")}`, message: error.message },
    ]);
  }
}

function requestTimeoutFrom(env: NodeJS.ProcessEnv, problems: SettingProblem[]): number {
  return (
    wholeNumber(env, "MEMORY_REQUEST_TIMEOUT_MS", 1, "a whole number of milliseconds, at least 1", problems) ?? DEFAULT_REQUEST_TIMEOUT_MS
  );
}

/**
 * The composition root both doors share: storage → store → domain → HTTP handler, with auth and
 * logging. Settings are read (and refused) before storage is touched.
 */
export function createApp(storage?: StorageConnection, options: AppOptions = {}): App {
  const { log, ...given } = options;
  const { auth, toolsets, requestTimeoutMs } = readAppSettings(process.env, {}, given);
  const connection = storage ?? connectStorage(readStorageSettings(), storageOptionsFromEnv());
  const memory = createMemory(connection);
  const instrument = loggingInstrument({
    countRequests: (work, tally) => connection.counter.run(work, tally),
    log: log ?? ((entry) => console.info(JSON.stringify(entry))),
  });
  const handler = createHandler({
    memory,
    readiness: tableReadiness(connection),
    version: VERSION,
    instrument,
    toolsets,
    requestTimeoutMs,
    auth: { settings: auth, authenticate: createAuthenticator(auth.mode) },
  });
  return { handler, storage: connection, memory, auth, toolsets };
}

/** The domain over Table Storage: what the HTTP doors and the CLI share. */
export function createMemory(storage: StorageConnection): MemoryService {
  return new MemoryService(new TableGraphStore(storage), tableCursorKey(storage));
}

/** MEMORY_STORAGE_TIMEOUT_MS and MEMORY_STORAGE_MAX_RETRIES bound how long a tool call waits on storage. */
export function storageOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): { timeoutMs?: number; maxRetries?: number } {
  const problems: SettingProblem[] = [];
  const timeoutMs = wholeNumber(env, "MEMORY_STORAGE_TIMEOUT_MS", 1, "a whole number of milliseconds, at least 1", problems);
  const maxRetries = wholeNumber(env, "MEMORY_STORAGE_MAX_RETRIES", 0, "a whole number of retries, 0 or more", problems);
  if (problems.length > 0) throw new InvalidSettingsError(problems);
  return { ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(maxRetries !== undefined ? { maxRetries } : {}) };
}

/** A whole-number setting: undefined when unset; a value that is not one is a problem, never silently the default. */
function wholeNumber(
  env: NodeJS.ProcessEnv,
  setting: string,
  least: number,
  expected: string,
  problems: SettingProblem[],
): number | undefined {
  const value = env[setting]?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value) && Number(value) >= least) return Number(value);
  problems.push({ setting, expected, message: `${setting}: '${value}' is not ${expected}.` });
  return undefined;
}
