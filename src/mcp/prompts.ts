import { type Prompt, ProtocolError, ProtocolErrorCode, type Server } from "@modelcontextprotocol/server";

import type { Principal } from "../domain/model/access.js";
import { ForbiddenError, NotFoundError, presentError, ValidationError } from "../domain/model/errors.js";
import { LIMITS } from "../domain/model/limits.js";
import type { Services } from "../domain/services/services.js";
import { authorize } from "./authorize.js";
import { MEMORY_CONTEXT, registerCompletions, splitNames } from "./completions.js";
import { resolveWorkspace } from "./workspace.js";

/**
 * The `memory-context` prompt (docs/context.md#the-memory-context-prompt): the brief get_context renders, as one user
 * message, for a user to pull into a conversation. Its arguments are strings, as every prompt argument is.
 */

/** Getting the prompt needs what get_context needs: any grant on the workspace (it only reads). */
const GET_CONTEXT = { name: "get_context", annotations: { readOnlyHint: true } };

function promptOf(boundWorkspace: string | undefined): Prompt {
  return {
    name: MEMORY_CONTEXT,
    title: "Memory context",
    description:
      "A brief of what the shared memory knows about a question or some entities (the entities with their most relevant " +
      "observations, their relations, recent changes), within a token budget.",
    arguments: [
      {
        name: "workspaceName",
        description: boundWorkspace === undefined ? "The workspace to read." : `The workspace to read ('${boundWorkspace}' on this route).`,
        required: boundWorkspace === undefined,
      },
      { name: "query", description: "What the brief is about, in free text. Give it, entityNames, or both.", required: false },
      { name: "entityNames", description: "Entities to include, comma-separated (names match exactly).", required: false },
      {
        name: "maxTokens",
        description: `The brief's budget in estimated tokens (${LIMITS.contextMinTokens}-${LIMITS.contextMaxTokens}, default ${LIMITS.contextDefaultTokens}).`,
        required: false,
      },
    ],
  };
}

/** Registers the prompt and the completions of its arguments (and of the graph template's). */
export function registerPrompts(
  server: Server,
  context: { services: Pick<Services, "context">; principal: Principal; boundWorkspace?: string },
): void {
  const prompt = promptOf(context.boundWorkspace);
  server.setRequestHandler("prompts/list", () => ({ prompts: [prompt] }));
  server.setRequestHandler("prompts/get", async (request) => {
    if (request.params.name !== MEMORY_CONTEXT) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt '${request.params.name}'. Available: ${MEMORY_CONTEXT}.`);
    }
    const args = request.params.arguments ?? {};
    try {
      const workspace = resolveWorkspace(blankToUndefined(args.workspaceName), context.boundWorkspace);
      authorize(context.principal, workspace, GET_CONTEXT);
      const { brief } = await context.services.context.context(workspace, {
        ...(blankToUndefined(args.query) !== undefined ? { query: args.query } : {}),
        ...(blankToUndefined(args.entityNames) !== undefined ? { entityNames: splitNames(args.entityNames!) } : {}),
        ...(blankToUndefined(args.maxTokens) !== undefined ? { maxTokens: parseTokens(args.maxTokens!) } : {}),
      });
      return {
        description: `Memory context from workspace '${workspace}'`,
        messages: [{ role: "user" as const, content: { type: "text" as const, text: brief } }],
      };
    } catch (error) {
      // A prompt has no tool-result form: a failure is a JSON-RPC error with the presenter's safe message, as resources do.
      const expected = error instanceof ForbiddenError || error instanceof ValidationError || error instanceof NotFoundError;
      const code = expected ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError;
      throw new ProtocolError(code, presentError(error, { as: "jsonrpc", code }).message);
    }
  });
  registerCompletions(server, context);
}

const blankToUndefined = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value);

function parseTokens(value: string): number {
  const tokens = Number(value.trim());
  if (!Number.isInteger(tokens)) throw new ValidationError(`maxTokens must be a whole number; got '${value.slice(0, 40)}'.`);
  return tokens;
}
