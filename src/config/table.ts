import { ValidationError } from "../domain/model/errors.js";
import { TOOLSETS, type Toolsets } from "../mcp/tool.js";
import { parseToolsets } from "../mcp/toolsets.js";
import { DEFAULT_AZURE_API_VERSION } from "../search/embedding/endpointEmbedder.js";
import { apiKeyEntries, entraGrantList } from "./authSchemas.js";
import { choiceList, json, matching, origin, originList, secureUrl, type SettingKind, text, textList, wholeNumber } from "./kinds.js";
import { InvalidSettingsError, type SettingProblem } from "./problems.js";

/**
 * Every setting the code reads, as data: the parsing, the invalid-settings report, the reference
 * (docs/configuration.md, written by `npm run docs`) and the drift test all derive from this table.
 */
export type Topic = "Storage" | "Local server and CLI" | "Authentication" | "Tools and requests" | "Set by Azure" | "Benchmarks";

export interface SettingSpec<T> {
  topic: Topic;
  kind: SettingKind<T>;
  /** The default as the docs show it; "—" when there is none. */
  default: string;
  /** One line of documentation (markdown). */
  doc: string;
}

const setting = <T>(spec: SettingSpec<T>): SettingSpec<T> => spec;

export const DEFAULT_TABLE_NAME = "memorygraph";
/** Per-attempt storage timeout and retries (see docs/reliability.md#how-long-a-failing-call-takes). */
export const DEFAULT_STORAGE_TIMEOUT_MS = 10_000;
export const DEFAULT_STORAGE_MAX_RETRIES = 2;
/** Per-attempt storage timeout of CLI commands: bulk work queues many transactions, so each may wait longer. */
export const CLI_STORAGE_TIMEOUT_MS = 60_000;
/**
 * 120 s. A legitimate call is slow only when storage is, and one storage request gives up after
 * (MEMORY_STORAGE_MAX_RETRIES + 1) × (MEMORY_STORAGE_TIMEOUT_MS + 1 s backoff) = 3 × 11 s = 33 s
 * by default; so a call whose request succeeds on its last attempt, after a few slow round trips,
 * still answers in time, and so does read_graph over a large workspace (1 request per 1,000 rows).
 * It stays under the 230 s after which Azure's front end drops the request, so a hung request gets
 * this server's JSON-RPC answer rather than the load balancer's bare error.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
/** The workspace indexes' memory cap per instance (docs/search.md#memory): a Functions instance has 1.5 GB or more. */
export const DEFAULT_INDEX_MAX_MB = 256;
/** How often expired items are swept (docs/history.md#expiry-and-pinning), and the least interval allowed. */
export const DEFAULT_SWEEP_INTERVAL_MINUTES = 5;
const MIN_SWEEP_INTERVAL_MINUTES = 5;
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 7071;
export const DEFAULT_AZURITE_FOLDER = ".azurite";

const AUTH_METHODS = ["none", "keys", "entra"] as const;
const EMBEDDING_KINDS = ["local", "endpoint", "off"] as const;
const MILLISECONDS = "a whole number of milliseconds, at least 1";
const HTTPS_URL = "an https URL (http only on a loopback address)";

/** One word of `choices`, any case. */
function oneOf<C extends string>(choices: readonly C[], expected: string): SettingKind<C> {
  return {
    expected,
    parse(raw, name) {
      const word = raw.toLowerCase();
      return (choices as readonly string[]).includes(word)
        ? { ok: true, value: word as C }
        : { ok: false, issues: [{ expected, message: `${name}: '${raw}' is not ${expected}.` }] };
    },
  };
}

/**
 * A sweep interval: 0 (off), or whole minutes of at least 5 that a timer schedule repeats exactly, hour after hour and day
 * after day (a divisor of 60, or whole hours dividing 24), so no two sweeps are ever closer than the interval.
 */
