import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { accessTo, strongestAccess, type Access, type Principal } from "../domain/access.js";
import { ForbiddenError, MemoryError, StorageError, ValidationError } from "../domain/errors.js";
import type { MemoryService } from "../domain/memory.js";
import { assertWorkspaceName } from "../domain/validation.js";
import { errorOutput, workspaceName as workspaceNameField } from "./schemas.js";
import type { ToolInstrument } from "./instrument.js";
import type { AnyTool } from "./tool.js";
import { ALL_TOOLS } from "./tools/index.js";

export const SERVER_NAME = "central-memory-mcp";

export interface McpContext {
  memory: MemoryService;
  version: string;
  /** Set on /api/workspaces/{ws}/mcp: tools act on this workspace and workspaceName becomes optional. */
  boundWorkspace?: string;
  /** The authenticated caller. Every tool call is checked against its grants here, not in the tools. */
  principal: Principal;
  tools?: readonly AnyTool[];
  /** Wraps every tools/call (logging, request counting). */
  instrument?: ToolInstrument;
}

const INSTRUCTIONS =
  "Shared, durable team memory: a knowledge graph of entities (with observations) and relations, partitioned into workspaces. " +
  "Use upsert_entity to record facts, upsert_relation to link entities, get_entity_relations and read_graph to recall.";

/**
 * Builds a fresh MCP server for one HTTP request (stateless: nothing is shared between requests).
 * The low-level Server is used, not McpServer, so that input-validation failures come back in our
 * error shape (design §4) instead of the SDK's plain text.
 */
export function createMcpServer(context: McpContext): Server {
  const { principal, boundWorkspace } = context;
  const tools = context.tools ?? ALL_TOOLS;
  const server = new Server({ name: SERVER_NAME, version: context.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  // The most this caller may do on this route decides which tools it is shown: read-only callers see no write tools.
  const ceiling = boundWorkspace === undefined ? strongestAccess(principal) : accessTo(principal, boundWorkspace);
  const visible = tools.filter((tool) => allows(ceiling, tool));

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: visible.map((tool) => describeTool(tool, boundWorkspace)) }));

  const callTool = async (request: CallToolRequest): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      return errorResult(new ValidationError(`Unknown tool '${request.params.name}'. Available tools: ${visible.map((t) => t.name).join(", ")}.`));
    }
    try {
      if (!allows(ceiling, tool)) throw new ForbiddenError(`${tool.name} changes memory, and this caller has read-only access.`);
      const parsed = inputSchema(tool, boundWorkspace).safeParse(request.params.arguments ?? {});
      if (!parsed.success) throw new ValidationError(`Invalid arguments for ${tool.name}: ${describeIssues(parsed.error)}`);
      const { workspaceName, ...args } = parsed.data as { workspaceName?: string } & Record<string, unknown>;
      const workspace = resolveWorkspace(workspaceName, boundWorkspace);
      authorize(principal, workspace, tool);
      const structured = await tool.handler(args, { memory: context.memory, workspace, principal });
      return { structuredContent: structured, content: [{ type: "text", text: JSON.stringify(structured) }] };
    } catch (error) {
      return errorResult(error);
    }
  };
  const instrument: ToolInstrument = context.instrument ?? ((_call, work) => work());
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    instrument({ tool: request.params.name, workspace: request.params.arguments?.workspaceName ?? context.boundWorkspace }, () => callTool(request)),
  );
  return server;
}

/** A tool's readOnlyHint is the source of truth for whether it needs write access. */
function allows(access: Access | undefined, tool: AnyTool): boolean {
  return tool.annotations.readOnlyHint ? access !== undefined : access === "write";
}

/**
 * Runs before the tool touches storage. The message names only what the caller sent, so it
 * reveals nothing about the workspace: not whether it exists, nor what it holds.
 */
function authorize(principal: Principal, workspace: string, tool: AnyTool): void {
  const access = accessTo(principal, workspace);
  if (access === undefined) {
    throw new ForbiddenError(`this caller has no grant for workspace '${workspace}'. Use a workspace it was granted, or ask an administrator for a grant.`);
  }
  if (!allows(access, tool)) throw new ForbiddenError(`this caller may read workspace '${workspace}' but not change it, and ${tool.name} changes memory.`);
}

function resolveWorkspace(given: string | undefined, bound: string | undefined): string {
  if (bound === undefined) return assertWorkspaceName(given);
  if (given !== undefined && given !== bound) {
    throw new ValidationError(`This endpoint is bound to workspace '${bound}', but workspaceName is '${given}'. Omit workspaceName, or use /api/mcp.`);
  }
  return bound;
}

function inputSchema(tool: AnyTool, boundWorkspace: string | undefined) {
  return z.object({ ...tool.input, workspaceName: boundWorkspace === undefined ? workspaceNameField : workspaceNameField.optional() });
}

function describeTool(tool: AnyTool, boundWorkspace: string | undefined): Tool {
  const output = z.union([z.object(tool.output), errorOutput]);
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(inputSchema(tool, boundWorkspace), "input") as Tool["inputSchema"],
    // Error results carry structured content too, and clients validate it against this schema.
    outputSchema: { type: "object", ...jsonSchema(output, "output") } as Tool["outputSchema"],
    annotations: { title: tool.title, ...tool.annotations },
  };
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _schemaDialect, ...rest } = z.toJSONSchema(schema, { target: "draft-7", io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "arguments"}: ${issue.message}`)
    .join("; ");
}

/** The one place an exception becomes what an agent reads. Unknown errors never leak their text. */
export function errorResult(error: unknown): CallToolResult {
  // Anything that is not a MemoryError is a bug or an unmapped failure: report it without its text.
  const known =
    error instanceof MemoryError
      ? error
      : new StorageError("The server failed while handling this call. It may be retried; if it keeps failing, report it.");
  const structured = { success: false as const, error: known.kind, message: known.message };
  return { isError: true, structuredContent: structured, content: [{ type: "text", text: JSON.stringify(structured) }] };
}
