import type { CallToolResult } from "@modelcontextprotocol/server";

import { LIMITS } from "../domain/model/limits.js";

/** One structured log line per tool call. It never holds arguments or results: no observation text, no credentials. */
export interface ToolCallLog {
  event: "tool_call";
  tool: string;
  workspace: string | null;
  outcome: "ok" | string;
  durationMs: number;
  storageRequests: number;
}

/** Wraps each tools/call; the MCP server calls it with the raw tool name and workspace argument. */
export type ToolInstrument = (call: { tool: string; workspace: unknown }, work: () => Promise<CallToolResult>) => Promise<CallToolResult>;

export interface InstrumentOptions {
  /** Runs `work` while counting its storage requests into `tally`. */
  countRequests<T>(work: () => Promise<T>, tally: { requests: number }): Promise<T>;
  log(entry: ToolCallLog): void;
}

export function loggingInstrument(options: InstrumentOptions): ToolInstrument {
  return async ({ tool, workspace }, work) => {
    const tally = { requests: 0 };
    const started = performance.now();
    const result = await options.countRequests(work, tally);
    const error = result.isError ? (result.structuredContent as { error?: unknown } | undefined)?.error : undefined;
    options.log({
      event: "tool_call",
      tool,
      // Only a valid workspace name is logged; anything else is caller input we do not echo.
      workspace: typeof workspace === "string" && LIMITS.workspaceNamePattern.test(workspace) ? workspace : null,
      outcome: result.isError ? (typeof error === "string" ? error : "error") : "ok",
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      storageRequests: tally.requests,
    });
    return result;
  };
}
