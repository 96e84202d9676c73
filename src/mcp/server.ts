import { EXTENSION_ID, RESOURCE_URI_META_KEY } from "@modelcontextprotocol/ext-apps/server";
import {
  type CallToolRequest,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type InputRequiredResult,
  isInputRequiredResult,
  Server,
  type ServerContext,
  type Tool,
} from "@modelcontextprotocol/server";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";
import { z } from "zod";

import { type Access, accessOnRoute, accessTo, type Principal } from "../domain/model/access.js";
import { ForbiddenError, presentError, ValidationError } from "../domain/model/errors.js";
import type { Services } from "../domain/services/services.js";
import { allows, authorize } from "./authorize.js";
import { CACHE_HINTS } from "./cacheHints.js";
import { AskingUser, confirmer } from "./confirmation.js";
import { SERVER_ICONS, TOOLSET_ICONS } from "./icons.js";
import type { ToolInstrument } from "./instrument.js";
import { registerPrompts } from "./prompts.js";
import { registerResources } from "./resources.js";
import { errorOutput, workspaceName as workspaceNameField } from "./schemas.js";
import type { AnyTool, Toolsets } from "./tool.js";
import { ALL_TOOLS } from "./tools/index.js";
import { ALL_TOOLSETS, notOffered, offers } from "./toolsets.js";
import { resolveWorkspace } from "./workspace.js";

const SERVER_NAME = "central-memory-mcp";

export interface McpContext {
  services: Services;
  version: string;
  /** Set on /api/workspaces/{ws}/mcp: tools act on this workspace and workspaceName becomes optional. */
  boundWorkspace?: string;
  /** The authenticated caller. Every tool call is checked against its grants here, not in the tools. */
  principal: Principal;
  tools?: readonly AnyTool[];
  /** The toolsets this connection offers (MEMORY_TOOLSETS, or `?toolsets=` on the URL); every toolset when absent. */
  toolsets?: Toolsets;
  /**
   * The route is a read-only variant (`…/mcp/readonly`): it lists only readOnlyHint tools and refuses any other, whatever
   * the caller's grants, so that a key that may write can hand an agent a URL that may only read.
   */
  readOnly?: boolean;
  /** Wraps every tools/call (logging, request counting). */
  instrument?: ToolInstrument;
  /**
   * The MCP Apps' HTML (docs/apps.md), the `ui://` resource's body: provided by the http layer, which reads the built file
   * (src/mcp reads no files). Absent, or resolving to undefined: not built, and a read of the resource says how to build it.
   */
  appHtml?: () => Promise<string | undefined>;
}

const INSTRUCTIONS =
  "Shared, durable team memory: a knowledge graph of entities (with observations) and relations, partitioned into workspaces. " +
  "Record facts with create_entities, add_observations or upsert_entity; link entities with create_relations or upsert_relation. ";
/** Recall: the best tool offered (search_entities ranks by words, meaning and graph; search_nodes only matches substrings). */
const RECALL_INSTRUCTIONS =
  "Recall with search_entities: it ranks by words and by meaning, so ask in your own words ('who looks after payments'); " +
  "explain: true says why each hit was found. get_context gives a brief of what memory holds on a question or on named entities, " +
  "within a token budget. open_nodes reads entities you can name; read_graph with mode 'names' and a limit gives a small " +
  "overview of a large graph.";
const RECALL_WITHOUT_SEARCH_INSTRUCTIONS =
  "Recall with search_nodes and open_nodes; read_graph with mode 'names' and a limit gives a small overview of a large graph.";
const TAGS_INSTRUCTIONS =
  " Classify entities and single observations with tags (tag_entity, tag_observation), e.g. high-priority, source:slack, " +
  "confidence:low; find them again with get_entities_by_tag, and see the vocabulary with get_all_tags before inventing new tags.";

/**
 * One JSON Schema validator for every per-request Server. The SDK builds a new Ajv per Server when
 * none is given, which measured ~6 % of CPU per tool call; the validator holds no request state.
 */
