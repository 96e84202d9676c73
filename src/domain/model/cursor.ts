import { createHmac, timingSafeEqual } from "node:crypto";

import { ValidationError } from "./errors.js";
import { isGuid } from "./ids.js";

/**
 * The secret that signs read_graph cursors: the same on every instance of a deployment (so any
 * instance continues a walk another began) and never shown to clients. Called per cursor; the
 * provider reads it once per process and caches it.
 */
export type CursorKeyProvider = () => Promise<Uint8Array>;

/**
 * What a cursor is valid for: a page differs by tool, workspace and mode (read_graph's mode, or the
 * history tools' filters as JSON), so a cursor holds for that triple only.
 */
export interface CursorScope {
  workspace: string;
  mode: string;
  /** The tool that issues it; read_graph when absent. Its cursors continue after an entity id, the history tools' after an event key. */
  tool?: "read_graph" | "get_changes" | "get_entity_history" | "search_entities" | "search_relations" | OffsetCursorTool;
}

/** Tools whose cursors continue after an id: read_graph after an entity, search_entities after an entity's hit, search_relations after a relation. */
const ID_CURSOR_TOOLS: ReadonlySet<string> = new Set(["read_graph", "search_entities", "search_relations"]);
/**
 * Tools whose answers continue at a position in their result list (a decimal offset), not after a key: the maxChars
 * answers of search_nodes and get_neighbors, and list_conflicts' pages.
 */
type OffsetCursorTool = "search_nodes" | "get_neighbors" | "list_conflicts";
const OFFSET_TOOLS: ReadonlySet<string> = new Set<OffsetCursorTool>(["search_nodes", "get_neighbors", "list_conflicts"]);
const OFFSET = /^\d{1,7}$/;

/** An event's row key (storage/rows/keys.ts): the history tools continue after one. */
const EVENT_KEY = /^~ev~\d{13}~[0-9a-f]{12}$/;

/**
 * read_graph's continuation cursor: `<payload>.<mac>`, both base64url. The payload (JSON) holds the
 * last entity id of the previous page and stays opaque to callers, so its form can change later.
 * The mac is an HMAC-SHA256 over the scope and the payload, so a cursor made by hand, altered, or
 * issued for another workspace or mode is refused instead of silently yielding a wrong page (such as
 * an empty "last" page that makes a client believe it has read everything).
 */
const FORMAT = 2;

const refused = (scope: CursorScope) => {
  const tool = scope.tool ?? "read_graph";
  const mode = tool === "read_graph" ? "mode" : OFFSET_TOOLS.has(tool) ? "arguments" : "filters";
  return new ValidationError(
    `cursor is not one ${tool} issued for this workspace and ${mode} (it was altered, made by hand, or belongs to another ` +
      `workspace or ${mode}). Omit cursor to start again from the first page, or pass the previous page's cursor unchanged with the same ${mode}.`,
  );
};

export class CursorCodec {
  constructor(private readonly key: CursorKeyProvider) {}

  async encode(scope: CursorScope, afterEntityId: string): Promise<string> {
    const payload = Buffer.from(JSON.stringify({ v: FORMAT, after: afterEntityId }), "utf8").toString("base64url");
    return `${payload}.${(await this.mac(scope, payload)).toString("base64url")}`;
  }

  /** The entity id to continue after; a ValidationError if this codec did not issue the cursor for this scope. */
  async decode(scope: CursorScope, cursor: string): Promise<string> {
    const parts = cursor.split(".");
    if (parts.length !== 2) throw refused(scope);
    const [payload, mac] = parts as [string, string];
    // The shape is checked first, so garbage costs no key read.
    const after = positionIn(scope, payload);
    const given = Buffer.from(mac, "base64url");
    const expected = await this.mac(scope, payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refused(scope);
    return after;
  }

  private async mac(scope: CursorScope, payload: string): Promise<Buffer> {
    // Newlines separate the parts: no workspace name or mode contains one, so no two scopes sign the same text.
    return createHmac("sha256", await this.key())
      .update(`${scope.tool ?? "read_graph"}\n${scope.workspace}\n${scope.mode}\n${payload}`)
      .digest();
  }
}

function positionIn(scope: CursorScope, payload: string): string {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    throw refused(scope);
  }
  const { v, after } = (value !== null && typeof value === "object" ? value : {}) as { v?: unknown; after?: unknown };
  if (v !== FORMAT || typeof after !== "string") throw refused(scope);
  // read_graph continues after an entity id; search_entities after an entity's hit, search_relations after a relation id.
  if (ID_CURSOR_TOOLS.has(scope.tool ?? "read_graph")) {
    if (!isGuid(after)) throw refused(scope);
    return after.toLowerCase();
  }
  if (OFFSET_TOOLS.has(scope.tool!)) {
    if (!OFFSET.test(after)) throw refused(scope);
    return after;
  }
  if (!EVENT_KEY.test(after)) throw refused(scope);
  return after;
}
