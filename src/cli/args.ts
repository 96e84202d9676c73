import { parseArgs } from "node:util";

import { ValidationError } from "../domain/model/errors.js";
import { assertWorkspaceName } from "../domain/model/validation.js";
import { UsageError } from "./command.js";

/** `--workspace W` (or `-w W`) and the positional file arguments, checked. */
export function workspaceAndFiles(args: string[], files: { min: number; max: number }): { workspace: string; files: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { workspace: { type: "string", short: "w" } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.workspace === undefined) throw new UsageError("--workspace is required.");
  if (positionals.length < files.min || positionals.length > files.max) {
    throw new UsageError(files.min === files.max ? `Give exactly ${files.min} file.` : `Give at most ${files.max} file.`);
  }
  try {
    return { workspace: assertWorkspaceName(values.workspace), files: positionals };
  } catch (error) {
    throw new UsageError(error instanceof ValidationError ? error.message : String(error));
  }
}
