import { beforeAll, describe, expect, test } from "@jest/globals";

import { entityId, observationId, relationId } from "../src/domain/model/ids.js";
import { createServices } from "../src/runtime.js";
import { rowKey } from "../src/storage/rows/keys.js";
import { failed, type McpTestClient, ok, type TestServer, uniqueWorkspace, withServerAndClient } from "./support/harness.js";
import { rawTable } from "./support/rawRows.js";

/**
 * Index-served reads through the two times (docs/history.md#two-times), end to end through MCP on real Azurite: superseded,
 * ended, backdated and expired facts are written as validity columns straight onto the rows (the write tools that set them
 * are not what this file tests), before the workspace's first read, so the index's one scan reads them. Each read is then
 * checked for what shows by default, with includeSuperseded and with validAt; each costs one storage request (list_conflicts
 * two); and the scanning adapter answers alike.
 */
let server: TestServer;
let mcp: McpTestClient;
withServerAndClient((started, client) => {
  server = started;
  mcp = client;
});

const DAY = 24 * 60 * 60 * 1000;
const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
const table = rawTable();

/** Merges validity columns onto one stored row (the patch convention of src/storage/rows/rows.ts). */
async function stamp(ws: string, key: string, columns: Record<string, string | boolean>): Promise<void> {
  await table.updateEntity({ partitionKey: ws, rowKey: key, ...columns }, "Merge");
}

/** A relation's three rows (its own and both edges) carry its validity. */
async function stampRelation(ws: string, from: string, type: string, to: string, columns: Record<string, string | boolean>) {
  const [fromId, toId] = [entityId(ws, from), entityId(ws, to)];
  const id = relationId(ws, fromId, type, toId);
  for (const key of [rowKey.relation(id), rowKey.edgeOut(fromId, id), rowKey.edgeIn(toId, id)]) await stamp(ws, key, columns);
}

const stampObservation = (ws: string, entity: string, content: string, columns: Record<string, string | boolean>) =>
  stamp(ws, rowKey.observation(entityId(ws, entity), observationId(entityId(ws, entity), content)), columns);

/**
 * The team: "lead: Alice" superseded by "lead: Bob" (backdated 5 days), a pilot phase that ended 5 days ago, an expired sprint
 * goal, two disagreeing owners, one status written twice alike; an expired entity (Temp) and one expiring tomorrow (Ledger);
 * Alice's lead relation ended 5 days ago, Bob's current.
 */
async function seed(ws: string): Promise<void> {
  ok(
    await mcp.call("create_entities", {
      workspaceName: ws,
      entities: [
        {
          name: "Payments",
          entityType: "team",
          observations: [
            "lead: Alice",
            "lead: Bob",
            "phase: pilot",
            "budget approved",
            "sprint goal: ship invoices",
            "owner: Carol",
            "owner: Dave",
            "status: green",
            "Status:  GREEN ",
          ],
        },
        { name: "Alice", entityType: "person", observations: ["joined in 2019"] },
        { name: "Bob", entityType: "person", observations: ["joined in 2021"] },
        { name: "Ledger", entityType: "service", observations: ["double-entry bookkeeping"] },
        { name: "Temp", entityType: "note", observations: ["scratch pad for zebra sightings"] },
      ],
    }),
  );
  ok(
    await mcp.call("create_relations", {
      workspaceName: ws,
      relations: [
        { from: "Alice", to: "Payments", relationType: "leads" },
        { from: "Bob", to: "Payments", relationType: "leads" },
        { from: "Payments", to: "Ledger", relationType: "uses" },
        { from: "Temp", to: "Payments", relationType: "mentions" },
        { from: "Bob", to: "Alice", relationType: "knows" },
      ],
    }),
  );
  ok(
    await mcp.call("tag_observation", { workspaceName: ws, entityName: "Payments", observationContent: "lead: Alice", tagNames: ["pii"] }),
  );
  ok(await mcp.call("tag_entity", { workspaceName: ws, entityName: "Payments", tagNames: ["team"] }));
  ok(await mcp.call("tag_entity", { workspaceName: ws, entityName: "Temp", tagNames: ["scratch"] }));
  await stampObservation(ws, "Payments", "lead: Alice", { validFrom: at(-30 * DAY), validTo: at(-5 * DAY), supersededBy: "lead: Bob" });
  await stampObservation(ws, "Payments", "lead: Bob", { validFrom: at(-5 * DAY) });
  await stampObservation(ws, "Payments", "phase: pilot", { validFrom: at(-30 * DAY), validTo: at(-5 * DAY) });
  await stampObservation(ws, "Payments", "sprint goal: ship invoices", { expiresAt: at(-DAY) });
  await stamp(ws, rowKey.entity(entityId(ws, "Temp")), { expiresAt: at(-DAY) });
  await stamp(ws, rowKey.entity(entityId(ws, "Ledger")), { expiresAt: at(DAY) });
  await stampRelation(ws, "Alice", "leads", "Payments", { validFrom: at(-30 * DAY), validTo: at(-5 * DAY) });
}

