import { type Access, accessTo, type Principal } from "../domain/model/access.js";
import { ForbiddenError } from "../domain/model/errors.js";

/** What a caller may do: read-only work needs any grant, anything else needs write (readOnlyHint is the source of truth). */
export function allows(access: Access | undefined, operation: { annotations: { readOnlyHint: boolean } }): boolean {
  return operation.annotations.readOnlyHint ? access !== undefined : access === "write";
}

/**
 * Runs before a tool or resource touches storage. The message names only what the caller sent, so
 * it reveals nothing about the workspace: not whether it exists, nor what it holds.
 */
export function authorize(
  principal: Principal,
  workspace: string,
  operation: { name: string; annotations: { readOnlyHint: boolean } },
): void {
  const access = accessTo(principal, workspace);
  if (access === undefined) {
    throw new ForbiddenError(
      `this caller has no grant for workspace '${workspace}'. Use a workspace it was granted, or ask an administrator for a grant.`,
    );
  }
  if (!allows(access, operation)) {
    throw new ForbiddenError(`this caller may read workspace '${workspace}' but not change it, and ${operation.name} changes memory.`);
  }
}
