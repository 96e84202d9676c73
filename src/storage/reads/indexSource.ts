import { randomUUID } from "node:crypto";

import { odata } from "@azure/data-tables";

import type { FeedPosition } from "../../domain/feed/history.js";
import type { EntityNode, TagDefinition } from "../../domain/model/model.js";
import type { FeedTail, IndexSource, RegistryState, WorkspaceSnapshot } from "../../domain/ports/graphIndex.js";
import { keyRange, rowKey } from "../rows/keys.js";
import { kindOf, type StoredRow, text, toTagDefinition } from "../rows/rows.js";
import type { StorageConnection } from "../table/client.js";
import { rangeFilter, type TableGateway } from "../table/gateway.js";
import { classifyStorageError, toMemoryError } from "../table/storageErrors.js";
import { feedStep } from "./feed.js";
import { scan, scanEntities } from "./reads.js";

const DAY_MS = 86_400_000;
/** A position this close to the retention horizon is treated as past it: pruning may be under way. */
const RETENTION_MARGIN_MS = 3_600_000;

/**
 * The storage side of the workspace index (docs/search.md): the one scan that builds it and the one
 * range read that keeps it current.
 *
 * The scan is one query: every entity's rows (not the canonical relation rows: their edges are in the
 * entity ranges), the tag definitions, and the feed's tail from the lateness window with the registry
 * row after it. So building costs what read_graph's scan costs: one request per 1,000 rows.
 */
export class TableIndexSource implements IndexSource {
  private readonly gateway: TableGateway;
  private readonly latenessMs: number;
  private readonly retentionDays: number;

  constructor(storage: StorageConnection) {
    this.gateway = storage.gateway;
    this.latenessMs = storage.feedLatenessMs;
    this.retentionDays = storage.historyRetentionDays;
  }

  async snapshot(workspace: string): Promise<WorkspaceSnapshot> {
    const readAt = this.gateway.clock();
    // The events applied on top of the scan must be a suffix of the commit order (docs/architecture.md#the-feeds-order):
    // those committed in the last lateness window, whatever their keys. A key is at most one window before its commit, so
    // the keys read reach two windows back, and the registry row comes too.
    const committedFrom = new Date(readAt - this.latenessMs);
    const tail = keyRange.feedTail(readAt - 2 * this.latenessMs);
    const graph = keyRange.graph;
    const tags = keyRange.tagDefinitions;
    const filter = odata`PartitionKey eq ${workspace} and kind ne ${"relation"} and ((RowKey ge ${graph.from} and RowKey lt ${graph.to}) or (RowKey ge ${tags.from} and RowKey lt ${tags.to}) or (RowKey ge ${tail.from} and RowKey lt ${tail.to} and (Timestamp ge ${committedFrom} or RowKey eq ${rowKey.workspace})))`;
    const definitions: TagDefinition[] = [];
    const eventRows: StoredRow[] = [];
    const versions = new Map<string, string>();
    let registry: RegistryState = { present: false };
    const visit = (row: StoredRow): boolean => {
      switch (kindOf(row)) {
        case "entity":
          if (typeof row.version === "string") versions.set(text(row.rowKey), row.version);
          return false;
        case "tag":
          definitions.push(toTagDefinition(row));
          return true;
        case "event":
          eventRows.push(row);
          return true;
        case "workspace":
          registry = registryOf(row);
          return true;
        default:
          return false;
      }
    };
    const nodes: EntityNode[] = [];
    for await (const node of scan(this.gateway, filter, undefined, visit)) nodes.push(node);
    const step = feedStep(eventRows, undefined, readAt, this.latenessMs);
    // The window's events are in the index now: the first tail read need not download them again (issue #21, defect 11).
    // Nor the events committed before the window: the scan holds them, and a key read again in the window (written by a clock
    // ahead) must not be applied on top of what superseded it.
    const committedSince = nextCommittedSince(eventRows, undefined, committedFrom.toISOString());
    const position = { ...step.position, ...(committedSince !== undefined ? { committedSince } : {}) };
    return { nodes, tags: definitions, versions, events: step.events, registry, position };
  }

  scanNodes(workspace: string): AsyncIterable<EntityNode> {
    return scanEntities(this.gateway, workspace);
  }