const call = async <T>(tool: string, args: Record<string, unknown>): Promise<T> => ok<T>(await mcp.call(tool, args));

/** The storage requests one call makes. */
async function requestsOf<T>(work: () => Promise<T>): Promise<{ answer: T; requests: number }> {
  const before = server.requests();
  const answer = await work();
  return { answer, requests: server.requests() - before };
}

interface Hit {
  entity: { name: string; observations: string[]; observationValidity?: Record<string, { status?: string }> };
  matchedObservations: string[];
  explain?: { meaning?: { observation?: string } };
}
interface RelationOut {
  from: string;
  to: string;
  relationType: string;
  status?: string;
}

const names = (hits: Hit[]) => hits.map((hit) => hit.entity.name).sort();
const relationKeys = (relations: RelationOut[]) => relations.map((r) => `${r.from} ${r.relationType} ${r.to}`).sort();
const TEN_DAYS_AGO = () => at(-10 * DAY);

describe("index-served reads through the two times", () => {
  const ws = uniqueWorkspace("tindex");
  beforeAll(async () => {
    await seed(ws);
    // The first read scans (builds the index); every read after it brings the index current with one request.
    await mcp.call("get_stats", { workspaceName: ws });
  }, 60_000);

  const search = (args: Record<string, unknown>) => call<{ hits: Hit[] }>("search_entities", { workspaceName: ws, ...args });

  test("search_entities: words never find a fact that does not show, includeSuperseded finds it marked, validAt finds what held then", async () => {
    const { answer, requests } = await requestsOf(() => search({ query: "Alice", mode: "words" }));
    expect(requests).toBe(1);
    expect(names(answer.hits)).toEqual(["Alice"]);
    expect(names((await search({ query: "pilot", mode: "words" })).hits)).toEqual([]);
    expect(names((await search({ query: "invoices", mode: "words" })).hits)).toEqual([]);
    expect(names((await search({ query: "zebra", mode: "words" })).hits)).toEqual([]);

    const all = await search({ query: "Alice", mode: "words", includeSuperseded: true });
    const payments = all.hits.find((hit) => hit.entity.name === "Payments")!;
    expect(payments.matchedObservations).toEqual(["lead: Alice"]);
    expect(payments.entity.observationValidity?.["lead: Alice"]?.status).toBe("superseded");
    // Expired stays hidden even with includeSuperseded.
    expect(payments.entity.observations).not.toContain("sprint goal: ship invoices");
    expect(names((await search({ query: "zebra", mode: "words", includeSuperseded: true })).hits)).toEqual([]);

    const then = await search({ query: "pilot", mode: "words", validAt: TEN_DAYS_AGO() });
    expect(names(then.hits)).toEqual(["Payments"]);
    // Ten days ago only what has a validFrom that early was true: the pilot, and Alice's lead (superseded since, true then).
    expect(then.hits[0]!.entity.observations).toEqual(["lead: Alice", "phase: pilot"]);
    expect(names((await search({ query: "Alice", mode: "words", validAt: TEN_DAYS_AGO() })).hits)).toEqual(["Alice", "Payments"]);
  });

  test("search_entities: hybrid and meaning rank only what shows, and return entities through the lens", async () => {
    for (const mode of ["hybrid", "meaning"]) {
      const { hits } = await search({ query: "ship invoices sprint goal", mode, explain: true });
      for (const hit of hits) {
        expect(hit.entity.observations).not.toContain("sprint goal: ship invoices");
        expect(hit.matchedObservations).not.toContain("sprint goal: ship invoices");
        expect(hit.explain?.meaning?.observation).not.toBe("sprint goal: ship invoices");
      }
      expect(names((await search({ query: "zebra sightings scratch pad", mode })).hits)).not.toContain("Temp");
      const alice = await search({ query: "Alice", mode });
      for (const hit of alice.hits) expect(hit.entity.observations).not.toContain("lead: Alice");
    }
    // Listing by a filter alone leaves out the expired entity.
    expect(names((await search({ entityType: "note" })).hits)).toEqual([]);
  });

  test("search_relations: ended and expired-ended relations hidden; includeSuperseded shows the ended one marked; validAt the one then", async () => {
    const { answer, requests } = await requestsOf(() => call<{ relations: RelationOut[] }>("search_relations", { workspaceName: ws }));
    expect(requests).toBe(1);
    expect(relationKeys(answer.relations)).toEqual(["Bob knows Alice", "Bob leads Payments", "Payments uses Ledger"]);
    const all = await call<{ relations: RelationOut[] }>("search_relations", { workspaceName: ws, includeSuperseded: true });
    expect(relationKeys(all.relations)).toEqual(["Alice leads Payments", "Bob knows Alice", "Bob leads Payments", "Payments uses Ledger"]);
    expect(all.relations.find((r) => r.from === "Alice")!.status).toBe("ended");
    const then = await call<{ relations: RelationOut[] }>("search_relations", { workspaceName: ws, validAt: TEN_DAYS_AGO() });
    expect(relationKeys(then.relations)).toEqual(["Alice leads Payments"]);
  });

  test("get_stats counts what shows, and how many held facts are superseded, expiring and expired", async () => {
    const { answer, requests } = await requestsOf(() =>
      call<Record<string, unknown> & { mostConnected: { name: string; degree: number }[] }>("get_stats", { workspaceName: ws }),
    );
    expect(requests).toBe(1);
    expect(answer).toMatchObject({ entities: 4, relations: 3, observations: 6 + 3, superseded: 3, expiring: 1, expired: 2 });
    expect(answer.mostConnected.find((entry) => entry.name === "Payments")!.degree).toBe(2);
  });

  test("get_tag_usage and get_entities_by_tag count and list only what shows", async () => {
    type Usage = { tags: { name: string; entities: number; observations: number }[] };
    const { answer, requests } = await requestsOf(() => call<Usage>("get_tag_usage", { workspaceName: ws }));
    expect(requests).toBe(1);
    const usage = (u: Usage, name: string) => u.tags.find((tag) => tag.name === name);
    expect(usage(answer, "pii")).toMatchObject({ entities: 0, observations: 0 });
    expect(usage(answer, "scratch")).toMatchObject({ entities: 0 });
    expect(usage(answer, "team")).toMatchObject({ entities: 1 });
    expect(usage(await call<Usage>("get_tag_usage", { workspaceName: ws, includeSuperseded: true }), "pii")).toMatchObject({
      observations: 1,
    });

    type Tagged = { total: number; entities: { name: string; observations: string[] }[]; relations: RelationOut[] };
    expect(await call<Tagged>("get_entities_by_tag", { workspaceName: ws, tagName: "pii" })).toMatchObject({ total: 0, entities: [] });
    expect(await call<Tagged>("get_entities_by_tag", { workspaceName: ws, tagName: "scratch" })).toMatchObject({ total: 0, entities: [] });
    const pii = await call<Tagged>("get_entities_by_tag", { workspaceName: ws, tagName: "pii", includeSuperseded: true });
    expect(pii.entities.map((e) => e.name)).toEqual(["Payments"]);
    const team = await call<Tagged>("get_entities_by_tag", { workspaceName: ws, tagName: "team" });
    expect(team.entities[0]!.observations).not.toContain("lead: Alice");
    // The ended relation is left out; one to an expired entity outside the page may be listed (TagService.entitiesByTag says why).
    expect(relationKeys(team.relations)).toEqual(expect.arrayContaining(["Bob leads Payments", "Payments uses Ledger"]));
    expect(relationKeys(team.relations)).not.toContain("Alice leads Payments");
  });

  test("get_neighbors and find_path walk only relations that show, to entities that show", async () => {
    type Hood = { entities: { name: string; observations: string[] }[]; relations: RelationOut[] };
    const { answer, requests } = await requestsOf(() => call<Hood>("get_neighbors", { workspaceName: ws, entityName: "Payments" }));
    expect(requests).toBe(1);
    expect(answer.entities.map((e) => e.name).sort()).toEqual(["Bob", "Ledger", "Payments"]);
    expect(answer.entities.find((e) => e.name === "Payments")!.observations).not.toContain("lead: Alice");
    const all = await call<Hood>("get_neighbors", { workspaceName: ws, entityName: "Payments", includeSuperseded: true });
    expect(all.entities.map((e) => e.name).sort()).toEqual(["Alice", "Bob", "Ledger", "Payments"]);
    expect(all.relations.find((r) => r.from === "Alice" && r.relationType === "leads")!.status).toBe("ended");

    type Path = { found: boolean; hops?: number; path: { kind: string; name?: string }[] };
    const direct = await requestsOf(() => call<Path>("find_path", { workspaceName: ws, from: "Alice", to: "Payments", maxDepth: 1 }));
    expect(direct.requests).toBe(1);
    expect(direct.answer.found).toBe(false);
    expect((await call<Path>("find_path", { workspaceName: ws, from: "Alice", to: "Payments" })).hops).toBe(2);
    expect((await call<Path>("find_path", { workspaceName: ws, from: "Alice", to: "Payments", validAt: TEN_DAYS_AGO() })).hops).toBe(1);
    expect(failed(await mcp.call("find_path", { workspaceName: ws, from: "Temp", to: "Payments" })).error).toBe("NotFoundError");
  });

  test("get_context briefs current facts only", async () => {
    // The facts in the brief (its change events are history, which names what was written then).
    const { brief } = await call<{ items: { source: { kind: string }; text: string }[] }>("get_context", {
      workspaceName: ws,
      query: "payments lead sprint goal",
      entityNames: ["Payments"],
    }).then((answer) => ({
      brief: answer.items
        .filter((item) => item.source.kind !== "event")
        .map((item) => item.text)
        .join("\n"),
    }));
    expect(brief).toContain("lead: Bob");
    expect(brief).not.toContain("lead: Alice");
    expect(brief).not.toContain("sprint goal");
    expect(brief).not.toContain("Temp");
    expect(failed(await mcp.call("get_context", { workspaceName: ws, entityNames: ["Temp"] })).error).toBe("NotFoundError");
  });

  test("list_conflicts lists disagreeing current values on one key, and costs the index's request and the fact-keys row", async () => {
    type Conflicts = {
      conflicts: { entityName: string; key: string; values: { observation: string }[] }[];
      singleValuedKeys: string[];
      nextCursor?: string;
    };
    const { answer, requests } = await requestsOf(() => call<Conflicts>("list_conflicts", { workspaceName: ws }));
    expect(requests).toBe(2);
    expect(answer.conflicts).toEqual([
      {
        entityName: "Payments",
        entityType: "team",
        key: "owner",
        values: [{ observation: "owner: Carol" }, { observation: "owner: Dave" }],
      },
    ]);
    expect(answer.singleValuedKeys).toEqual([]);
    expect((await call<Conflicts>("list_conflicts", { workspaceName: ws, key: "STATUS" })).conflicts).toEqual([]);
    expect(failed(await mcp.call("list_conflicts", { workspaceName: ws, key: "not a key" })).error).toBe("ValidationError");
  });

  test("the scanning adapter gives the same answers", async () => {
    const kept = server.app.services;
    const scanning = createServices(server.app.storage, { cursorKey: server.app.cursorKey, index: "scanning" });
    const lenses = [{}, { includeSuperseded: true }, { validAt: TEN_DAYS_AGO() }];
    const ref = { name: "Payments" };
    for (const lens of lenses) {
      const reads = [
        (s: typeof kept) => s.search.searchEntities(ws, { query: "Alice", mode: "words", ...lens }),
        (s: typeof kept) => s.search.searchRelations(ws, lens),
        (s: typeof kept) => s.search.stats(ws, lens),
        (s: typeof kept) => s.tags.usage(ws, lens),
        (s: typeof kept) => s.navigate.getNeighbors(ws, ref, {}, s.navigate.lens(lens)),
        (s: typeof kept) => s.time.listConflicts(ws, {}),
      ];
      for (const read of reads) {
        const strip = (value: unknown) =>
          JSON.stringify(value, (key, v: unknown) => (key === "heldAt" || key === "cursorAfter" ? undefined : v)).replace(
            /"(cursor|nextCursor)":"[^"]*"/g,
            '"$1":"…"',
          );
        expect(JSON.parse(strip(await read(scanning)))).toEqual(JSON.parse(strip(await read(kept))));
      }
    }
  });
});
