import { type CompleteRequest, type CompleteResult, type Server, UriTemplate } from "@modelcontextprotocol/server";

import { accessTo, type Principal } from "../domain/model/access.js";
import { assertWorkspaceName } from "../domain/model/validation.js";
import type { Completion } from "../domain/services/contextService.js";
import type { Services } from "../domain/services/services.js";

/**
 * Argument completions (docs/context.md#completions). MCP completes only prompt and resource-template arguments, so
 * these are the memory-context prompt's workspaceName and entityNames, and the graph template's workspaceName. A
 * workspace the caller has no grant for yields nothing, and is not told apart from one that does not exist.
 */

/** The prompt's name (src/mcp/prompts.ts), here because completing its arguments needs it. */
export const MEMORY_CONTEXT = "memory-context";

/** entityNames as the prompt takes them: comma-separated, each trimmed, empties dropped. */
export function splitNames(value: string): string[] {
  return value
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
}

/** The most values one answer holds (the protocol's own bound). */
const MAX_VALUES = 100;
const WORKSPACE_GRAPH = new UriTemplate("memory://workspaces/{workspaceName}/graph");
const NONE: Completion = { values: [], total: 0, hasMore: false };

export function registerCompletions(
  server: Server,
  context: { services: Pick<Services, "context">; principal: Principal; boundWorkspace?: string },
): void {
  server.setRequestHandler("completion/complete", async (request): Promise<CompleteResult> => {
    const found = await complete(request.params, context);
    return { completion: { ...found } };
  });
}

async function complete(
  params: CompleteRequest["params"],
  context: { services: Pick<Services, "context">; principal: Principal; boundWorkspace?: string },
): Promise<Completion> {
  const { ref, argument } = params;
  const isPrompt = ref.type === "ref/prompt" && ref.name === MEMORY_CONTEXT;
  const isGraph = ref.type === "ref/resource" && ref.uri === WORKSPACE_GRAPH.toString();
  if ((isPrompt || isGraph) && argument.name === "workspaceName") return workspaces(argument.value, context);
  if (isPrompt && argument.name === "entityNames") {
    const workspace = context.boundWorkspace ?? params.context?.arguments?.workspaceName;
    if (workspace === undefined || !isWorkspaceName(workspace) || accessTo(context.principal, workspace) === undefined) return NONE;
    return entityNames(workspace, argument.value, context.services);
  }
  return NONE;
}

/** On a bound route the one workspace it serves; otherwise the registered workspaces the caller may read. */
async function workspaces(
  prefix: string,
  context: { services: Pick<Services, "context">; principal: Principal; boundWorkspace?: string },
): Promise<Completion> {
  const bound = context.boundWorkspace;
  if (bound !== undefined) {
    const shown = accessTo(context.principal, bound) !== undefined && bound.toLowerCase().startsWith(prefix.toLowerCase());
    return shown ? { values: [bound], total: 1, hasMore: false } : NONE;
  }
  return context.services.context.workspaceNames(context.principal, prefix, MAX_VALUES);
}

/**
 * entityNames is comma-separated: the names before the last comma stay as typed, and the part after it is completed,
 * so each value is the whole argument with its last name completed.
 */
function isWorkspaceName(name: string): boolean {
  try {
    assertWorkspaceName(name);
    return true;
  } catch {
    return false;
  }
}

async function entityNames(workspace: string, value: string, services: Pick<Services, "context">): Promise<Completion> {
  const comma = value.lastIndexOf(",");
  const typed = comma < 0 ? [] : splitNames(value.slice(0, comma));
  const prefix = value.slice(comma + 1).trimStart();
  const found = await services.context.entityNames(workspace, prefix, MAX_VALUES, typed);
  const lead = typed.length > 0 ? `${typed.join(", ")}, ` : "";
  return { ...found, values: found.values.map((name) => lead + name) };
}