  async scanTags(workspace: string): Promise<TagDefinition[]> {
    return (await this.gateway.queryRange(workspace, keyRange.tagDefinitions)).map(toTagDefinition);
  }

  async tail(workspace: string, position: FeedPosition): Promise<FeedTail | undefined> {
    const readAt = this.gateway.clock();
    const from = position.readAt - this.latenessMs;
    // Events older than the retention horizon may be gone before they were read: rebuild instead.
    if (this.retentionDays > 0 && from < readAt - this.retentionDays * DAY_MS + RETENTION_MARGIN_MS) return undefined;
    // The window's rows the last reads already had are left out by their commit time (the server's clock, one clock for a
    // partition, so no writer's skew applies); the registry row always comes back, since its absence means a deletion.
    let filter = rangeFilter(workspace, keyRange.feedTail(from));
    if (position.committedSince !== undefined) {
      filter += odata` and (Timestamp ge ${new Date(position.committedSince)} or RowKey eq ${rowKey.workspace})`;
    }
    // The earliest page's server time: a row its page did not see was invisible when that page was read, not just the last.
    let serverTime: number | undefined;
    const rows = await this.gateway.query(filter, undefined, (ms) => (serverTime = Math.min(serverTime ?? ms, ms)));
    const registryRow = rows.find((row) => kindOf(row) === "workspace");
    const eventRows = rows.filter((row) => kindOf(row) === "event");
    const step = feedStep(eventRows, position, readAt, this.latenessMs);
    const committedSince = nextCommittedSince(eventRows, serverTime, position.committedSince);
    return {
      ...step,
      position: { ...step.position, ...(committedSince !== undefined ? { committedSince } : {}) },
      registry: registryRow ? registryOf(registryRow) : { present: false },
    };
  }

  async claimGeneration(workspace: string, registry: RegistryState): Promise<string | undefined> {
    if (registry.generation !== undefined || !registry.present || registry.etag === undefined) return registry.generation;
    const generation = randomUUID();
    try {
      // A merge on the ETag read: registration's properties stay, and only one claim can win.
      await this.gateway.updateRow({ partitionKey: workspace, rowKey: rowKey.workspace, generation }, "Merge", registry.etag);
      return generation;
    } catch (error) {
      const failure = classifyStorageError(error);
      if (failure !== "precondition-failed" && failure !== "not-found") throw toMemoryError(error);
      const row = await this.gateway.pointRead(workspace, rowKey.workspace);
      return row && typeof row.generation === "string" ? row.generation : undefined;
    }
  }
}

function registryOf(row: StoredRow): RegistryState {
  // A workspace being deleted (workspaces.ts) has no generation to trust or claim: an index built now answers one read.
  if (row.deleting === true) return { present: true };
  return {
    present: true,
    ...(typeof row.generation === "string" ? { generation: row.generation } : {}),
    ...(typeof row.etag === "string" ? { etag: row.etag } : {}),
  };
}

/**
 * A transaction's rows may become visible a little after the commit time they carry (Azurite stamps a request's arrival;
 * on Azure the front end's and the partition's clocks differ a little), so a row the last read did not see carries a
 * commit time at most this much before that read's server time, or before the newest commit it returned.
 */
const COMMIT_MARGIN_MS = 5_000;

/**
 * The commit time the next tail read starts from (docs/search.md#freshness): the later of the newest commit seen and the
 * last read's server time (its `Date` header), less the margin; never earlier than before. So rows are downloaded again
 * only while they are within the margin of the newest read: a read of an unchanged workspace, more than the margin after
 * its last write, downloads the registry row alone, however large that write was.
 */
function nextCommittedSince(
  eventRows: readonly StoredRow[],
  serverTime: number | undefined,
  previous: string | undefined,
): string | undefined {
  let newest = previous === undefined ? Number.NEGATIVE_INFINITY : Date.parse(previous);
  const consider = (ms: number) => {
    if (ms - COMMIT_MARGIN_MS > newest) newest = ms - COMMIT_MARGIN_MS;
  };
  for (const row of eventRows) if (typeof row.timestamp === "string") consider(Date.parse(row.timestamp));
  if (serverTime !== undefined) consider(serverTime);
  return Number.isFinite(newest) ? new Date(newest).toISOString() : undefined;
}