const sharedValidator = new AjvJsonSchemaValidator();

/**
 * Builds a fresh MCP server for one HTTP request (stateless: nothing is shared between requests).
 * The low-level Server is used, not McpServer, so that input-validation failures come back in our
 * error shape (docs/architecture.md#errors) instead of the SDK's plain text.
 */
export function createMcpServer(context: McpContext): Server {
  const { principal, boundWorkspace } = context;
  const tools = context.tools ?? ALL_TOOLS;
  const toolsets = context.toolsets ?? ALL_TOOLSETS;
  const server = new Server(
    { name: SERVER_NAME, title: "Central Memory", version: context.version, icons: SERVER_ICONS },
    {
      capabilities: { tools: {}, resources: {}, prompts: {}, completions: {} },
      cacheHints: CACHE_HINTS,
      instructions:
        INSTRUCTIONS +
        (toolsets.has("search") ? RECALL_INSTRUCTIONS : RECALL_WITHOUT_SEARCH_INSTRUCTIONS) +
        (toolsets.has("tags") ? TAGS_INSTRUCTIONS : ""),
      jsonSchemaValidator: sharedValidator,
      // Only 2026-07-28 requests are ever asked (src/mcp/confirmation.ts); an input_required toward a 2025-era request
      // would be a bug, and the SDK's shim could not serve it statelessly: fail loudly instead.
      inputRequired: { legacyShim: false },
    },
  );
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const ceiling = ceilingOf(context);
  const visible = listedTools(context);

  server.setRequestHandler("tools/list", (_request, ctx) => ({
    tools: visible
      .filter((tool) => !isAppOnly(tool) || mayListAppOnly(ctx.mcpReq.envelope as Record<string, unknown> | undefined))
      .map((tool) => describeTool(tool, boundWorkspace, toolsets)),
  }));

  const callTool = async (request: CallToolRequest, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      return errorResult(
        new ValidationError(`Unknown tool '${request.params.name}'. Available tools: ${visible.map((t) => t.name).join(", ")}.`),
      );
    }
    try {
      if (!offers(toolsets, tool)) throw notOffered(tool, toolsets);
      if (context.readOnly && !tool.annotations.readOnlyHint) throw refusedOnReadOnlyRoute(tool);
      if (!allows(ceiling, tool)) throw new ForbiddenError(`${tool.name} changes memory, and this caller has read-only access.`);
      const parsed = inputSchema(tool, boundWorkspace).safeParse(request.params.arguments ?? {});
      if (!parsed.success) throw new ValidationError(`Invalid arguments for ${tool.name}: ${describeIssues(parsed.error)}`);
      const { workspaceName, ...args } = parsed.data as { workspaceName?: string } & Record<string, unknown>;
      // A tool that takes no workspace (list_workspaces) checks each workspace's grant itself.
      const workspace = tool.noWorkspace ? "" : resolveWorkspace(workspaceName, boundWorkspace);
      if (!tool.noWorkspace) authorize(principal, workspace, tool);
      const actor = { principal: principal.id, tool: tool.name };
      const notes: string[] = [];
      const note = (text: string) => void notes.push(text);
      const confirm = confirmer({
        tool: tool.name,
        workspace,
        principal: principal.id,
        ctx,
        confirmations: context.services.confirmations,
      });
      const offeredTools = offeredIn(workspace, visible, principal);
      const structured = await tool.handler(args, {
        services: context.services,
        workspace,
        principal,
        actor,
        toolsets,
        note,
        confirm,
        offeredTools,
      });
      return {
        structuredContent: structured,
        content: [
          { type: "text", text: tool.text ? tool.text(structured) : JSON.stringify(structured) },
          ...notes.map((text) => ({ type: "text" as const, text })),
        ],
      };
    } catch (error) {
      if (error instanceof AskingUser) return error.result;
      return errorResult(error, { structured: !tool.exactOutputSchema });
    }
  };
  const instrument: ToolInstrument = context.instrument ?? ((_call, work) => work());
  server.setRequestHandler("tools/call", async (request, ctx) => {
    // A question to the user passes the instrument as a plain result (it logs the call as answered), then goes out as is.
    let asking: InputRequiredResult | undefined;
    const call = { tool: request.params.name, workspace: request.params.arguments?.workspaceName ?? context.boundWorkspace };
    const result = await instrument(call, async () => {
      const answer = await callTool(request, ctx);
      if (!isInputRequiredResult(answer)) return answer;
      asking = answer;
      return { content: [{ type: "text", text: "Asked the user to confirm." }] };
    });
    return asking ?? result;
  });
  registerResources(server, {
    services: context.services,
    principal,
    toolsets,
    ...(context.appHtml ? { appHtml: context.appHtml } : {}),
    ...(boundWorkspace !== undefined ? { boundWorkspace } : {}),
  });
  registerPrompts(server, { services: context.services, principal, ...(boundWorkspace !== undefined ? { boundWorkspace } : {}) });
  return server;
}