const sweepInterval: SettingKind<number> = {
  expected: `0 (off), or minutes: ${MIN_SWEEP_INTERVAL_MINUTES}, 6, 10, 12, 15, 20, 30, or whole hours dividing 24 (60, 120, 180, 240, 360, 480, 720, 1440)`,
  parse(raw, name) {
    const minutes = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    const fits =
      minutes === 0 ||
      (minutes >= MIN_SWEEP_INTERVAL_MINUTES && (minutes < 60 ? 60 % minutes === 0 : minutes % 60 === 0 && 1440 % minutes === 0));
    if (fits) return { ok: true, value: minutes };
    const below = Number.isFinite(minutes) && minutes > 0 && minutes < MIN_SWEEP_INTERVAL_MINUTES;
    return {
      ok: false,
      issues: [
        {
          expected: sweepInterval.expected,
          message: below
            ? `${name}: '${raw}' is below the least interval, ${MIN_SWEEP_INTERVAL_MINUTES} minutes (a sweep reads every expired row of every workspace).`
            : `${name}: '${raw}' is not ${sweepInterval.expected}.`,
        },
      ],
    };
  },
};

/** The Functions timer schedule (NCRONTAB, with seconds) of a sweep interval that sweepInterval accepted (not 0). */
export function sweepSchedule(minutes: number): string {
  return minutes < 60 ? `0 */${minutes} * * * *` : `0 0 */${minutes / 60} * * *`;
}

/** A MEMORY_TOOLSETS mistake reads as the ?toolsets= one does (the same parser serves both). */
const toolsetList: SettingKind<Toolsets> = {
  expected: `comma-separated toolsets from ${TOOLSETS.join(", ")}`,
  parse(raw, name) {
    try {
      return { ok: true, value: parseToolsets(raw, name) };
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return { ok: false, issues: [{ expected: toolsetList.expected, message: error.message }] };
    }
  },
};

