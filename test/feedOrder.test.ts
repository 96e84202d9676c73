import { describe, expect, test } from "@jest/globals";

import type { McpTestClient, TestServer } from "./support/harness.js";
import { connectClient, ok, startTestServer, uniqueWorkspace, withTestServers } from "./support/harness.js";
import { injectRaces, type RaceInjector } from "./support/raceInjector.js";
import { partitionRows } from "./support/rawRows.js";

/**
 * Issue #21, defect 3: the feed is replayed in commit order (docs/architecture.md#the-feeds-order), so every view derived
 * from it (the index: search_relations, find_path, read_graph, search_entities; asOf replays) converges to storage once the
 * writes have returned, whatever the writers' links and clocks. Instances: Y (the reference), X (its transactions can be
 * held back while Y writes: a slow link), X- and X+ (clocks 30 s behind and ahead, the allowance the docs give), and a
 * fresh instance started after the writes. Each round has its own workspace; every view is compared with the raw rows.
 */

const SKEW_MS = 30_000;
const ROUNDS = 20;

let y: TestServer;
let x: TestServer;
let yc: McpTestClient;
let xc: McpTestClient;
let behindc: McpTestClient;
let aheadc: McpTestClient;
let slowLink: RaceInjector;

withTestServers(
  {
    servers: {
      y: {},
      x: {},
      behind: { storage: { clock: () => Date.now() - SKEW_MS } },
      ahead: { storage: { clock: () => Date.now() + SKEW_MS } },
    },
    clients: { yc: { on: "y" }, xc: { on: "x" }, behindc: { on: "behind" }, aheadc: { on: "ahead" } },
  },
  (started) => {
    ({ y, x, yc, xc, behindc, aheadc } = started);
    slowLink = injectRaces(x.app.storage.table);
  },
);

interface RelationView {
  from: string;
  to: string;
  relationType: string;
  metadata?: Record<string, unknown>;
}

const describeRelation = (r: RelationView) => `${r.from}-${r.relationType}->${r.to} ${JSON.stringify(r.metadata ?? {})}`;

/** The relations storage holds (raw canonical rows). */
async function storedRelations(ws: string): Promise<string[]> {
  const rows = await partitionRows(y.app.storage.table, ws, ["event", "workspace"]);
  return rows
    .filter((row) => row.kind === "relation")
    .map((row) =>
      describeRelation({
        from: String(row.fromName),
        to: String(row.toName),
        relationType: String(row.relationType),
        metadata: typeof row.metadata === "string" ? (JSON.parse(row.metadata) as Record<string, unknown>) : {},
      }),
    )
    .sort();
}

/** What one instance's views say about the workspace's relations; each view must agree with storage. */
async function relationViews(client: McpTestClient, ws: string): Promise<Record<string, string[]>> {
  const search = ok<{ relations: RelationView[] }>(await client.call("search_relations", { workspaceName: ws }));
  const path = ok<{ found: boolean }>(await client.call("find_path", { workspaceName: ws, from: "A", to: "B", direction: "out" }));
  const asOf = ok<{ relations: RelationView[] }>(await client.call("read_graph", { workspaceName: ws, asOf: new Date().toISOString() }));
  const graph = ok<{ relations: RelationView[] }>(await client.call("read_graph", { workspaceName: ws }));
  return {
    search_relations: search.relations.map(describeRelation).sort(),
    read_graph: graph.relations.map(describeRelation).sort(),
    "read_graph asOf now": asOf.relations.map(describeRelation).sort(),
    find_path: path.found ? ["found"] : [],
  };
}

/** The rounds (as messages) where some view on some instance differs from storage. */
async function relationMismatches(workspaces: string[], clients: Record<string, McpTestClient>): Promise<string[]> {
  const failures: string[] = [];
  await Promise.all(
    workspaces.map(async (ws) => {
      const stored = await storedRelations(ws);
      for (const [name, client] of Object.entries(clients)) {
        for (const [view, shown] of Object.entries(await relationViews(client, ws))) {
          const expected = view === "find_path" ? (stored.length > 0 ? ["found"] : []) : stored;
          if (JSON.stringify(shown) !== JSON.stringify(expected)) {
            failures.push(`${ws} ${name} ${view}: ${JSON.stringify(shown)} but storage holds ${JSON.stringify(stored)}`);
          }
        }
      }
    }),
  );
  return failures;
}

async function seedRelation(ws: string): Promise<void> {
  ok(
    await yc.call("create_entities", {
      workspaceName: ws,
      entities: ["A", "B"].map((name) => ({ name, entityType: "t", observations: [] })),
    }),
  );
  ok(await yc.call("upsert_relation", { workspaceName: ws, from: "A", to: "B", relationType: "knows", metadata: { v: 0 } }));
  // Every instance builds its index now, so what follows reaches them through the feed's tail.
  for (const client of [yc, xc, behindc, aheadc]) ok(await client.call("search_relations", { workspaceName: ws }));
}

