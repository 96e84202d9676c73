#!/usr/bin/env node
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { InvalidSettingsError } from "../config/problems.js";
import { MemoryError } from "../domain/model/errors.js";
import { VERSION } from "../version.js";
import { type CliIo, type Command, UsageError } from "./command.js";
import { exportCommand } from "./export.js";
import { importCommand } from "./import.js";
import { keysCommand } from "./keysCommand.js";
import { workspacesCommand } from "./workspaces.js";

/** The subcommands. Add one: write its module (a Command), list it here. */
const COMMANDS: readonly Command[] = [importCommand, exportCommand, keysCommand, workspacesCommand];

/** `central-memory <command> …`: runs one subcommand and returns the exit code (2 for a usage mistake). */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    io.stdout.write(usage());
    return name === undefined ? 2 : 0;
  }
  if (name === "--version") {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    io.stderr.write(`Unknown command '${name}'.\n\n${usage()}`);
    return 2;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${error.message}\nUsage: ${command.usage}\n`);
      return 2;
    }
    // Storage and file errors are reported plainly; a bug still shows its stack.
    const plain = error instanceof MemoryError || error instanceof InvalidSettingsError || (error instanceof Error && "code" in error);
    io.stderr.write(
      `central-memory ${name} failed: ${plain ? (error as Error).message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}

function usage(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  return (
    "Usage: central-memory <command> [options]\n\nCommands:\n" +
    COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}\n    ${command.usage}\n`).join("") +
    "\nStorage: the server's settings (MEMORY_STORAGE_CONNECTION_STRING, MEMORY_STORAGE_TABLE_ENDPOINT, AzureWebJobsStorage,\n" +
    "MEMORY_TABLE_NAME); with none set, the embedded Azurite data in ./.azurite (MEMORY_AZURITE_FOLDER).\n"
  );
}

function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}

/** True when this module is the program (not imported by a test), also through npm's bin symlink. */
function isEntryPoint(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  runCli(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