/** The most this caller may do on this route: it decides which tools it is shown (read-only callers see no write tools). */
function ceilingOf(context: Pick<McpContext, "principal" | "boundWorkspace" | "readOnly">): Access | undefined {
  const access = accessOnRoute(context.principal, context.boundWorkspace);
  return context.readOnly ? readOnlyCeiling(access) : access;
}

/** The tools this connection lists: those of its toolsets the caller may use on this route. */
export function listedTools(context: Pick<McpContext, "principal" | "boundWorkspace" | "readOnly" | "toolsets" | "tools">): AnyTool[] {
  const ceiling = ceilingOf(context);
  const toolsets = context.toolsets ?? ALL_TOOLSETS;
  return (context.tools ?? ALL_TOOLS).filter((tool) => offers(toolsets, tool) && allows(ceiling, tool));
}

/**
 * The tools an app opened by this call may offer the person (ToolContext.offeredTools): those listed that the caller may use
 * in this call's workspace. On /api/mcp the listing follows the caller's strongest grant anywhere, so a caller that may write
 * one workspace but only read another would otherwise be offered merge and restore buttons in the one it may only read.
 */
function offeredIn(workspace: string, visible: readonly AnyTool[], principal: Principal): string[] {
  const access = accessTo(principal, workspace);
  return visible.filter((tool) => tool.noWorkspace || allows(access, tool)).map((tool) => tool.name);
}

/** An app-only tool (docs/apps.md): hosts hide it from the model; only an app calls it. */
const isAppOnly = (tool: AnyTool): boolean => tool.app?.visibility !== undefined && !tool.app.visibility.includes("model");

/**
 * Whether a tools/list may list app-only tools, decided on the request's envelope (ServerContext's mcpReq.envelope), not on its
 * protocol version string, so later revisions that carry an envelope are read the same way. An envelope that declares its
 * client's capabilities without the MCP Apps extension comes from a client that renders no app: listing them would only
 * offer the model tools meant for an app. A request that declares no capabilities (a 2025-era request: they were declared at
 * an initialize this stateless server never saw) is listed them, marked with their visibility, and a host that supports Apps
 * hides them from the model.
 */
export function mayListAppOnly(envelope: Readonly<Record<string, unknown>> | undefined): boolean {
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
  if (capabilities === undefined) return true;
  return capabilities.extensions?.[EXTENSION_ID] !== undefined;
}

/** On a read-only route the most anyone may do is read. */
function readOnlyCeiling(access: Access | undefined): Access | undefined {
  return access === undefined ? undefined : "read";
}

function refusedOnReadOnlyRoute(tool: AnyTool): ForbiddenError {
  return new ForbiddenError(
    `${tool.name} changes memory, and this is a read-only route (…/mcp/readonly), which offers only tools that read. ` +
      "To change memory, connect to the same URL without /readonly, with a credential that may write.",
  );
}

