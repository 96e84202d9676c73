import { TableClient, type TableServiceClientOptions } from "@azure/data-tables";
import { DefaultAzureCredential, ManagedIdentityCredential, type TokenCredential } from "@azure/identity";
import type { PipelinePolicy } from "@azure/core-rest-pipeline";
import { RequestCounter } from "./requestCounter.js";
import type { StorageSettings } from "./settings.js";
import { TableGateway, TableState } from "./gateway.js";

/**
 * Retries are few and short: a tool call should fail with a clear StorageError in seconds, not hang
 * for the SDK default (3 retries with exponential backoff up to 64 s) while an agent waits.
 * MEMORY_STORAGE_TIMEOUT_MS bounds each attempt.
 */
export interface StorageClientOptions {
  maxRetries?: number;
  timeoutMs?: number;
}

export interface StorageConnection {
  /** The raw client: for tests and tools that read rows directly. The stores go through `gateway`. */
  table: TableClient;
  /** A second client for readiness probes: no retries, so a probe answers fast. */
  probe: TableClient;
  counter: RequestCounter;
  tableName: string;
  /** Every request the stores make goes through it. */
  gateway: TableGateway;
  /** Creates the table once per process, and again after any TableNotFound; "already exists" counts as success. */
  ensureTable(): Promise<void>;
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

function credentialFor(settings: Extract<StorageSettings, { kind: "identity" }>): TokenCredential {
  // A user-assigned identity is selected by its client id; DefaultAzureCredential covers developers (az login).
  return settings.clientId ? new ManagedIdentityCredential({ clientId: settings.clientId }) : new DefaultAzureCredential();
}

function isDevelopmentStorage(connectionString: string): boolean {
  return /UseDevelopmentStorage=true/i.test(connectionString) || /127\.0\.0\.1|localhost/i.test(connectionString);
}

function makeClient(settings: StorageSettings, options: TableServiceClientOptions): TableClient {
  switch (settings.kind) {
    case "identity":
      return new TableClient(settings.endpoint, settings.tableName, credentialFor(settings), options);
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
  const table = makeClient(settings, {
    retryOptions: { maxRetries: options.maxRetries ?? 2, retryDelayInMs: 200, maxRetryDelayInMs: 1000 },
  });
  table.pipeline.addPolicy(counter.policy);
  table.pipeline.addPolicy(timeoutPolicy(timeoutMs));
  const probe = makeClient(settings, { retryOptions: { maxRetries: 0 } });
  probe.pipeline.addPolicy(timeoutPolicy(PROBE_TIMEOUT_MS));

  const state = new TableState(table);
  probe.pipeline.addPolicy(noticeTableLoss(state));
  const gateway = new TableGateway(table, state);
  return { table, probe, counter, tableName: settings.tableName, gateway, ensureTable: () => state.ensure() };
}
