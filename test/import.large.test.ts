import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";

import { connectStorage } from "../src/storage/table/client.js";
import { type AzuriteProcess, startAzuriteProcess } from "./support/azurite.js";
import { generatedGraph, kindCounts, runCliCaptured } from "./support/cli.js";
import { TEST_TABLE } from "./support/harness.js";

/**
 * The scale: 10,000 entities and 20,000 relations imported through the CLI into Azurite.
 * Opt-in (npm run test:large): Azurite (LokiJS) scans every row of a partition for each operation,
 * so filling one workspace is quadratic there and this takes minutes; see the README's CLI section.
 * It runs on its own Azurite so the shared one stays small for the other tests.
 */
const large = process.env.MEMORY_LARGE_TESTS === "1" ? describe : describe.skip;

let azurite: AzuriteProcess;
let folder: string;

large("a 10,000-entity / 20,000-relation import", () => {
  beforeAll(async () => {
    azurite = await startAzuriteProcess();
    folder = await mkdtemp(join(tmpdir(), "central-memory-large-"));
  });

  afterAll(async () => {
    await azurite?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  test(
    "completes, with every row stored",
    async () => {
      const n = Number(process.env.MEMORY_LARGE_ENTITIES ?? 10_000);
      const source = join(folder, "large.jsonl");
      await writeFile(source, generatedGraph(n));
      const env = { MEMORY_STORAGE_CONNECTION_STRING: azurite.connectionString, MEMORY_TABLE_NAME: TEST_TABLE };
      const result = await runCliCaptured(["import", "-w", "large", source], { env });
      console.log(result.stdout.trim());
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        new RegExp(`${n} entities created \\(0 already there\\), ${n} observations added, ${2 * n} relations created`),
      );
      const table = connectStorage({
        kind: "connectionString",
        connectionString: azurite.connectionString,
        tableName: TEST_TABLE,
        source: "test",
      }).table;
      expect(await kindCounts(table, "large")).toEqual({
        entity: n,
        observation: n,
        relation: 2 * n,
        "edge-in": 2 * n,
        "edge-out": 2 * n,
        workspace: 1, // the registry row, written in the import's first transaction (docs/navigate.md#the-registry)
      });
    },
    30 * 60_000,
  );
});
