import { randomUUID } from "node:crypto";
import { odata } from "@azure/data-tables";
import type { FeedTail, IndexSource, RegistryState, WorkspaceSnapshot } from "../domain/graphIndex.js";
import type { FeedPosition } from "../domain/history.js";
import type { EntityNode, TagDefinition } from "../domain/model.js";
import type { StorageConnection } from "./client.js";
import { classifyStorageError, toMemoryError } from "./errors.js";
import type { TableGateway } from "./gateway.js";
import { feedStep } from "./history.js";
import { keyRange, rowKey } from "./keys.js";
import { scan } from "./reads.js";
import { kindOf, text, toTagDefinition, type StoredRow } from "./rows.js";

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
    const readAt = Date.now();
    const tail = keyRange.feedTail(readAt - this.latenessMs);
    const graph = keyRange.graph;
    const tags = keyRange.tagDefinitions;
    const filter = odata`PartitionKey eq ${workspace} and kind ne ${"relation"} and ((RowKey ge ${graph.from} and RowKey lt ${graph.to}) or (RowKey ge ${tags.from} and RowKey lt ${tags.to}) or (RowKey ge ${tail.from} and RowKey lt ${tail.to}))`;
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
    const { events, position } = feedStep(eventRows, undefined, readAt, this.latenessMs);
    return { nodes, tags: definitions, versions, events, registry, position };
  }

  async tail(workspace: string, position: FeedPosition): Promise<FeedTail | undefined> {
    const readAt = Date.now();
    const from = position.readAt - this.latenessMs;
    // Events older than the retention horizon may be gone before they were read: rebuild instead.
    if (this.retentionDays > 0 && from < readAt - this.retentionDays * DAY_MS + RETENTION_MARGIN_MS) return undefined;
    const rows = await this.gateway.queryRange(workspace, keyRange.feedTail(from));
    const registryRow = rows.find((row) => kindOf(row) === "workspace");
    const step = feedStep(
      rows.filter((row) => kindOf(row) === "event"),
      position,
      readAt,
      this.latenessMs,
    );
    return { ...step, registry: registryRow ? registryOf(registryRow) : { present: false } };
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
  return {
    present: true,
    ...(typeof row.generation === "string" ? { generation: row.generation } : {}),
    ...(typeof row.etag === "string" ? { etag: row.etag } : {}),
  };
}
