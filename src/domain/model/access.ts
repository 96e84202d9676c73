import { LIMITS } from "./limits.js";

/**
 * Who is calling and what they may touch. Authentication (HTTP) produces a Principal; the MCP
 * registry asks `accessTo` before every tool call. Pure data and rules: no HTTP, no MCP.
 */
export type Access = "read" | "write";

/** Access to the workspaces matching any of `workspaces`: exact names, or prefixes ending in `*` (`team-*`, `*`). */
export interface Grant {
  workspaces: readonly string[];
  access: Access;
}

export interface Principal {
  /**
   * Stable and unique across kinds; what createdBy/updatedBy will record:
   * `key:<key id>`, `entra:<oid, or azp/appid when there is no oid>`, or `anonymous`.
   */
  id: string;
  kind: "anonymous" | "key" | "entra";
  grants: readonly Grant[];
}

/** With MEMORY_AUTH=none every caller is this one. */
export const ANONYMOUS: Principal = { id: "anonymous", kind: "anonymous", grants: [{ workspaces: ["*"], access: "write" }] };

/** A valid grant pattern: `*`, or a workspace name optionally followed by `*` (a prefix). */
export function isWorkspacePattern(pattern: string): boolean {
  if (pattern === "*") return true;
  const name = pattern.endsWith("*") ? pattern.slice(0, -1) : pattern;
  return LIMITS.workspaceNamePattern.test(name);
}

function matches(pattern: string, workspace: string): boolean {
  return pattern.endsWith("*") ? workspace.startsWith(pattern.slice(0, -1)) : workspace === pattern;
}

/** The strongest access any of the principal's grants gives to `workspace`, or undefined for none. */
export function accessTo(principal: Principal, workspace: string): Access | undefined {
  let best: Access | undefined;
  for (const grant of principal.grants) {
    if (!grant.workspaces.some((pattern) => matches(pattern, workspace))) continue;
    if (grant.access === "write") return "write";
    best = "read";
  }
  return best;
}

/** The strongest access the principal has anywhere: what decides which tools it is shown on /api/mcp. */
function strongestAccess(principal: Principal): Access | undefined {
  if (principal.grants.some((grant) => grant.access === "write")) return "write";
  return principal.grants.length > 0 ? "read" : undefined;
}

/**
 * The most the principal may do on a route: on a workspace's own route its access to that workspace, on /api/mcp
 * (no workspace) the strongest it has anywhere. The HTTP gate refuses a route where this is undefined; the MCP server
 * shows only the tools it allows.
 */
export function accessOnRoute(principal: Principal, workspace: string | undefined): Access | undefined {
  return workspace === undefined ? strongestAccess(principal) : accessTo(principal, workspace);
}
