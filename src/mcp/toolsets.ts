import { ValidationError } from "../domain/model/errors.js";
import { TOOL_GROUPS, type AnyTool, type ToolGroup, type Toolsets } from "./tool.js";

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

/** Whether a connection with these groups offers the tool: it selected at least one of the tool's groups. */
export function offers(toolsets: Toolsets, tool: Pick<AnyTool, "groups">): boolean {
  return tool.groups.some((group) => toolsets.has(group));
}

/** The error for a call to a tool the connection does not offer: it names the tool's groups and how to add one. */
export function notOffered(tool: Pick<AnyTool, "name" | "groups">, toolsets: Toolsets): ValidationError {
  const selected = `toolsets: ${describeToolsets(toolsets)}`;
  const suffix = "to ?toolsets= on the MCP URL, or leave toolsets out for the server's default groups.";
  const [only, ...more] = tool.groups;
  if (more.length === 0) {
    return new ValidationError(
      `${tool.name} is in the tool group '${only}', which this connection did not select (${selected}). Add '${only}' ${suffix}`,
    );
  }
  const quoted = tool.groups.map((group) => `'${group}'`);
  const listed = `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)}`;
  const none = more.length === 1 ? "neither" : "none";
  return new ValidationError(
    `${tool.name} is in the tool groups ${listed}, ${none} of which this connection selected (${selected}). Add one of them ${suffix}`,
  );
}
