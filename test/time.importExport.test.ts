import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";

import { runCliCaptured } from "./support/cli.js";
import { type McpTestClient, ok, uniqueWorkspace, withServerAndClient } from "./support/harness.js";

/**
 * Valid time and expiry through export, import and `workspaces copy` (docs/import-export.md#valid-time-and-expiry): the
 * entity and relation lines say what is true now (what the official memory server loads), validity lines carry the times,
 * and an import brings back every held fact with its times.
 */
let mcp: McpTestClient;
withServerAndClient((_server, client) => {
  mcp = client;
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "time-io-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;

/** Everything held, with its times, in an order-free form: what read_graph includeSuperseded shows. */
async function held(ws: string) {
  const graph = ok<{ entities: Json[]; relations: Json[] }>(await mcp.call("read_graph", { workspaceName: ws, includeSuperseded: true }));
  const pick = (item: Json, fields: string[]): Json =>
    Object.fromEntries(fields.filter((f) => item[f] !== undefined).map((f) => [f, item[f]]));
  return {
    entities: graph.entities
      .map((e): Json & { name?: unknown; observations: string[] } => ({
        ...pick(e, ["name", "entityType", "expiresAt", "pinned", "observationValidity"]),
        observations: [...(e.observations as string[])].sort(),
      }))
      .sort((a, b) => String(a.name).localeCompare(String(b.name))),
    relations: graph.relations
      .map((r) => pick(r, ["from", "to", "relationType", "validFrom", "validTo", "expiresAt", "pinned", "status"]))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  };
}

async function seed(ws: string): Promise<void> {
  const call = (name: string, args: Json) => mcp.call(name, { workspaceName: ws, ...args });
  ok(await call("create_entities", { entities: [{ name: "payments", entityType: "team", observations: ["lead: Alice"] }] }));
  ok(await call("create_entities", { entities: [{ name: "sprint 9", entityType: "sprint", observations: [] }], ttlSeconds: 86_400 }));
  ok(await call("create_entities", { entities: [{ name: "Alice", entityType: "person", observations: [] }] }));
  ok(await call("add_observations", { observations: [{ entityName: "payments", contents: ["budget: 100"] }], validFrom: "2025-01-01" }));
  ok(
    await call("supersede_observation", {
      entityName: "payments",
      observation: "budget: 100",
      replacement: "budget: 120",
      validFrom: "2026-01-01",
    }),
  );
  ok(await call("upsert_relation", { from: "Alice", to: "payments", relationType: "works_at", validFrom: "2024-01-01" }));
  ok(await call("end_relation", { from: "Alice", to: "payments", relationType: "works_at", validTo: "2026-06-30" }));
  ok(await call("upsert_relation", { from: "Alice", to: "sprint 9", relationType: "plans" }));
  ok(await call("set_expiry", { entityName: "payments", observation: "lead: Alice", pinned: true }));
}

describe("valid time and expiry through files", () => {
  test("export writes what is true now as the official lines and every time as validity lines; import brings all of it back", async () => {
    const source = uniqueWorkspace("tio");
    const target = uniqueWorkspace("tio");
    await seed(source);
    const file = join(dir, "time.jsonl");
    expect((await runCliCaptured(["export", "--workspace", source, file])).code).toBe(0);
    const lines = (await readFile(file, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Json);

    // The lines the official memory server reads: only what is true now.
    const payments = lines.find((line) => line.type === "entity" && line.name === "payments")!;
    expect([...(payments.observations as string[])].sort()).toEqual(["budget: 120", "lead: Alice"]);
    expect(lines.filter((line) => line.type === "relation").map((line) => line.relationType)).toEqual(["plans"]);
    // The times, on lines of their own.
    const validity = lines.filter((line) => line.type === "validity");
    expect(validity).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          entityName: "payments",
          observation: "budget: 100",
          supersededBy: "budget: 120",
          validTo: "2026-01-01T00:00:00.000Z",
        }),
        expect.objectContaining({ entityName: "payments", observation: "lead: Alice", pinned: true }),
        expect.objectContaining({
          entityName: "Alice",
          relation: { to: "payments", relationType: "works_at" },
          validTo: "2026-06-30T00:00:00.000Z",
        }),
        expect.objectContaining({ entityName: "sprint 9", expiresAt: expect.any(String) }),
      ]),
    );

    const imported = await runCliCaptured(["import", "--workspace", target, file]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/valid times and expiries set/);
    expect(await held(target)).toEqual(await held(source));
    // Default reads agree too: the superseded budget and the ended relation do not show.
    const now = ok<{ entities: Json[]; relations: Json[] }>(
      await mcp.call("open_nodes", { workspaceName: target, names: ["payments", "Alice"] }),
    );
    expect((now.entities.find((e) => e.name === "payments")!.observations as string[]).sort()).toEqual(["budget: 120", "lead: Alice"]);
    expect(now.relations.filter((r) => r.relationType === "works_at")).toEqual([]);
  });

  test("a declared single-valued key does not make an import supersede what the file records", async () => {
    const ws = uniqueWorkspace("tio");
    ok(await mcp.call("declare_fact_keys", { workspaceName: ws, keys: [{ key: "lead", singleValued: true }] }));
    ok(
      await mcp.call("create_entities", {
        workspaceName: ws,
        entities: [{ name: "payments", entityType: "team", observations: ["lead: Carol"] }],
      }),
    );
    const file = join(dir, "two-leads.jsonl");
    await writeFile(
      file,
      [
        JSON.stringify({ type: "entity", name: "payments", entityType: "team", observations: ["lead: Bob"] }),
        JSON.stringify({
          type: "validity",
          entityName: "payments",
          observation: "lead: Alice",
          validTo: "2026-01-01T00:00:00.000Z",
          supersededBy: "lead: Bob",
        }),
      ].join("\n"),
    );
    expect((await runCliCaptured(["import", "--workspace", ws, file])).code).toBe(0);
    const graph = await held(ws);
    const entity = graph.entities.find((e) => e.name === "payments")!;
    expect(entity.observations).toEqual(["lead: Alice", "lead: Bob", "lead: Carol"]);
    expect(entity.observationValidity).toEqual({
      "lead: Alice": { validTo: "2026-01-01T00:00:00.000Z", supersededBy: "lead: Bob", status: "superseded" },
    });
  });

  test("a validity line for an entity in neither the file nor the workspace is reported by line, and the rest imports", async () => {
    const ws = uniqueWorkspace("tio");
    const file = join(dir, "missing.jsonl");
    await writeFile(
      file,
      [
        JSON.stringify({ type: "entity", name: "A", entityType: "t", observations: ["x"] }),
        JSON.stringify({ type: "validity", entityName: "A", observation: "x", pinned: true }),
        JSON.stringify({ type: "validity", entityName: "Nobody", pinned: true }),
        JSON.stringify({ type: "validity", entityName: "A", validTo: 5 }),
      ].join("\n"),
    );
    const run = await runCliCaptured(["import", "--workspace", ws, file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/line 3: validity not imported: 'Nobody'/);
    expect(run.stderr).toMatch(/line 4: validity needs/);
    const entity = (await held(ws)).entities[0]!;
    expect(entity.observationValidity).toEqual({ x: { pinned: true } });
  });

  test("workspaces copy carries superseded facts and times like an export", async () => {
    const source = uniqueWorkspace("tio");
    const target = uniqueWorkspace("tio");
    await seed(source);
    expect((await runCliCaptured(["workspaces", "copy", source, target])).code).toBe(0);
    expect(await held(target)).toEqual(await held(source));
  });
});
