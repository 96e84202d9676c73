import { ValidationError } from "../domain/model/errors.js";
import { type AnyTool, type Toolset, TOOLSETS, type Toolsets } from "./tool.js";

/** Every toolset: the default when MEMORY_TOOLSETS is unset. */
export const ALL_TOOLSETS: Toolsets = new Set(TOOLSETS);

const isToolset = (name: string): name is Toolset => (TOOLSETS as readonly string[]).includes(name);

/**
 * A comma-separated list of toolset names ("graph,tags"), from MEMORY_TOOLSETS or a `?toolsets=` URL
 * parameter (`where` names which, for the message). Blanks between commas are ignored.
 */
export function parseToolsets(text: string, where: string): Toolsets {
  const names = text
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  const known = `Toolsets: ${TOOLSETS.join(", ")}.`;
  if (names.length === 0) throw new ValidationError(`${where} names no toolset. ${known}`);
  const unknown = names.filter((name) => !isToolset(name));
  if (unknown.length > 0) {
    throw new ValidationError(
      `${where} names unknown toolset${unknown.length > 1 ? "s" : ""} ${unknown.map((name) => `'${name.slice(0, 40)}'`).join(", ")}. ${known}`,
    );
  }
  return new Set(names.filter(isToolset));
}

/** For messages and logs, in the canonical order. */
export function describeToolsets(toolsets: Toolsets): string {
  return TOOLSETS.filter((toolset) => toolsets.has(toolset)).join(",");
}

/** Whether a connection with these toolsets offers the tool: it selected at least one of the tool's toolsets. */
export function offers(toolsets: Toolsets, tool: Pick<AnyTool, "toolsets">): boolean {
  return tool.toolsets.some((toolset) => toolsets.has(toolset));
}

/** The error for a call to a tool the connection does not offer: it names the tool's toolsets and how to add one. */
export function notOffered(tool: Pick<AnyTool, "name" | "toolsets">, toolsets: Toolsets): ValidationError {
  const selected = `toolsets: ${describeToolsets(toolsets)}`;
  const suffix = "to ?toolsets= on the MCP URL, or leave toolsets out for the server's default toolsets.";
  const [only, ...more] = tool.toolsets;
  if (more.length === 0) {
    return new ValidationError(
      `${tool.name} is in the toolset '${only}', which this connection did not select (${selected}). Add '${only}' ${suffix}`,
    );
  }
  const quoted = tool.toolsets.map((toolset) => `'${toolset}'`);
  const listed = `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)}`;
  const none = more.length === 1 ? "neither" : "none";
  return new ValidationError(
    `${tool.name} is in the toolsets ${listed}, ${none} of which this connection selected (${selected}). Add one of them ${suffix}`,
  );
}
