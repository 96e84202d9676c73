import type { EdgeView, NodeView } from "./slice.js";

/**
 * What the viewer reads: the app tools' results (their server-side shapes are src/mcp/appShapes.ts; the viewer, browser
 * code, may not import server code, so they are restated here as types).
 */

export interface GraphSlice {
  workspaceName: string;
  entities: NodeView[];
  relations: EdgeView[];
  truncated: boolean;
  asOf?: string;
}
export interface GraphView extends GraphSlice {
  app: "graph";
  opening: "entity" | "search" | "hubs" | "all";
  focus?: string;
  hits: string[];
  totals: { entities: number; relations: number };
  historySince?: string;
  tools: string[];
}
export interface DuplicateSide {
  id: string;
  name: string;
  entityType: string;
  observations: string[];
  relations: EdgeView[];
  tags?: string[];
}
export interface DuplicateReview {
  app: "duplicates";
  workspaceName: string;
  pairs: { a: DuplicateSide; b: DuplicateSide; score: number; reasons: string[] }[];
  rejected: number;
  tools: string[];
}
export interface TimelineEvent {
  id: string;
  at: string;
  principal: string;
  tool: string;
  summary: string;
  kinds: string[];
}
export interface Timeline {
  app: "timeline";
  workspaceName: string;
  entityName: string;
  exists: boolean;
  events: TimelineEvent[];
  cursor?: string;
  tools: string[];
}
/** A fact's valid time as the read tools return it; `status` is absent when it is current. */
export interface FactValidity {
  validFrom?: string;
  validTo?: string;
  supersededBy?: string;
  expiresAt?: string;
  status?: string;
}
export interface EntityDetails {
  workspaceName: string;
  entity: {
    name: string;
    entityType: string;
    observations: string[];
    tags?: string[];
    observationTags?: Record<string, string[]>;
    observationValidity?: Record<string, FactValidity>;
    createdAt?: string;
    createdBy?: string;
    updatedAt?: string;
    updatedBy?: string;
    expiresAt?: string;
    pinned?: boolean;
  } | null;
  relations: (EdgeView & { status?: string })[];
  created?: { at: string; principal: string };
  recent: TimelineEvent[];
  asOf?: string;
}
/** A result that opens an app: its `app` field picks the screen. */
export type Opening = GraphView | DuplicateReview | Timeline;

/** Where the viewer's data comes from: the page's JSON-RPC route (rpc.ts) or the host, for the app (appMain.ts). */
export interface DataSource {
  /** A tool's structured result; an error result is thrown with its message (which says how to recover). */
  call<T>(name: string, args?: Record<string, unknown>): Promise<T>;
}

/**
 * A tool result's structured content; an error result thrown as an Error with the server's message. Every successful
 * result of this server carries structuredContent (src/mcp/server.ts), so one without it did not run the tool as asked:
 * on a 2026-07-28 client with elicitation a write may answer input_required (a question for the client's user, no
 * content), which this viewer cannot answer. That is thrown too, rather than read as an empty success.
 */
export function structuredOf<T>(
  name: string,
  result: {
    isError?: boolean;
    structuredContent?: unknown;
    content?: { type: string; text?: string }[];
    resultType?: unknown;
    inputRequests?: unknown;
  },
): T {
  const text = result.content?.find((part) => part.type === "text")?.text;
  if (result.isError) {
    let structured = result.structuredContent;
    if (structured === undefined && text !== undefined) {
      try {
        structured = JSON.parse(text);
      } catch {
        structured = { message: text };
      }
    }
    throw new Error((structured as { message?: string } | undefined)?.message ?? text ?? `${name} failed.`);
  }
  if (typeof result.structuredContent === "object" && result.structuredContent !== null) return result.structuredContent as T;
  if (result.resultType === "input_required" || result.inputRequests !== undefined) {
    throw new Error(
      `${name} did not run: the server asked the client to have its user confirm it, and this app cannot answer that ` +
        "question. Nothing was changed by this call. Confirm it in the chat, or ask the agent to make the change.",
    );
  }
  throw new Error(
    `${name} answered without a structured result, so this app cannot tell what it did. Check in the chat before trying again.`,
  );
}
