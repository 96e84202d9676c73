import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";

import { entityId, observationId } from "../src/domain/model/ids.js";
import { rowKey } from "../src/storage/rows/keys.js";
import { generatedGraph, kindCounts, runCliCaptured } from "./support/cli.js";
import { connectClient, ok, type TestServer, uniqueWorkspace, withTestServer } from "./support/harness.js";
import type { OfficialGraph } from "./support/outputs.js";
import { partitionRows } from "./support/rawRows.js";
import { startServerMemory } from "./support/serverMemory.js";

/** `central-memory import` and `export`, run in-process against real storage, checked through the MCP server. */

/**
 * The tests that start server-memory or an embedded Azurite, or import 1,000 entities, get more than jest's 60 s: on a loaded
 * 2-core machine they took longer, and failed on the timeout alone (issue #21, defect 12). Nothing here asserts a duration.
 */
const HEAVY_MS = 240_000;

let server: TestServer;
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "central-memory-cli-"));
});

withTestServer(
  (started) => {
    server = started;
  },
  {},
  HEAVY_MS,
);

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const jsonl = (...items: object[]) => items.map((item) => JSON.stringify(item)).join("\n");
const entity = (name: string, entityType: string, observations: string[] = []) => ({ type: "entity", name, entityType, observations });
const relation = (from: string, to: string, relationType: string) => ({ type: "relation", from, to, relationType });

async function file(name: string, text: string): Promise<string> {
  const path = join(folder, name);
  await writeFile(path, text);
  return path;
}

/** The workspace's graph as the official shape, sorted: what "the same graph" means. */
async function graphOf(ws: string): Promise<OfficialGraph> {
  const client = await connectClient(server.url, `/api/workspaces/${ws}/mcp`);
  try {
    return sortGraph(ok<OfficialGraph>(await client.call("read_graph")));
  } finally {
    await client.close();
  }
}

function sortGraph(graph: OfficialGraph): OfficialGraph {
  const key = (r: OfficialGraph["relations"][number]) => `${r.from}\n${r.relationType}\n${r.to}`;
  return {
    entities: graph.entities
      .map(({ name, entityType, observations }) => ({ name, entityType, observations }))
      .sort((a, b) => (a.name < b.name ? -1 : 1)),
    relations: graph.relations.map(({ from, to, relationType }) => ({ from, to, relationType })).sort((a, b) => (key(a) < key(b) ? -1 : 1)),
  };
}

async function rows(ws: string): Promise<Map<string, string>> {
  const etags = new Map<string, string>();
  for (const row of await partitionRows(server.app.storage.table, ws)) etags.set(row.rowKey, row.etag!);
  return etags;
}

const FIXTURE = jsonl(
  entity("Alice", "person", ["likes tea", 'quotes "this" and || pipes', "line one\nline two", "emoji 🚀"]),
  entity("Bob", "person", ["likes coffee"]),
  entity("Alice", "person", ["likes tea", "said more later"]),
  entity("Empty", "", []),
  relation("Alice", "Bob", "knows"),
  relation("Bob", "Alice", "knows"),
  relation("Alice", "Alice", "talks_to"),
  relation("Alice", "Bob", "knows"),
);