export const SETTINGS = {
  MEMORY_STORAGE_CONNECTION_STRING: setting({
    topic: "Storage",
    kind: text("a Table Storage connection string"),
    default: "—",
    doc: "Table Storage (or Cosmos DB for Table) connection string.",
  }),
  AzureWebJobsStorage: setting({
    topic: "Storage",
    kind: text("a Table Storage connection string"),
    default: "—",
    doc: "Used when `MEMORY_STORAGE_CONNECTION_STRING` is unset, so `UseDevelopmentStorage=true` works under `func start`.",
  }),
  MEMORY_STORAGE_TABLE_ENDPOINT: setting({
    topic: "Storage",
    kind: text("a table endpoint URL"),
    default: "—",
    doc:
      "e.g. `https://acct.table.core.windows.net`; connects with `@azure/identity` (`DefaultAzureCredential`, or the managed " +
      "identity named by `AZURE_CLIENT_ID`). Takes precedence over connection strings.",
  }),
  AZURE_CLIENT_ID: setting({
    topic: "Storage",
    kind: text("a client id"),
    default: "—",
    doc: "Client id of a user-assigned managed identity, used with `MEMORY_STORAGE_TABLE_ENDPOINT` and with an Azure OpenAI `MEMORY_EMBEDDINGS_ENDPOINT` called without an API key.",
  }),
  MEMORY_TABLE_NAME: setting({
    topic: "Storage",
    kind: matching(/^[A-Za-z][A-Za-z0-9]{2,62}$/, "a table name: 3-63 letters and digits, starting with a letter"),
    default: `\`${DEFAULT_TABLE_NAME}\``,
    doc: "The table (created if missing, by the first tool call or `/api/ready`).",
  }),
  MEMORY_STORAGE_TIMEOUT_MS: setting({
    topic: "Storage",
    kind: wholeNumber(1, MILLISECONDS),
    default: `\`${DEFAULT_STORAGE_TIMEOUT_MS}\` (CLI: \`${CLI_STORAGE_TIMEOUT_MS}\`)`,
    doc: "Per-attempt timeout of a storage request; with the next setting, the bound on a failing call.",
  }),
  MEMORY_STORAGE_MAX_RETRIES: setting({
    topic: "Storage",
    kind: wholeNumber(0, "a whole number of retries, 0 or more"),
    default: `\`${DEFAULT_STORAGE_MAX_RETRIES}\``,
    doc: "Retries of a storage request that got no answer or a 408/5xx (short backoff: 200 ms, at most 1 s).",
  }),
  MEMORY_HISTORY_RETENTION_DAYS: setting({
    topic: "Storage",
    kind: wholeNumber(0, "a whole number of days, 0 or more"),
    default: "`0` (keep forever)",
    doc:
      "Days the change history keeps events ([History](history.md#retention)); older ones are pruned lazily by later writes " +
      "(at most one extra request per call, at most once a minute per workspace and instance). `0` keeps them forever.",
  }),
  MEMORY_AZURITE_FOLDER: setting({
    topic: "Local server and CLI",
    kind: text("a folder path"),
    default: `\`./${DEFAULT_AZURITE_FOLDER}\``,
    doc:
      "Where the embedded Azurite keeps its data when no storage is configured (`npm start` and the CLI; relative to the " +
      "working directory). Processes on the same folder share one Azurite.",
  }),
  HOST: setting({
    topic: "Local server and CLI",
    kind: text("a host name or IP address"),
    default: `\`${DEFAULT_HOST}\``,
    doc: "The address `npm start` listens on. On a loopback address an unset `MEMORY_AUTH` means `none`.",
  }),
  PORT: setting({
    topic: "Local server and CLI",
    kind: wholeNumber(0, "a port number from 0 to 65535 (0 picks a free one)", 65_535),
    default: `\`${DEFAULT_PORT}\``,
    doc: "The port `npm start` listens on.",
  }),
  MEMORY_AUTH: setting({
    topic: "Authentication",
    kind: choiceList(
      AUTH_METHODS,
      "one of none, keys, entra, keys,entra",
      (picked) => picked.length > 0 && (!picked.includes("none") || picked.length === 1),
    ),
    default: "`none` for `npm start` on a loopback address; elsewhere unset refuses every MCP request",
    doc: "How MCP callers authenticate: `none`, `keys`, `entra` or `keys,entra`.",
  }),
  MEMORY_API_KEYS: setting({
    topic: "Authentication",
    kind: json(apiKeyEntries, 'a JSON list [{"id","sha256","workspaces","access"}]'),
    default: "—",
    doc: 'JSON list of API keys: `[{"id","sha256","workspaces","access"}]` (`central-memory keys create` prints an entry).',
  }),
  MEMORY_API_KEYS_FILE: setting({
    topic: "Authentication",
    kind: text("the path of a readable file holding the JSON list of keys"),
    default: "—",
    doc: "Path of a file holding that JSON list, instead of `MEMORY_API_KEYS`.",
  }),
  MEMORY_ENTRA_TENANT_ID: setting({
    topic: "Authentication",
    kind: matching(/^[A-Za-z0-9.-]+$/, "a tenant id (a GUID) or domain"),
    default: "—",
    doc:
      "Entra tenant (GUID or `contoso.onmicrosoft.com`); sets the expected issuer `https://login.microsoftonline.com/{tenant}/v2.0` " +
      "and its signing keys.",
  }),
  MEMORY_ENTRA_AUDIENCE: setting({
    topic: "Authentication",
    kind: textList("the app's client id or Application ID URI"),
    default: "—",
    doc: "The app registration's client id and/or Application ID URI, comma-separated: the accepted `aud` values.",
  }),
  MEMORY_ENTRA_GRANTS: setting({
    topic: "Authentication",
    kind: json(entraGrantList, "JSON [{role|group|oid, workspaces, access}]"),
    default: "—",
    doc: 'JSON list `[{"role"|"group"|"oid", "workspaces", "access"}]` mapping token claims to workspaces.',
  }),
  MEMORY_ENTRA_JWKS_URL: setting({
    topic: "Authentication",
    kind: secureUrl(HTTPS_URL),
    default: "from the tenant",
    doc: "Overrides the tenant's signing-key URL (tests, sovereign clouds).",
  }),
  MEMORY_ENTRA_ISSUER: setting({
    topic: "Authentication",
    kind: secureUrl(HTTPS_URL),
    default: "from the tenant",
    doc: "Overrides the tenant's issuer (tests, sovereign clouds).",
  }),
  MEMORY_ALLOWED_ORIGINS: setting({
    topic: "Authentication",
    kind: originList(
      "comma-separated origins like https://app.example.com (scheme, host, optional port; no path)",
      (name, raw) => `${name}: '${raw}' is not an origin like https://app.example.com (scheme, host, optional port; no path).`,
    ),
    default:
      "none; plus every loopback origin (`http://localhost:*`, `http://127.0.0.1:*`, `http://[::1]:*`) when `npm start` listens on loopback",
    doc: "Comma-separated browser origins allowed to call MCP routes; a request with any other `Origin` header is refused (requests without one are unaffected).",
  }),
  MEMORY_PUBLIC_URL: setting({
    topic: "Authentication",
    kind: origin("scheme://host[:port] with no path", (name, raw) => `${name}: '${raw}' must be scheme://host[:port] with no path.`),
    default: "`https://$WEBSITE_HOSTNAME` on Azure; elsewhere the request's own origin",
    doc: "`https://host` clients use, when a proxy hides it from the server; used in the metadata and `WWW-Authenticate` URLs.",
  }),
  MEMORY_TOOLSETS: setting({
    topic: "Tools and requests",
    kind: toolsetList,
    default: "every toolset",
    doc: `The toolsets a connection gets unless its URL names others (\`?toolsets=\`): comma-separated ${TOOLSETS.map((toolset) => `\`${toolset}\``).join(", ")}.`,
  }),
  MEMORY_INDEX_MAX_MB: setting({
    topic: "Tools and requests",
    kind: wholeNumber(0, "a whole number of megabytes, 0 or more"),
    default: `\`${DEFAULT_INDEX_MAX_MB}\``,
    doc:
      "Memory (estimated) the workspace indexes of one instance may hold ([Search](search.md#memory)); past it the least recently " +
      "used are dropped and rebuilt on their next use. `0` keeps only the index in use.",
  }),
  MEMORY_SWEEP_INTERVAL_MINUTES: setting({
    topic: "Tools and requests",
    kind: sweepInterval,
    default: `\`${DEFAULT_SWEEP_INTERVAL_MINUTES}\``,
    doc:
      "How often expired entities, observations and relations are deleted ([History](history.md#expiry-and-pinning)): a timer " +
      "trigger on Azure Functions, an interval on `npm start`; `0` turns it off (`sweep_expired` still runs on request). At least " +
      "5 minutes, and a divisor of an hour or of a day, so a timer schedule repeats it exactly.",
  }),
  MEMORY_EMBEDDINGS: setting({
    topic: "Tools and requests",
    kind: oneOf(EMBEDDING_KINDS, "one of local, endpoint, off"),
    default: "`endpoint` when `MEMORY_EMBEDDINGS_ENDPOINT` is set, else `local`",
    doc:
      "What turns texts into vectors for search by meaning ([Search](search.md)): `local`, the packaged word-vector model (no " +
      "network); `endpoint`, an OpenAI-compatible embeddings endpoint (the settings below; its vectors are kept in the table); " +
      "`off`, words and graph only.",
  }),
  MEMORY_EMBEDDINGS_ENDPOINT: setting({
    topic: "Tools and requests",
    kind: secureUrl(HTTPS_URL),
    default: "—",
    doc:
      "The embeddings endpoint. An Azure OpenAI resource URL with no path (`https://acct.openai.azure.com`) is called as " +
      "`{url}/openai/deployments/{deployment}/embeddings?api-version=…`; any other URL is an OpenAI-compatible base URL " +
      "(`https://api.openai.com/v1`) called as `{url}/embeddings`.",
  }),
  MEMORY_EMBEDDINGS_MODEL: setting({
    topic: "Tools and requests",
    kind: text("a model name, or an Azure OpenAI deployment name"),
    default: "—",
    doc: "The model (OpenAI-compatible URL) or the deployment (Azure OpenAI resource URL). Changing it embeds every workspace again.",
  }),
  MEMORY_EMBEDDINGS_DIMENSIONS: setting({
    topic: "Tools and requests",
    kind: wholeNumber(1, "a whole number of dimensions from 1 to 8192", 8192),
    default: "the model's own length (known for OpenAI's `text-embedding-3-small`, `-3-large`, `ada-002`)",
    doc:
      "Vector length, sent as the `dimensions` parameter (text-embedding-3 models shorten their vectors to it). Required for a " +
      "model whose length is not known. Changing it embeds every workspace again.",
  }),
  MEMORY_EMBEDDINGS_API_KEY: setting({
    topic: "Tools and requests",
    kind: text("the endpoint's API key"),
    default: "—",
    doc:
      "Sent as `api-key` to Azure OpenAI, as `Authorization: Bearer` elsewhere. Without it an Azure OpenAI endpoint is called " +
      "with the app's managed identity (`AZURE_CLIENT_ID`; role Cognitive Services OpenAI User), others with no credential. " +
      "Never shown in responses or reports.",
  }),
  MEMORY_EMBEDDINGS_API_VERSION: setting({
    topic: "Tools and requests",
    kind: matching(/^\d{4}-\d{2}-\d{2}(-preview)?$/, "an Azure OpenAI API version like 2024-10-21"),
    default: `\`${DEFAULT_AZURE_API_VERSION}\``,
    doc: "The `api-version` of an Azure OpenAI resource URL; only that URL shape takes one.",
  }),
  MEMORY_REQUEST_TIMEOUT_MS: setting({
    topic: "Tools and requests",
    kind: wholeNumber(1, MILLISECONDS),
    default: `\`${DEFAULT_REQUEST_TIMEOUT_MS}\``,
    doc: "Deadline of one MCP request: after it the client gets a JSON-RPC error and the request's server is closed; raise it with the storage timeout and retries.",
  }),
  WEBSITE_SITE_NAME: setting({
    topic: "Set by Azure",
    kind: text("the site name"),
    default: "—",
    doc: "Set by Azure (App Service, Functions), never by you: when present, an unset `MEMORY_AUTH` refuses every MCP request.",
  }),
  WEBSITE_HOSTNAME: setting({
    topic: "Set by Azure",
    kind: matching(/^[A-Za-z0-9.-]+(:\d+)?$/, "a host name"),
    default: "—",
    doc: "Set by Azure: the app's host name; the public URL is `https://$WEBSITE_HOSTNAME` when `MEMORY_PUBLIC_URL` is unset.",
  }),
  BENCH_ENTITIES: setting({
    topic: "Benchmarks",
    kind: wholeNumber(1, "a whole number of entities, at least 1"),
    default: "`10000`",
    doc: "Entities `npm run bench:import` imports.",
  }),
  BENCH_STORE_LATENCY_MS: setting({
    topic: "Benchmarks",
    kind: wholeNumber(0, "a whole number of milliseconds, 0 or more"),
    default: "`0`",
    doc: "Latency the bench's Azurite proxy adds to each storage request.",
  }),
} as const;

