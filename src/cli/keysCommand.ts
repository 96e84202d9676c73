import { parseArgs } from "node:util";

import { generateApiKey, hashApiKey } from "../config/apiKeyMaterial.js";
import { apiKeyEntries, type ApiKeyEntry } from "../config/authSchemas.js";
import type { Command } from "./command.js";

export interface CliOutput {
  out: (text: string) => void;
  err: (text: string) => void;
}

const USAGE = `Usage: central-memory keys create --id <id> --workspaces <name|prefix*>[,...] --access read|write

  Prints a new random API key once, and the entry to add to MEMORY_API_KEYS (or MEMORY_API_KEYS_FILE).
  Only the key's SHA-256 goes into the configuration; the key itself is shown here and nowhere else.

  Example: central-memory keys create --id ci-bot --workspaces 'team-*' --access write`;

const stdio: CliOutput = { out: (text) => process.stdout.write(`${text}\n`), err: (text) => process.stderr.write(`${text}\n`) };

/** `central-memory keys …` (args exclude "keys"). Returns the process exit code. */
export async function runKeysCommand(args: string[], io: CliOutput = stdio): Promise<number> {
  const [command, ...rest] = args;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    io.out(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command !== "create") {
    io.err(`Unknown keys command '${command}'.\n\n${USAGE}`);
    return 2;
  }
  let values: { id?: string; workspaces?: string[]; access?: string };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { id: { type: "string" }, workspaces: { type: "string", multiple: true }, access: { type: "string" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const missing = (["id", "workspaces", "access"] as const).filter((option) => values[option] === undefined);
  if (missing.length > 0) {
    io.err(`Missing ${missing.map((option) => `--${option}`).join(", ")}.\n\n${USAGE}`);
    return 2;
  }
  const key = generateApiKey();
  const candidate = {
    id: values.id,
    sha256: hashApiKey(key),
    workspaces: (values.workspaces ?? [])
      .flatMap((value) => value.split(","))
      .map((value) => value.trim())
      .filter(Boolean),
    access: values.access,
  };
  // The same schema the server validates MEMORY_API_KEYS with, so a printed entry is always accepted.
  const parsed = apiKeyEntries.safeParse([candidate]);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  --${String(issue.path[1] ?? "")}: ${issue.message}`);
    io.err(`Cannot create the key:\n${problems.join("\n")}\n\n${USAGE}`);
    return 2;
  }
  const entry: ApiKeyEntry = parsed.data[0]!;
  io.out(
    `New API key for '${entry.id}' (${entry.access} on ${entry.workspaces.join(", ")}). It is shown only this once; store it in a secret store:`,
  );
  io.out(`\n  ${key}\n`);
  io.out("Add this entry to the JSON array in MEMORY_API_KEYS (or in the file named by MEMORY_API_KEYS_FILE):");
  io.out(`\n  ${JSON.stringify(entry)}\n`);
  io.out("Clients send the key as 'Authorization: Bearer <key>' or 'x-api-key: <key>'.");
  return 0;
}

/** `central-memory keys create …` as a CLI subcommand. */
export const keysCommand: Command = {
  name: "keys",
  summary: "Mint an API key: prints it once, with the MEMORY_API_KEYS entry to add.",
  usage: "central-memory keys create --id <id> --workspaces <name|prefix*>[,...] --access read|write",
  run: (args, io) => runKeysCommand(args, { out: (text) => io.stdout.write(`${text}\n`), err: (text) => io.stderr.write(`${text}\n`) }),
};
