/**
 * The MCP tool annotations (hints a client may use to decide what to confirm with its user), as the
 * five kinds of tool this server has. Every tool names one; none writes the four booleans out. None of
 * our tools reaches outside the memory, so openWorldHint is false throughout.
 *
 * @example
 * defineTool({ name: "get_stats", annotations: READ_ONLY, ... });
 */
export interface ToolHints {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/** Reads: changes nothing, so calling again answers the same (absent other writers). */
export const READ_ONLY: ToolHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** Adds and changes nothing stored, but is not to be repeated blindly (create_entities, add_observations). */
export const ADDITIVE_WRITE: ToolHints = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

/** Adds or updates, and a repeat with the same arguments changes nothing more (upserts, tagging, define_tag). */
export const IDEMPOTENT_WRITE: ToolHints = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** May remove stored data, and a repeat may do more (execute_batch, whose operations may delete). */
export const DESTRUCTIVE_WRITE: ToolHints = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

/** Removes stored data; a repeat with the same arguments removes nothing more (the delete tools, untagging, merge_entities). */
export const IDEMPOTENT_DESTRUCTIVE_WRITE: ToolHints = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};