export type SettingName = keyof typeof SETTINGS;
type ValueOf<N extends SettingName> = (typeof SETTINGS)[N] extends SettingSpec<infer T> ? T : never;

/**
 * Reads settings through the table, collecting every problem instead of stopping at the first, so
 * an operator fixes them all in one go.
 */
export class SettingsReader {
  readonly problems: SettingProblem[] = [];

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** The trimmed text, or undefined when unset or blank. */
  raw(name: SettingName): string | undefined {
    return this.env[name]?.trim() || undefined;
  }

  /** The parsed value; undefined when unset, or when invalid (then its problems are recorded). */
  get<N extends SettingName>(name: N): ValueOf<N> | undefined {
    const raw = this.raw(name);
    return raw === undefined ? undefined : this.parse(name, raw, name);
  }

  /** Parses `text` as setting `name`, reporting problems under `as` (e.g. a file's content under the file setting). */
  parse<N extends SettingName>(name: N, text: string, as: SettingName = name): ValueOf<N> | undefined {
    const parsed = (SETTINGS[name] as SettingSpec<ValueOf<N>>).kind.parse(text, as);
    if (parsed.ok) return parsed.value;
    for (const issue of parsed.issues) this.problems.push({ setting: as, ...issue });
    return undefined;
  }

  /** A problem about how settings combine (`setting` may name several, e.g. "A, B"). */
  problem(setting: string, expected: string, message: string): void {
    this.problems.push({ setting, expected, message });
  }

  /** Throws every problem recorded, if any. */
  check(heading?: string): void {
    if (this.problems.length > 0) throw new InvalidSettingsError(this.problems, heading);
  }
}