const relation = (metadata?: Record<string, unknown>) => ({ from: "A", to: "B", relationType: "knows", ...(metadata ? { metadata } : {}) });

/** A fresh instance, started after the writes, reading every workspace. */
async function withFreshInstance<T>(use: (client: McpTestClient) => Promise<T>): Promise<T> {
  const fresh = await startTestServer();
  const client = await connectClient(fresh.url);
  try {
    return await use(client);
  } finally {
    await client.close();
    await fresh.close();
  }
}

describe("a relation deleted on one instance while another updates it", () => {
  test(`slow link: X's delete commits after Y's upsert with metadata; every view on every instance equals storage (${ROUNDS} rounds)`, async () => {
    const workspaces: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const ws = uniqueWorkspace("order-slow");
      workspaces.push(ws);
      await seedRelation(ws);
      // X reads the relation and keys its event; then, before its transaction reaches storage, Y's upsert commits.
      slowLink.beforeNextTransaction(async () =>
        ok(await yc.call("upsert_relation", { workspaceName: ws, ...relation({ v: round + 1, by: "Y" }) })),
      );
      ok(await xc.call("delete_relations", { workspaceName: ws, relations: [relation()] }));
    }
    const failures = await relationMismatches(workspaces, { X: xc, Y: yc });
    failures.push(...(await withFreshInstance((fresh) => relationMismatches(workspaces, { fresh }))));
    expect(failures).toEqual([]);
  }, 120_000);

  test(`clock skew (30 s), no delay: writes one after the other on instances whose clocks disagree (${ROUNDS} rounds)`, async () => {
    const workspaces: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const ws = uniqueWorkspace("order-skew");
      workspaces.push(ws);
      await seedRelation(ws);
      if (round % 2 === 0) {
        // Y updates, then X- (30 s behind) deletes: the delete is the later commit with the earlier key.
        ok(await yc.call("upsert_relation", { workspaceName: ws, ...relation({ v: round + 1, by: "Y" }) }));
        ok(await behindc.call("delete_relations", { workspaceName: ws, relations: [relation()] }));
      } else {
        // X+ (30 s ahead) updates, then Y deletes: the delete is the later commit with the earlier key.
        ok(await aheadc.call("upsert_relation", { workspaceName: ws, ...relation({ v: round + 1, by: "X+" }) }));
        ok(await yc.call("delete_relations", { workspaceName: ws, relations: [relation()] }));
        // And the relation created again by Y after that: present, with Y's metadata.
        if (round % 4 === 1) ok(await yc.call("upsert_relation", { workspaceName: ws, ...relation({ v: -1, by: "Y" }) }));
      }
    }
    const failures = await relationMismatches(workspaces, { "X-": behindc, "X+": aheadc, Y: yc });
    failures.push(...(await withFreshInstance((fresh) => relationMismatches(workspaces, { fresh }))));
    expect(failures).toEqual([]);
  }, 120_000);
});

