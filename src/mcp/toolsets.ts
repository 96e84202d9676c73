import { ValidationError } from "../domain/errors.js";
import { TOOL_GROUPS, type ToolGroup, type Toolsets } from "./tool.js";

/** Every group: the default when MEMORY_TOOLSETS is unset. */
export const ALL_TOOLSETS: Toolsets = new Set(TOOL_GROUPS);

const isGroup = (name: string): name is ToolGroup => (TOOL_GROUPS as readonly string[]).includes(name);

/**
 * A comma-separated list of group names ("graph,tags"), from MEMORY_TOOLSETS or a `?toolsets=` URL
 * parameter (`where` names which, for the message). Blanks between commas are ignored.
 */
export function parseToolsets(text: string, where: string): Toolsets {
  const names = text
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  const groups = `Groups: ${TOOL_GROUPS.join(", ")}.`;
  if (names.length === 0) throw new ValidationError(`${where} names no tool group. ${groups}`);
  const unknown = names.filter((name) => !isGroup(name));
  if (unknown.length > 0) {
    throw new ValidationError(
      `${where} names unknown tool group${unknown.length > 1 ? "s" : ""} ${unknown.map((name) => `'${name.slice(0, 40)}'`).join(", ")}. ${groups}`,
    );
  }
  return new Set(names.filter(isGroup));
}

/** For messages and logs, in the canonical order. */
export function describeToolsets(toolsets: Toolsets): string {
  return TOOL_GROUPS.filter((group) => toolsets.has(group)).join(",");
}