/** Caches a value computed from a tool and a few variant flags (keyed by the tool object, so test tools never collide). */
function perTool<T>(compute: (tool: AnyTool, variant: string) => T): (tool: AnyTool, variant: string) => T {
  const cache = new WeakMap<AnyTool, Map<string, T>>();
  return (tool, variant) => {
    let byVariant = cache.get(tool);
    if (!byVariant) cache.set(tool, (byVariant = new Map()));
    let value = byVariant.get(variant);
    if (value === undefined) byVariant.set(variant, (value = compute(tool, variant)));
    return value;
  };
}

/**
 * Built once per tool and route kind, not per call: zod compiles an object schema on its first
 * parse, which cost more than the parse itself when every request built a fresh one.
 */
const cachedInputSchema = perTool((tool, route) =>
  tool.noWorkspace
    ? z.object(tool.input)
    : z.object({ ...tool.input, workspaceName: route === "unbound" ? workspaceNameField : workspaceNameField.optional() }),
);
function inputSchema(tool: AnyTool, boundWorkspace: string | undefined): z.ZodObject {
  return cachedInputSchema(tool, boundWorkspace === undefined ? "unbound" : "bound");
}

/** Tool listings depend only on the tool, the route kind and whether tags are offered: computed once each. */
const cachedListing = perTool((tool, variant) => {
  const [route, tags] = variant.split("|");
  return listTool(tool, route === "unbound" ? undefined : "bound", tags === "tags");
});
function describeTool(tool: AnyTool, boundWorkspace: string | undefined, toolsets: Toolsets): Tool {
  return cachedListing(tool, `${boundWorkspace === undefined ? "unbound" : "bound"}|${toolsets.has("tags") ? "tags" : "no-tags"}`);
}

/** Listed as the SDK's McpServer lists tools, so a tool that mirrors another server's lists identically. */
function listTool(tool: AnyTool, boundWorkspace: string | undefined, withTags: boolean): Tool {
  const shape = outputShape(tool, withTags);
  // Unless the schema is exact, error results carry structured content too, and clients validate it against this schema.
  const output = tool.exactOutputSchema ? z.object(shape) : z.union([z.object(shape), errorOutput]);
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(inputSchema(tool, boundWorkspace), "input") as Tool["inputSchema"],
    outputSchema: { type: "object", ...jsonSchema(output, "output") } as Tool["outputSchema"],
    annotations: tool.annotations,
    icons: TOOLSET_ICONS[tool.toolsets[0]],
    execution: { taskSupport: "forbidden" },
    ...(tool.app ? { _meta: appMeta(tool.app) } : {}),
  };
}

/**
 * A tool's MCP Apps metadata (docs/apps.md): `ui` as the extension defines it, and the flat "ui/resourceUri" that hosts
 * written for the extension's first drafts read.
 */
function appMeta(app: NonNullable<AnyTool["app"]>): Record<string, unknown> {
  return {
    ui: {
      ...(app.resourceUri !== undefined ? { resourceUri: app.resourceUri } : {}),
      ...(app.visibility ? { visibility: [...app.visibility] } : {}),
    },
    ...(app.resourceUri !== undefined ? { [RESOURCE_URI_META_KEY]: app.resourceUri } : {}),
  };
}

/** The output shape a connection sees: without tag fields when it did not select the tags toolset. */
function outputShape(tool: AnyTool, withTags: boolean): z.ZodRawShape {
  return tool.outputWithoutTags !== undefined && !withTags ? tool.outputWithoutTags : tool.output;
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  return z.toJSONSchema(schema, { target: "draft-7", io, unrepresentable: "any" }) as Record<string, unknown>;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "arguments"}: ${issue.message}`)
    .join("; ");
}

/** A thrown error as the tool result an agent reads (the shared presenter in src/domain/model/errors.ts). */
function errorResult(error: unknown, options: { structured?: boolean } = {}): CallToolResult {
  return presentError(error, { as: "tool", ...options });
}
