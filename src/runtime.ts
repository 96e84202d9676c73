import { type Door, readSettings, type Settings } from "./config/settings.js";
import { DEFAULT_INDEX_MAX_MB } from "./config/table.js";
import type { CursorKeyProvider } from "./domain/model/cursor.js";
import type { Embedder, VectorStore } from "./domain/ports/embedder.js";
import { composeServices, type Services } from "./domain/services/services.js";
import { loggingInstrument, type ToolCallLog, type ToolInstrument } from "./mcp/instrument.js";
import { Meaning } from "./search/meaning.js";
import { IndexRegistry } from "./search/registry.js";
import { ScanningGraphIndex } from "./search/scanningIndex.js";
import { tableCursorKey } from "./storage/cursorKey.js";
import { TableIndexSource } from "./storage/reads/indexSource.js";
import { connectStorage, type StorageConnection } from "./storage/table/client.js";
import { TableGraphStore } from "./storage/tableGraphStore.js";
import { TableConfirmationStore } from "./storage/writes/confirmations.js";

/**
 * The one composition root: what every entry point (Functions, `npm start`, the CLI, the bench
 * server, the test harness) runs on. The HTTP doors build their handler from it
 * (src/http/runtimeHandler.ts); the CLI calls the services directly.
 */
export interface Runtime {
  settings: Settings;
  storage: StorageConnection;
  /** The domain over Table Storage: one service per toolset. */
  services: Services;
  /** Logs one line per tool call, with the storage requests it made. */
  instrument: ToolInstrument;
  /** The deployment's shared key (read_graph cursors; the viewer's sessions and the confirmations' request states derive theirs from it). */
  cursorKey: CursorKeyProvider;
}

export interface RuntimeOptions {
  door: Door;
  /** A connection already open (the embedded Azurite, a test's), instead of one made from the settings. */
  storage?: StorageConnection;
  /** Where per-call log lines go; by default one JSON line on stdout (captured by the Functions host). */
  log?: (entry: ToolCallLog) => void;
}

/** Reads and checks every setting (an InvalidSettingsError lists all problems) before anything is connected. */
export function createRuntime(env: NodeJS.ProcessEnv, options: RuntimeOptions): Runtime {
  return runtimeFrom(readSettings(env, options.door), options);
}

/** The runtime for settings already read (a door that must open its storage first, asynchronously). */
export function runtimeFrom(settings: Settings, options: Omit<RuntimeOptions, "door">): Runtime {
  const storage = options.storage ?? connectStorage(settings.storage, settings.storageClient);
  const log = options.log ?? ((entry: ToolCallLog) => console.info(JSON.stringify(entry)));
  const instrument = loggingInstrument({ countRequests: (work, tally) => storage.counter.run(work, tally), log });
  const cursorKey = tableCursorKey(storage);
  return {
    settings,
    storage,
    services: createServices(storage, { cursorKey, indexMaxBytes: settings.indexMaxBytes }),
    instrument,
    cursorKey,
  };
}

/**
 * The domain over Table Storage. Its whole-workspace reads go through one GraphIndex, chosen here:
 * "kept" (the default, every door: the CLI too, whose export pages and bench reads rely on one build per
 * process) keeps this instance's workspace indexes, built once and brought current by the feed's tail
 * (docs/search.md); "scanning" keeps nothing, scanning per answer and walking storage per entity.
 */
export function createServices(
  storage: StorageConnection,
  {
    cursorKey = tableCursorKey(storage),
    indexMaxBytes = DEFAULT_INDEX_MAX_MB * 1024 * 1024,
    index = "kept",
    embedder,
    vectorStore,
  }: {
    cursorKey?: CursorKeyProvider;
    indexMaxBytes?: number;
    index?: "kept" | "scanning";
    /** Search by meaning's model (docs/search.md#meaning); none turns it off. */
    embedder?: Embedder;
    /** Where a remote model's vectors are kept. */
    vectorStore?: VectorStore;
  } = {},
): Services {
  const store = new TableGraphStore(storage);
  const source = new TableIndexSource(storage);
  const meaning = embedder ? new Meaning(embedder, vectorStore) : undefined;
  const graphIndex =
    index === "kept" ? new IndexRegistry(source, indexMaxBytes, meaning) : new ScanningGraphIndex(source, store.traversal, meaning);
  return composeServices({ store, index: graphIndex, cursorKey, confirmations: new TableConfirmationStore(storage.gateway) });
}
