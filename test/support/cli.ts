import { Writable } from "node:stream";

import type { TableClient } from "@azure/data-tables";

import { runCli } from "../../src/cli/main.js";
import { TEST_TABLE, testConnectionString } from "./harness.js";
import { partitionRows } from "./rawRows.js";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in this process (the real command code, real storage), capturing what it prints. */
export async function runCliCaptured(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const sink = (into: string[]) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        into.push(chunk.toString());
        done();
      },
    });
  const env = options.env ?? { MEMORY_STORAGE_CONNECTION_STRING: testConnectionString(), MEMORY_TABLE_NAME: TEST_TABLE };
  const code = await runCli(args, { stdout: sink(out), stderr: sink(err), env, cwd: options.cwd ?? process.cwd() });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

/** A server-memory file of `n` entities (one observation each) and 2n relations between them. */
export function generatedGraph(n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++)
    lines.push(JSON.stringify({ type: "entity", name: `entity ${i}`, entityType: `type ${i % 7}`, observations: [`fact ${i}`] }));
  for (let i = 0; i < 2 * n; i++) {
    lines.push(
      JSON.stringify({
        type: "relation",
        from: `entity ${i % n}`,
        to: `entity ${(i * 7 + 1) % n}`,
        relationType: i < n ? "links" : "cites",
      }),
    );
  }
  return lines.join("\n");
}

/** How many rows of each kind a workspace holds, read straight from the table (change events left out). */
export async function kindCounts(table: TableClient, workspace: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { kind } of await partitionRows(table, workspace, { without: ["event"], select: ["kind"] })) {
    counts[String(kind)] = (counts[String(kind)] ?? 0) + 1;
  }
  return counts;
}