describe("two metadata updates of one entity", () => {
  interface EntityView {
    name: string;
    metadata?: Record<string, unknown>;
    version?: string;
  }

  /** The rounds where a view differs from the raw entity row: its metadata, and its version (search hits carry no metadata). */
  async function entityMismatches(workspaces: string[], clients: Record<string, McpTestClient>): Promise<string[]> {
    const failures: string[] = [];
    const check = async (ws: string) => {
      const rows = await partitionRows(y.app.storage.table, ws, ["event", "workspace"]);
      const row = rows.find((candidate) => candidate.kind === "entity" && candidate.name === "E");
      const stored = {
        metadata: typeof row?.metadata === "string" ? (JSON.parse(row.metadata) as unknown) : undefined,
        version: row?.version,
      };
      for (const [name, client] of Object.entries(clients)) {
        const search = ok<{ hits: { entity: EntityView }[] }>(await client.call("search_entities", { workspaceName: ws, query: "E" }));
        const graph = ok<{ entities: EntityView[] }>(await client.call("read_graph", { workspaceName: ws }));
        const asOf = ok<{ entities: EntityView[] }>(await client.call("read_graph", { workspaceName: ws, asOf: new Date().toISOString() }));
        const found = (entities: EntityView[]) => entities.find((entity) => entity.name === "E");
        const views = {
          "search_entities version": [found(search.hits.map((hit) => hit.entity))?.version, stored.version],
          "read_graph metadata": [found(graph.entities)?.metadata, stored.metadata],
          "read_graph version": [found(graph.entities)?.version, stored.version],
          "read_graph asOf now metadata": [found(asOf.entities)?.metadata, stored.metadata],
          "read_graph asOf now version": [found(asOf.entities)?.version, stored.version],
        };
        for (const [view, [shown, expected]] of Object.entries(views)) {
          if (JSON.stringify(shown) !== JSON.stringify(expected)) {
            failures.push(`${ws} ${name} ${view}: ${JSON.stringify(shown)} but storage holds ${JSON.stringify(expected)}`);
          }
        }
      }
    };
    await Promise.all(workspaces.map(check));
    return failures;
  }

  test(`racing upsert_entity metadata updates (slow link and skewed clocks): every view equals storage (${ROUNDS} rounds)`, async () => {
    const workspaces: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const ws = uniqueWorkspace("order-meta");
      workspaces.push(ws);
      ok(await yc.call("upsert_entity", { workspaceName: ws, name: "E", entityType: "t", metadata: { v: 0 } }));
      for (const client of [yc, xc, behindc, aheadc]) ok(await client.call("search_entities", { workspaceName: ws, query: "E" }));
      switch (round % 3) {
        case 0:
          slowLink.beforeNextTransaction(async () =>
            ok(await yc.call("upsert_entity", { workspaceName: ws, name: "E", entityType: "t", metadata: { v: round, by: "Y" } })),
          );
          ok(await xc.call("upsert_entity", { workspaceName: ws, name: "E", entityType: "t", metadata: { v: round, by: "X" } }));
          break;
        case 1:
          ok(await yc.call("upsert_entity", { workspaceName: ws, name: "E", entityType: "t", metadata: { v: round, by: "Y" } }));
          ok(await behindc.call("upsert_entity", { workspaceName: ws, name: "E", entityType: "t", metadata: { v: round, by: "X-" } }));
          break;
        default:
          ok(await aheadc.call("upsert_entity", { workspaceName: ws, name: "E", entityType: "t", metadata: { v: round, by: "X+" } }));
          ok(await yc.call("upsert_entity", { workspaceName: ws, name: "E", entityType: "t", metadata: { v: round, by: "Y" } }));
      }
    }
    const failures = await entityMismatches(workspaces, { X: xc, "X-": behindc, "X+": aheadc, Y: yc });
    failures.push(...(await withFreshInstance((fresh) => entityMismatches(workspaces, { fresh }))));
    expect(failures).toEqual([]);
  }, 120_000);
});

describe("a fresh instance built while the writes are in its lateness window", () => {
  // Lateness 33 s (no retries, 2 s timeouts, the 30 s clock allowance): the events a build applied on top of its scan were the
  // last 33 s by key. (A 1 s timeout made the fresh instance's reads fail now and then on a loaded machine.) X- (30 s behind) keys its later write before Y's earlier one; a build 5 s later must not see Y's
  // write alone (it would replay it over the scan, undoing X-'s write): what it applies must be a suffix of the commit order.
  const SHORT_LATENESS = { maxRetries: 0, timeoutMs: 2_000 };

  test(`Y writes, then X- (30 s behind) overwrites or deletes; a build 5 s later equals storage (${ROUNDS} rounds)`, async () => {
    const workspaces: string[] = [];
    const entityRounds: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const ws = uniqueWorkspace("order-build");
      if (round % 2 === 0) {
        workspaces.push(ws);
        ok(
          await yc.call("create_entities", {
            workspaceName: ws,
            entities: ["A", "B"].map((name) => ({ name, entityType: "t", observations: [] })),
          }),
        );
        ok(await yc.call("upsert_relation", { workspaceName: ws, ...relation({ v: round, by: "Y" }) }));
        ok(await behindc.call("delete_relations", { workspaceName: ws, relations: [relation()] }));
      } else {
        entityRounds.push(ws);
        ok(await yc.call("upsert_entity", { workspaceName: ws, name: "E", entityType: "t", metadata: { v: round, by: "Y" } }));
        ok(await behindc.call("upsert_entity", { workspaceName: ws, name: "E", entityType: "t", metadata: { v: round, by: "X-" } }));
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const fresh = await startTestServer({ storage: SHORT_LATENESS });
    const client = await connectClient(fresh.url);
    try {
      const failures = await relationMismatches(workspaces, { fresh: client });
      for (const ws of entityRounds) {
        const rows = await partitionRows(y.app.storage.table, ws, ["event", "workspace"]);
        const stored = rows.find((row) => row.kind === "entity")?.metadata;
        const graph = ok<{ entities: { metadata?: unknown }[] }>(await client.call("read_graph", { workspaceName: ws }));
        const shown = JSON.stringify(graph.entities[0]?.metadata);
        if (typeof stored !== "string" || shown !== JSON.stringify(JSON.parse(stored))) {
          failures.push(`${ws} fresh read_graph metadata: ${shown} but storage holds ${String(stored)}`);
        }
      }
      expect(failures).toEqual([]);
    } finally {
      await client.close();
      await fresh.close();
    }
  }, 120_000);
});
