import type { PipelinePolicy } from "@azure/core-rest-pipeline";
import { TableClient, type TableServiceClientOptions } from "@azure/data-tables";

import { azureCredential } from "../../config/azureIdentity.js";
import { CLOCK_SKEW_ALLOWANCE_MS } from "../../domain/model/limits.js";
import type { Clock } from "../rows/clock.js";
import { ConditionalDeletes, TableGateway, TableState } from "./gateway.js";
import { RequestCounter } from "./requestCounter.js";
import { classifyStorageError } from "./storageErrors.js";
import type { StorageSettings } from "./storageSettings.js";

/**
 * Retries are few and short: a tool call should fail with a clear StorageError in seconds, not hang
 * for the SDK default (3 retries with exponential backoff up to 64 s) while an agent waits.
 * MEMORY_STORAGE_TIMEOUT_MS bounds each attempt.
 */
export interface StorageClientOptions {
  maxRetries?: number;
  timeoutMs?: number;
  /** Days change events are kept (MEMORY_HISTORY_RETENTION_DAYS); 0 keeps them forever. */
  historyRetentionDays?: number;
  /**
   * This instance's clock (default `Date.now`). Only tests set it: the consistency checker runs instances whose clocks
   * disagree by up to CLOCK_SKEW_ALLOWANCE_MS, as hosts' clocks may.
   */
  clock?: Clock;
}

/** What a readiness probe found (the storage error itself stays in src/storage). */
type TableProbe = "reachable" | "table-missing" | "unreachable" | "refused";

export interface StorageConnection {
  /** The raw client: for tests and tools that read rows directly. The stores go through `gateway`. */
  table: TableClient;
  /**
   * Whether the table answers, for readiness: one point read of a row that never exists, on a second client with no
   * retries and a short timeout, so a probe answers fast. A 404 for the row proves the account and table are reachable.
   */
  probe(): Promise<TableProbe>;
  counter: RequestCounter;
  tableName: string;
  /** Every request the stores make goes through it. */
  gateway: TableGateway;
  /** Creates the table once per process, and again after any TableNotFound; "already exists" counts as success. */
  ensureTable(): Promise<void>;
  /**
   * How long after choosing its event key a write can still commit (ms): the change feed re-reads a
   * window this wide (docs/history.md#the-lateness-bound). Derived from the retry and timeout settings.
   */
  feedLatenessMs: number;
  /** Days change events are kept; 0 keeps them forever (retention.ts). */
  historyRetentionDays: number;
}

/** Backoff between the SDK's attempts is at most this (maxRetryDelayInMs below). */
const MAX_RETRY_DELAY_MS = 1000;
export { CLOCK_SKEW_ALLOWANCE_MS };

/**
 * The change feed's lateness bound. A writer chooses its event key just before sending the
 * transaction; the SDK sends it at most `maxRetries + 1` times, each attempt abandoned by the service
 * after the server-side timeout (whole seconds, at least the client's) and followed by at most the
 * maximum backoff. So an event commits within attempts × (server timeout + backoff) of its key's time,
 * or never; plus the allowance for the writer's clock differing from the reader's.
 */
export function feedLatenessMs(maxRetries: number, timeoutMs: number): number {
  return (maxRetries + 1) * (serverTimeoutSeconds(timeoutMs) * 1000 + MAX_RETRY_DELAY_MS) + CLOCK_SKEW_ALLOWANCE_MS;
}

const serverTimeoutSeconds = (timeoutMs: number): number => Math.max(1, Math.ceil(timeoutMs / 1000));

/**
 * The Table service's own timeout (the `timeout` query parameter, seconds) on every write: past it
 * the service abandons the operation, so a write the client gave up on cannot commit much later
 * (what the feed's lateness bound rests on). Reads have nothing to commit, and go without: on Azurite
 * the parameter costs about a millisecond a request.
 */
