import { ValidationError } from "../domain/model/errors.js";
import { assertWorkspaceName } from "../domain/model/validation.js";

/**
 * The workspace a call acts on. On /api/mcp it is the one given; on /api/workspaces/{ws}/mcp it is the
 * bound one, and a different one given is an error (docs/architecture.md#workspaces).
 */
export function resolveWorkspace(given: string | undefined, bound: string | undefined): string {
  if (bound === undefined) return assertWorkspaceName(given);
  if (given !== undefined && given !== bound) {
    throw new ValidationError(
      `This endpoint is bound to workspace '${bound}', but workspaceName is '${given}'. Omit workspaceName, or use /api/mcp.`,
    );
  }
  return bound;
}