describe("import and export", () => {
  test(
    "import -> export -> import reproduces the graph exactly, and the export loads into server-memory",
    async () => {
      const [first, second] = [uniqueWorkspace("rt-a"), uniqueWorkspace("rt-b")];
      const source = await file("fixture.jsonl", FIXTURE);
      const imported = await runCliCaptured(["import", "--workspace", first, source]);
      expect(imported).toMatchObject({ code: 0 });
      expect(imported.stdout).toMatch(/3 entities created \(0 already there\), 6 observations added, 3 relations created/);

      const exported = join(folder, "exported.jsonl");
      expect((await runCliCaptured(["export", "-w", first, exported])).code).toBe(0);
      expect((await runCliCaptured(["import", "-w", second, exported])).code).toBe(0);
      const again = join(folder, "exported-again.jsonl");
      expect((await runCliCaptured(["export", "-w", second, again])).code).toBe(0);

      const expected: OfficialGraph = {
        entities: [
          {
            name: "Alice",
            entityType: "person",
            observations: ["likes tea", 'quotes "this" and || pipes', "line one\nline two", "emoji 🚀", "said more later"],
          },
          { name: "Bob", entityType: "person", observations: ["likes coffee"] },
          { name: "Empty", entityType: "", observations: [] },
        ],
        relations: [
          { from: "Alice", to: "Bob", relationType: "knows" },
          { from: "Alice", to: "Alice", relationType: "talks_to" },
          { from: "Bob", to: "Alice", relationType: "knows" },
        ],
      };
      expect(await graphOf(first)).toEqual(expected);
      expect(await graphOf(second)).toEqual(expected);
      const lines = async (path: string) => (await readFile(path, "utf8")).split("\n").filter(Boolean).sort();
      expect(await lines(again)).toEqual(await lines(exported));

      // Users can always leave: server-memory loads the export as its own file.
      const theirs = await startServerMemory();
      try {
        await writeFile(theirs.file, await readFile(exported, "utf8"));
        expect(sortGraph(ok<OfficialGraph>(await theirs.call("read_graph")))).toEqual(expected);
      } finally {
        await theirs.close();
      }
    },
    HEAVY_MS,
  );

  test("importing twice changes nothing the second time", async () => {
    const ws = uniqueWorkspace("idem");
    const source = await file("idem.jsonl", FIXTURE);
    expect((await runCliCaptured(["import", "-w", ws, source])).code).toBe(0);
    const before = await rows(ws);
    const again = await runCliCaptured(["import", "-w", ws, source]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/0 entities created \(3 already there\), 0 observations added, 0 relations created \(3 already there\)/);
    expect(await rows(ws)).toEqual(before); // not a row rewritten: same keys, same ETags
  });

  test("import into a workspace that has some of it adds only what is missing", async () => {
    const ws = uniqueWorkspace("merge");
    const client = await connectClient(server.url, `/api/workspaces/${ws}/mcp`);
    ok(await client.call("create_entities", { entities: [{ name: "Bob", entityType: "engineer", observations: ["kept"] }] }));
    await client.close();
    const result = await runCliCaptured(["import", "-w", ws, await file("merge.jsonl", FIXTURE)]);
    expect(result.stdout).toMatch(/2 entities created \(1 already there\), 6 observations added/);
    const bob = (await graphOf(ws)).entities.find((e) => e.name === "Bob");
    expect(bob).toEqual({ name: "Bob", entityType: "engineer", observations: ["kept", "likes coffee"] });

    // The import writes as `cli`; what it only added to (Bob) keeps its creator, and the observation added says who added it.
    const reader = await connectClient(server.url, `/api/workspaces/${ws}/mcp`);
    const graph = ok<{ entities: { name: string; createdBy?: string; updatedBy?: string }[]; relations: { createdBy?: string }[] }>(
      await reader.call("read_graph"),
    );
    await reader.close();
    const authors = Object.fromEntries(graph.entities.map((e) => [e.name, [e.createdBy, e.updatedBy]]));
    expect(authors).toEqual({ Alice: ["cli", "cli"], Bob: ["anonymous", "anonymous"], Empty: ["cli", "cli"] });
    expect(new Set(graph.relations.map((r) => r.createdBy))).toEqual(new Set(["cli"]));
    const bobId = entityId(ws, "Bob");
    const added = await server.app.storage.table.getEntity<Record<string, unknown>>(
      ws,
      rowKey.observation(bobId, observationId(bobId, "likes coffee")),
    );
    expect(added.createdBy).toBe("cli");
  });

  test("malformed lines are reported by number and skipped, relations with absent endpoints reported; exit code 1", async () => {
    const ws = uniqueWorkspace("bad");
    const text = [
      JSON.stringify(entity("A", "t", ["fine"])),
      "{not json",
      JSON.stringify({ type: "entity", name: "NoType" }),
      "",
      JSON.stringify(entity("B", "t", ["x".repeat(32_769)])),
      JSON.stringify(relation("A", "Ghost", "knows")),
      JSON.stringify({ type: "comment", text: "a type a later version may add" }),
      JSON.stringify(relation("A", "A", "self")),
      JSON.stringify([1, 2]),
    ].join("\r\n");
    const result = await runCliCaptured(["import", "-w", ws, await file("bad.jsonl", text)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^line 2: not valid JSON$/m);
    expect(result.stderr).toMatch(/^line 3: an entity needs a string name and entityType/m);
    expect(result.stderr).toMatch(/^line 5: entity\.observations\[0\] is 32769 characters/m);
    expect(result.stderr).toMatch(/^line 6: relation .*"Ghost".* not imported: 'Ghost' is in neither the file nor the workspace$/m);
    expect(result.stderr).toMatch(/^line 7: type 'comment' is not imported; skipped$/m);
    expect(result.stderr).toMatch(/^line 9: not a JSON object$/m);
    expect(result.stdout).toMatch(/5 line\(s\) not imported/);
    expect(await graphOf(ws)).toEqual({
      entities: [{ name: "A", entityType: "t", observations: ["fine"] }],
      relations: [{ from: "A", to: "A", relationType: "self" }],
    });
  });

  test("usage mistakes exit 2 with the usage; a missing file exits 1", async () => {
    expect(await runCliCaptured([])).toMatchObject({ code: 2, stdout: expect.stringContaining("Usage: central-memory") });
    expect(await runCliCaptured(["import", "x.jsonl"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--workspace is required"),
    });
    expect(await runCliCaptured(["import", "-w", "a/b", "x.jsonl"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Invalid workspaceName"),
    });
    expect(await runCliCaptured(["nope"])).toMatchObject({ code: 2, stderr: expect.stringContaining("Unknown command 'nope'") });
    expect(await runCliCaptured(["import", "-w", "ws", join(folder, "absent.jsonl")])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("ENOENT"),
    });
  });

  test(
    "with no storage configured it uses the embedded Azurite in ./.azurite, and the data survives between runs",
    async () => {
      const cwd = await mkdtemp(join(folder, "project-"));
      await writeFile(join(cwd, "memory.jsonl"), FIXTURE);
      const imported = await runCliCaptured(["import", "-w", "local", "memory.jsonl"], { env: {}, cwd });
      expect(imported.code).toBe(0);
      expect(imported.stderr).toContain(`embedded Azurite (data in ${join(cwd, ".azurite")})`);
      const exported = await runCliCaptured(["export", "-w", "local"], { env: {}, cwd });
      expect(exported.code).toBe(0);
      expect(exported.stdout.split("\n").filter(Boolean)).toHaveLength(6);
    },
    HEAVY_MS,
  );
});

describe("tags in import and export", () => {
  const tag = (name: string, category = "", description = "") => ({ type: "tag", name, category, description });
  const TAGGED = jsonl(
    entity("Alice", "person", ["likes tea", "line one\nline two"]),
    entity("Bob", "person", []),
    relation("Alice", "Bob", "knows"),
    tag("vip", "priority", "Answer first."),
    tag("unused"),
    { type: "entity_tags", entityName: "Alice", tagNames: ["vip", "team-a"] },
    { type: "observation_tags", entityName: "Alice", observation: "line one\nline two", tagNames: ["confidence:low"] },
    { type: "entity_tags", entityName: "Bob", tagNames: ["team-a"] },
  );

  async function tagsOf(ws: string) {
    const client = await connectClient(server.url, `/api/workspaces/${ws}/mcp`);
    try {
      return {
        tags: ok<{ tags: unknown[] }>(await client.call("get_all_tags")).tags,
        entities: ok<{ entities: unknown[] }>(await client.call("open_nodes", { names: ["Alice", "Bob"] })).entities,
      };
    } finally {
      await client.close();
    }
  }

  test(
    "tags survive import -> export -> import; the export keeps them in lines of their own, which server-memory skips",
    async () => {
      const [first, second] = [uniqueWorkspace("tags-a"), uniqueWorkspace("tags-b")];
      const imported = await runCliCaptured(["import", "-w", first, await file("tagged.jsonl", TAGGED)]);
      expect(imported).toMatchObject({ code: 0 });
      expect(imported.stdout).toMatch(
        /2 entities created .*, 1 relations created \(0 already there\), 2 tag definitions created \(0 already there\), 4 tags put on entities and observations\./,
      );
      const exported = join(folder, "tagged-export.jsonl");
      expect((await runCliCaptured(["export", "-w", first, exported])).code).toBe(0);
      expect((await runCliCaptured(["import", "-w", second, exported])).code).toBe(0);
      const again = join(folder, "tagged-export-again.jsonl");
      expect((await runCliCaptured(["export", "-w", second, again])).code).toBe(0);

      const expected = {
        tags: [
          { name: "confidence:low", category: "", description: "" },
          { name: "team-a", category: "", description: "" },
          { name: "unused", category: "", description: "" },
          { name: "vip", category: "priority", description: "Answer first." },
        ],
        entities: [
          {
            name: "Alice",
            entityType: "person",
            observations: ["likes tea", "line one\nline two"],
            tags: ["team-a", "vip"],
            observationTags: { "line one\nline two": ["confidence:low"] },
          },
          { name: "Bob", entityType: "person", observations: [], tags: ["team-a"] },
        ],
      };
      expect(await tagsOf(first)).toEqual(expected);
      expect(await tagsOf(second)).toEqual(expected);
      const lines = async (path: string) => (await readFile(path, "utf8")).split("\n").filter(Boolean);
      expect((await lines(again)).sort()).toEqual((await lines(exported)).sort());
      // Entity lines first, then relations, then tag lines.
      expect((await lines(exported)).map((line) => (JSON.parse(line) as { type: string }).type)).toEqual([
        "entity",
        "entity",
        "relation",
        "tag",
        "tag",
        "tag",
        "tag",
        "entity_tags",
        "observation_tags",
        "entity_tags",
      ]);

      const theirs = await startServerMemory();
      try {
        await writeFile(theirs.file, await readFile(exported, "utf8"));
        expect(sortGraph(ok<OfficialGraph>(await theirs.call("read_graph")))).toEqual({
          entities: [
            { name: "Alice", entityType: "person", observations: ["likes tea", "line one\nline two"] },
            { name: "Bob", entityType: "person", observations: [] },
          ],
          relations: [{ from: "Alice", to: "Bob", relationType: "knows" }],
        });
      } finally {
        await theirs.close();
      }
    },
    HEAVY_MS,
  );

  test("importing tags twice writes nothing the second time", async () => {
    const ws = uniqueWorkspace("tags-idem");
    const source = await file("tagged-idem.jsonl", TAGGED);
    expect((await runCliCaptured(["import", "-w", ws, source])).code).toBe(0);
    const before = await rows(ws);
    const again = await runCliCaptured(["import", "-w", ws, source]);
    expect(again.stdout).toMatch(/0 tag definitions created \(2 already there\), 0 tags put on entities and observations\./);
    expect(await rows(ws)).toEqual(before);
  });

  test("bad tag lines are reported by number, and so are tags for entities or observations that do not exist; exit code 1", async () => {
    const ws = uniqueWorkspace("tags-bad");
    const text = jsonl(
      entity("A", "t", ["fact"]),
      { type: "tag", category: "no name" },
      { type: "entity_tags", entityName: "A", tagNames: "vip" },
      { type: "observation_tags", entityName: "A", tagNames: ["x"] },
      { type: "entity_tags", entityName: "Ghost", tagNames: ["vip"] },
      { type: "observation_tags", entityName: "A", observation: "never said", tagNames: ["vip"] },
      { type: "entity_tags", entityName: "A", tagNames: ["x".repeat(257)] },
      { type: "observation_tags", entityName: "A", observation: "fact", tagNames: ["ok"] },
    );
    const result = await runCliCaptured(["import", "-w", ws, await file("tags-bad.jsonl", text)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^line 2: a tag needs a string name/m);
    expect(result.stderr).toMatch(/^line 3: entity_tags needs a string entityName, and tagNames as an array of strings$/m);
    expect(result.stderr).toMatch(/^line 4: observation_tags needs a string entityName and observation/m);
    expect(result.stderr).toMatch(/^line 5: tags for entity 'Ghost' not imported: 'Ghost' is in neither the file nor the workspace$/m);
    expect(result.stderr).toMatch(/^line 6: tags for observation "never said" of 'A' not imported: the entity has no such observation$/m);
    expect(result.stderr).toMatch(/^line 7: entity_tags\.tagNames\[0\] is 257 characters/m);
    expect(result.stdout).toMatch(/6 line\(s\) not imported/);
    expect(await tagsOfA(ws)).toEqual({ name: "A", entityType: "t", observations: ["fact"], observationTags: { fact: ["ok"] } });
  });

  async function tagsOfA(ws: string) {
    const client = await connectClient(server.url, `/api/workspaces/${ws}/mcp`);
    try {
      return ok<{ entities: unknown[] }>(await client.call("open_nodes", { names: ["A"] })).entities[0];
    } finally {
      await client.close();
    }
  }
});

describe("a bulk import", () => {
  // The same path at a size the default run can afford; test/import.large.test.ts runs 10,000 / 20,000 (npm run test:large).
  test(
    "1,000 entities and 2,000 relations import completely, in transactions of up to 100 rows",
    async () => {
      const ws = uniqueWorkspace("bulk");
      const source = await file("bulk.jsonl", generatedGraph(1000));
      const result = await runCliCaptured(["import", "-w", ws, source]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/1000 entities created \(0 already there\), 1000 observations added, 2000 relations created/);
      // 1 scan, then 2,000 entity and observation rows in 20 transactions, then 6,000 relation rows with their guards.
      const requests = Number(/(\d+) storage requests/.exec(result.stdout)?.[1]);
      expect(requests).toBeGreaterThanOrEqual(1 + 20 + 6000 / 100);
      expect(requests).toBeLessThan(1 + 20 + 6000 / 50);
      expect(await kindCounts(server.app.storage.table, ws)).toEqual({
        entity: 1000,
        observation: 1000,
        relation: 2000,
        "edge-in": 2000,
        "edge-out": 2000,
        workspace: 1, // the registry row, written in the import's first transaction (docs/navigate.md#the-registry)
      });
    },
    HEAVY_MS,
  );
});

describe("keys", () => {
  test("`central-memory keys create` prints a key once and an entry the server accepts for it", async () => {
    const run = await runCliCaptured(["keys", "create", "--id", "ci-bot", "--workspaces", "team-*", "--access", "write"]);
    expect(run.code).toBe(0);
    const key = /\n {2}(cmk_\S+)\n/.exec(run.stdout)?.[1];
    const entry = JSON.parse(/\n {2}(\{.*\})\n/.exec(run.stdout)?.[1] ?? "null") as {
      id: string;
      sha256: string;
      workspaces: string[];
      access: string;
    };
    expect(entry).toMatchObject({ id: "ci-bot", workspaces: ["team-*"], access: "write" });
    expect(entry.sha256).toBe(createHash("sha256").update(key!).digest("hex"));
    expect((await runCliCaptured(["keys", "create", "--id", "x"])).code).toBe(2);
  });
});