function serverTimeoutPolicy(timeoutMs: number): PipelinePolicy {
  const seconds = String(serverTimeoutSeconds(timeoutMs));
  return {
    name: "centralMemoryServerTimeout",
    sendRequest: (request, next) => {
      if (request.method === "GET") return next(request);
      const url = new URL(request.url);
      if (!url.searchParams.has("timeout")) {
        url.searchParams.set("timeout", seconds);
        request.url = url.toString();
      }
      return next(request);
    },
  };
}

/** Readiness must answer within 2 s even when storage is a black hole. */
const PROBE_TIMEOUT_MS = 1500;

/** Bounds each HTTP attempt; the SDK's default is to wait forever on a silent peer. */
function timeoutPolicy(timeoutMs: number): PipelinePolicy {
  return {
    name: "centralMemoryTimeout",
    sendRequest: (request, next) => {
      if (!request.timeout) request.timeout = timeoutMs;
      return next(request);
    },
  };
}

/** The probe's own requests (readiness) also notice a lost table, so readiness can create it again. */
function noticeTableLoss(state: TableState): PipelinePolicy {
  return {
    name: "centralMemoryTableLoss",
    sendRequest: async (request, next) => {
      try {
        return await next(request);
      } catch (error) {
        throw state.noticeLoss(error);
      }
    },
  };
}

function isDevelopmentStorage(connectionString: string): boolean {
  return /UseDevelopmentStorage=true/i.test(connectionString) || /127\.0\.0\.1|localhost/i.test(connectionString);
}

function makeClient(settings: StorageSettings, options: TableServiceClientOptions): TableClient {
  switch (settings.kind) {
    case "identity":
      return new TableClient(settings.endpoint, settings.tableName, azureCredential(settings.clientId), options);
    case "connectionString":
      return TableClient.fromConnectionString(settings.connectionString, settings.tableName, {
        ...options,
        // Azurite speaks plain HTTP; the SDK refuses shared keys over HTTP unless told otherwise.
        allowInsecureConnection: isDevelopmentStorage(settings.connectionString),
      });
    case "none":
      throw new Error("No storage is configured. Set MEMORY_STORAGE_CONNECTION_STRING or MEMORY_STORAGE_TABLE_ENDPOINT.");
  }
}

export function connectStorage(settings: StorageSettings, options: StorageClientOptions = {}): StorageConnection {
  const counter = new RequestCounter();
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxRetries = options.maxRetries ?? 2;
  const table = makeClient(settings, {
    retryOptions: { maxRetries, retryDelayInMs: 200, maxRetryDelayInMs: MAX_RETRY_DELAY_MS },
  });
  const conditional = new ConditionalDeletes();
  table.pipeline.addPolicy(counter.policy);
  table.pipeline.addPolicy(timeoutPolicy(timeoutMs));
  table.pipeline.addPolicy(serverTimeoutPolicy(timeoutMs));
  table.pipeline.addPolicy(conditional.policy);
  const probe = makeClient(settings, { retryOptions: { maxRetries: 0 } });
  probe.pipeline.addPolicy(timeoutPolicy(PROBE_TIMEOUT_MS));

  const state = new TableState(table);
  probe.pipeline.addPolicy(noticeTableLoss(state));
  const gateway = new TableGateway(table, state, conditional, options.clock);
  return {
    table,
    probe: () => probeTable(probe),
    counter,
    tableName: settings.tableName,
    gateway,
    ensureTable: () => state.ensure(),
    feedLatenessMs: feedLatenessMs(maxRetries, timeoutMs),
    historyRetentionDays: options.historyRetentionDays ?? 0,
  };
}

async function probeTable(client: TableClient): Promise<TableProbe> {
  try {
    await client.getEntity("~readiness", "~readiness");
    return "reachable";
  } catch (error) {
    switch (classifyStorageError(error)) {
      case "not-found":
        return "reachable";
      case "table-missing":
        return "table-missing";
      case "unreachable":
        return "unreachable";
      default:
        return "refused";
    }
  }
}
