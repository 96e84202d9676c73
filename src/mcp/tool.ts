import { z } from "zod";

import type { Principal } from "../domain/model/access.js";
import type { Actor } from "../domain/model/model.js";
import type { Services } from "../domain/services/services.js";
import type { ToolHints } from "./annotations.js";
import type { Confirm } from "./confirmation.js";

/**
 * Toolsets: a client can narrow tools/list to the toolsets it needs, because many
 * clients choose tools worse as the list grows. core: the Central-Memory API; graph: the official
 * memory server's tools; tags: tagging entities and observations; history: the change feed (what
 * changed, the graph as it was, restoring a deleted entity); search: ranked search and stats from the
 * workspace index; navigate: neighbourhoods and paths; curate: batches, duplicates and merges; admin: listing and
 * deleting workspaces; apps: the MCP Apps (docs/apps.md), the tools that open the graph, duplicate review and timeline in
 * the chat and the app-only tools those apps read through.
 */
export const TOOLSETS = ["core", "graph", "tags", "history", "search", "navigate", "curate", "admin", "apps"] as const;
export type Toolset = (typeof TOOLSETS)[number];
/** The toolsets one connection offers. */
export type Toolsets = ReadonlySet<Toolset>;

/** What a tool handler may use. The workspace is already resolved, validated and authorized. */
interface ToolContext {
  /** The domain, one service per toolset: a tool calls its own toolset's service. */
  services: Services;
  workspace: string;
  /** The authenticated caller; access was already checked. */
  principal: Principal;
  /** Who writes through which tool: what writes record (createdBy, updatedBy, change events). */
  actor: Actor;
  /** The toolsets this connection selected: tag data is shown only with the tags toolset. */
  toolsets: Toolsets;
  /**
   * Adds a text block after the result's JSON: for what a tool with another server's exact output schema
   * must say beyond that schema (how to continue a maxChars answer).
   */
  note(text: string): void;
  /**
   * Confirmation before destruction (docs/confirmation.md): call it before changing anything. It resolves when the call may
   * go on: "user" when the client's user said yes (2026-07-28 clients with elicitation are always asked), "explicit" when
   * the client cannot ask and the agent passed the tool's confirmation. Otherwise it throws: the result then asks the user,
   * or says what to pass, and nothing was changed.
   */
  confirm: Confirm;
  /**
   * The names of the tools this connection lists to this caller (its toolsets, its grant, the route): an app's opening
   * result carries them, since an app cannot list tools itself and shows only what it may call (docs/apps.md).
   */
  offeredTools: readonly string[];
}

/**
 * A tool as plain data: its name, schemas and annotations, and a handler that returns the
 * structured result. The registry adds `workspaceName`, validates input, and renders results.
 */
export interface ToolDefinition<Input extends z.ZodRawShape = z.ZodRawShape, Output extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  /**
   * The toolsets that offer the tool: a connection sees it if it selected any of them. A tool may be in
   * several, so that each toolset is complete for its clients (read_graph is in core and in graph).
   */
  toolsets: readonly [Toolset, ...Toolset[]];
  title: string;
  description: string;
  input: Input;
  output: Output;
  /** One of the presets in annotations.ts. */
  annotations: ToolHints;
  /**
   * The outputSchema is exactly `output` (a tool that must match another server's schema declares
   * this). Such a schema cannot admit the error shape, and clients validate structuredContent against
   * it even on error results, so this tool's errors carry the error JSON as text only.
   * Otherwise the outputSchema admits `output` or the error shape, and errors carry both.
   */
  exactOutputSchema?: boolean;
  /**
   * The output on connections without the tags toolset. A tool whose output is another server's exact
   * shape declares it (that shape), so that without tags it lists identically; `output` is then that
   * shape plus optional tag fields, which the handler fills only when the tags toolset is selected.
   */
  outputWithoutTags?: z.ZodRawShape;
  /**
   * The tool acts on no single workspace (list_workspaces): it takes no workspaceName, the registry
   * checks no workspace grant, and the handler's `workspace` is empty; the handler applies the grants itself.
   */
  noWorkspace?: boolean;
  /**
   * MCP Apps (docs/apps.md): `resourceUri` is the `ui://` resource a host renders for the tool's result (listed as
   * `_meta.ui.resourceUri`); `visibility: ["app"]` makes an app-only tool, which hosts hide from the model and only an app
   * calls (listed as `_meta.ui.visibility`). Absent: an ordinary tool, visible to model and app alike.
   */
  app?: { resourceUri?: string; visibility?: readonly ("model" | "app")[] };
  /** The text content of a successful result; the same JSON as structuredContent when absent. */
  text?(structured: z.infer<z.ZodObject<Output>>): string;
  handler(args: z.infer<z.ZodObject<Input>>, context: ToolContext): Promise<z.infer<z.ZodObject<Output>>>;
}

/** Erases a tool's generic types so tools of different shapes fit in one list. */
export type AnyTool = ToolDefinition<z.ZodRawShape, z.ZodRawShape>;

export function defineTool<Input extends z.ZodRawShape, Output extends z.ZodRawShape>(tool: ToolDefinition<Input, Output>): AnyTool {
  return tool as unknown as AnyTool;
}
