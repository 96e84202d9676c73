import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";

import { ANONYMOUS } from "../domain/model/access.js";
import { ValidationError } from "../domain/model/errors.js";
import { assertWorkspaceName } from "../domain/model/validation.js";
import { copyWorkspace } from "../domain/services/workspaceCopy.js";
import { type CliIo, type Command, UsageError, withServices } from "./command.js";

const USAGE = "central-memory workspaces list [--discover] [--deleted] [--json] | delete <name> [--yes] | copy <from> <to> [--force]";

/** An operator with storage access sees and may change every workspace. */
const OPERATOR = ANONYMOUS;

function parse(args: string[], options: Record<string, { type: "boolean" }>, positionals: number) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (parsed.positionals.length !== positionals) throw new UsageError(`Give exactly ${positionals} workspace name(s).`);
  const names = parsed.positionals.map((name) => {
    try {
      return assertWorkspaceName(name);
    } catch (error) {
      throw new UsageError(error instanceof ValidationError ? error.message : String(error));
    }
  });
  return { flags: parsed.values as Record<string, boolean | undefined>, names };
}

/** Asks on the terminal for the name again; true when it was typed exactly. */
async function confirmedOnTerminal(io: CliIo, workspace: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: io.stderr });
  try {
    const answer = await prompt.question(
      `This deletes every entity, relation, tag and the history of '${workspace}'. Type its name to confirm: `,
    );
    return answer.trim() === workspace;
  } finally {
    prompt.close();
  }
}

/**
 * `central-memory workspaces …`: the workspace registry for operators (docs/navigate.md#the-cli).
 * list: every registered workspace with entity count and last write (--discover first registers
 * workspaces written before the registry; --deleted shows the deletion record). delete: the whole
 * workspace, after confirmation. copy: the graph of one workspace into another, empty one.
 */
export const workspacesCommand: Command = {
  name: "workspaces",
  summary: "list, delete or copy workspaces",
  usage: USAGE,
  async run(args, io) {
    const [action, ...rest] = args;
    switch (action) {
      case "list": {
        const { flags } = parse(rest, { discover: { type: "boolean" }, deleted: { type: "boolean" }, json: { type: "boolean" } }, 0);
        return withServices(io, async (services) => {
          if (flags.discover) {
            const found = await services.admin.discover();
            io.stderr.write(
              `Registered ${found.length} workspace(s) written before the registry${found.length ? `: ${found.join(", ")}` : ""}.\n`,
            );
          }
          if (flags.deleted) {
            const deletions = await services.admin.deletions();
            if (flags.json) io.stdout.write(`${JSON.stringify(deletions)}\n`);
            else
              for (const d of deletions) io.stdout.write(`${d.at}  ${d.workspace}  ${d.rowsDeleted} rows  by ${d.principal} (${d.tool})\n`);
            return 0;
          }
          const listed = await services.admin.list(OPERATOR);
          if (flags.json) {
            // The field names of the list_workspaces tool: one name for one thing.
            const rows = listed.map(({ name, entities, lastWriteAt }) => ({ workspaceName: name, entities, lastWriteAt }));
            io.stdout.write(`${JSON.stringify(rows)}\n`);
            return 0;
          }
          const width = Math.max(4, ...listed.map((w) => w.name.length));
          io.stdout.write(`${"NAME".padEnd(width)}  ${"ENTITIES".padStart(8)}  LAST WRITE\n`);
          for (const w of listed) io.stdout.write(`${w.name.padEnd(width)}  ${String(w.entities).padStart(8)}  ${w.lastWriteAt ?? "-"}\n`);
          return 0;
        });
      }
      case "delete": {
        const { flags, names } = parse(rest, { yes: { type: "boolean" } }, 1);
        const workspace = names[0]!;
        if (!flags.yes) {
          if (!(process.stdin.isTTY && io.stderr.isTTY)) {
            throw new UsageError(
              `Refusing to delete workspace '${workspace}' without confirmation: there is no terminal to ask on. Pass --yes.`,
            );
          }
          if (!(await confirmedOnTerminal(io, workspace))) {
            io.stderr.write("The name did not match; nothing was deleted.\n");
            return 1;
          }
        }
        return withServices(io, async (services) => {
          const { rowsDeleted } = await services.admin.delete(workspace, workspace, { principal: "cli", tool: "workspaces delete" });
          io.stdout.write(`Deleted workspace '${workspace}' (${rowsDeleted} rows).\n`);
          return 0;
        });
      }
      case "copy": {
        const { flags, names } = parse(rest, { force: { type: "boolean" } }, 2);
        const [from, to] = names as [string, string];
        if (from === to) throw new UsageError("Copy into a different workspace.");
        return withServices(io, async (services) => {
          const target = await services.graph.readGraph(to, { limit: 1, mode: "names" });
          if (target.entities.length > 0 && !flags.force) {
            io.stderr.write(
              `Workspace '${to}' is not empty; nothing was copied. Pass --force to merge into it anyway (import only adds).\n`,
            );
            return 1;
          }
          const report = await copyWorkspace(services, from, to, { principal: "cli", tool: "workspaces copy" });
          io.stdout.write(
            `Copied '${from}' into '${to}': ${report.entitiesCreated} entities, ${report.observationsAdded} observations, ` +
              `${report.relationsCreated} relations, ${report.tagLinksAdded} tags, ${report.metadataWritten} metadata. History is not copied.\n`,
          );
          return 0;
        });
      }
      default:
        throw new UsageError(action === undefined ? "Give list, delete or copy." : `Unknown workspaces action '${action}'.`);
    }
  },
};
