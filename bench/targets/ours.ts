import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { nodeHttpFetch } from "../lib/nodeHttpFetch.js";
import { peakRssBytes, startChild } from "../lib/processes.js";
import { BENCH_WORKSPACE, seedInChunks, type Target } from "./types.js";

/** Which protocol era the bench's client speaks: a 2025-era client (the MCP SDK v1) or a 2026-07-28 one (the SDK v2). */
export type Era = "2025" | "2026";

/** A real MCP SDK client over streamable HTTP; an error result throws. */
export async function connectMcp(url: string, era: Era = "2025") {
  const endpoint = new URL("/api/mcp", url);
  const info = { name: "central-memory-bench", version: "1.0.0" };
  // The 2026-07-28 client declares the MCP Apps extension, as a host that renders apps does: a client without it is not
  // listed the app-only tools (docs/apps.md), so it would not mirror their workspace into the routing header. A 2025-era
  // request has no envelope to declare it in, and is listed them anyway.
  const client =
    era === "2025"
      ? new Client(info)
      : new ModernClient(info, {
          versionNegotiation: { mode: { pin: "2026-07-28" } },
          capabilities: { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } },
        });
  await (client instanceof Client
    ? client.connect(new StreamableHTTPClientTransport(endpoint, { fetch: nodeHttpFetch() }))
    : client.connect(new ModernTransport(endpoint, { fetch: nodeHttpFetch() })));
  await client.listTools(); // as real clients do: later results are validated against the output schemas
  return {
    async call<T = Record<string, unknown>>(name: string, args: Record<string, unknown>): Promise<T> {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.structuredContent ?? result.content)}`);
      return result.structuredContent as T;
    },
    close: () => client.close(),
  };
}

/** The curate phases write apart from the workload, so they change none of its counts. */
const CURATE_WORKSPACE = `${BENCH_WORKSPACE}-curate`;
/** The sweep phase's expired entities live apart from the workload too. */
const SWEEP_WORKSPACE = `${BENCH_WORKSPACE}-sweep`;
/**
 * review_duplicates' threshold in the bench: the curate groups' names share a word across groups and differ by a tag a few
 * edits apart, so pairs score about 0.7 and a lower bar than the default (0.8) lists some, as a review with pairs reads them.
 */
const REVIEW_THRESHOLD = 0.6;
/** Each name: a tag unique to the entity and one of a few shared words, so detection's blocks stay small but not empty. */
const CURATE_WORDS = ["amber", "basalt", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper", "kestrel"];
const curateName = (index: number, k: number) => `g${index}m${k} ${CURATE_WORDS[(index * 5 + k) % CURATE_WORDS.length]!}`;

/** 10 operations: 5 entities, a chain of 4 relations between them, and an observation added to the first. */
function curateBatch(index: number) {
  const names = [0, 1, 2, 3, 4].map((k) => curateName(index, k));
  return [
    ...names.map((name) => ({ op: "upsert_entity", args: { name, entityType: "bench", observations: [`${name} exists`] } })),
    ...names.slice(1).map((name, k) => ({ op: "upsert_relation", args: { from: names[k], to: name, relationType: "next" } })),
    { op: "add_observations", args: { observations: [{ entityName: names[0], contents: ["first of its group"] }] } },
  ];
}

/**
 * Our server in its own process (as `npm start` runs it), called over HTTP through the MCP SDK client of one era. The
 * 2026-07-28 target ("ours-2026") has its own table, so both can run side by side.
 */
export async function startOurs(connectionString: string, era: Era = "2025"): Promise<Target> {
  const server = await startChild<{ url: string }>(new URL("../serverProcess.js", import.meta.url), {
    MEMORY_STORAGE_CONNECTION_STRING: connectionString,
    MEMORY_TABLE_NAME: era === "2025" ? "benchours" : "benchours2026",
  });
  const mcp = await connectMcp(server.ready.url, era);
  let detected: { comparisons: number; entities: number } | undefined;
  let reviewed: number | undefined;
  const call = <T = Record<string, unknown>>(name: string, args: Record<string, unknown>) =>
    mcp.call<T>(name, { workspaceName: BENCH_WORKSPACE, ...args });
  return {
    name: era === "2025" ? "ours" : "ours-2026",
    description:
      era === "2025"
        ? "central-memory-mcp over HTTP (MCP SDK v1 client, 2025-11-25 → local server → Azurite)"
        : "central-memory-mcp over HTTP (MCP SDK v2 client, 2026-07-28 → local server → Azurite)",
    ops: {
      createEntity: async (entity) => void (await call("upsert_entity", { ...entity })),
      createRelation: async (relation) => void (await call("upsert_relation", { ...relation })),
      addObservations: async (name, contents) => void (await call("add_observations", { observations: [{ entityName: name, contents }] })),
      openNodes: async (name) => {
        const graph = await call<{ entities: { observations: string[] }[] }>("open_nodes", { names: [name] });
        return graph.entities[0]?.observations.length ?? 0;
      },
      getEntityRelations: async (name) => void (await call("get_entity_relations", { entityName: name })),
      searchNodes: async (query) => void (await call("search_nodes", { query })),
      readGraph: async () => {
        const graph = await call("read_graph", {});
        const entities = graph.entities as { observations: string[] }[];
        return {
          entities: entities.length,
          observations: entities.reduce((sum, entity) => sum + entity.observations.length, 0),
          relations: (graph.relations as unknown[]).length,
        };
      },
      getChanges: async () => void (await call("get_changes", { limit: 50 })),
      getEntityHistory: async (name) => void (await call("get_entity_history", { entityName: name, limit: 50 })),
      searchEntities: async (query) => void (await call("search_entities", { query, limit: 20 })),
      searchRelations: async (from) => void (await call("search_relations", { from })),
      getStats: async () => void (await call("get_stats", {})),
      getContext: async (name) => void (await call("get_context", { query: name, entityNames: [name] })),
      seed: (entities, relations) => seedInChunks(call, entities, relations),
      getNeighbors: async (name) => void (await call("get_neighbors", { entityName: name, depth: 2, direction: "both" })),
      findPath: async (from, to) => {
        const path = await call<{ found: boolean }>("find_path", { from, to });
        if (!path.found) throw new Error(`find_path found no path from ${from} to ${to}`);
      },
      executeBatch: async (index) =>
        void (await call("execute_batch", { workspaceName: CURATE_WORKSPACE, atomic: true, operations: curateBatch(index) })),
      detectDuplicates: async () => {
        detected = await call<{ comparisons: number; entities: number }>("detect_duplicate_entities", { workspaceName: CURATE_WORKSPACE });
      },
      mergeEntities: async (index) =>
        void (await call("merge_entities", {
          workspaceName: CURATE_WORKSPACE,
          target: curateName(index, 0),
          sources: [curateName(index, 1)],
          confirm: true,
        })),
      supersedeObservation: async (name, index) =>
        void (await call("supersede_observation", {
          entityName: name,
          observation: `added observation ${index}`,
          replacement: `replaced observation ${index}`,
        })),
      seedExpiring: async (count) => {
        const entities = Array.from({ length: count }, (_, k) => ({ name: `expiring-${k}`, entityType: "bench", observations: [] }));
        await call("create_entities", { workspaceName: SWEEP_WORKSPACE, entities, ttlSeconds: 1 });
        // ttlSeconds counts from the server's clock; wait past it (a condition, not a timing).
        await new Promise((resolve) => setTimeout(resolve, 1500));
      },
      sweepExpired: async () => (await call<{ entities: number }>("sweep_expired", { workspaceName: SWEEP_WORKSPACE })).entities,
      // The group's first and third entities: both stay after merge_entities (which removes the second), so the call is the
      // tool's one transaction, not the missing-entity path.
      rejectDuplicatePair: async (index) =>
        void (await call("reject_duplicate_pair", { workspaceName: CURATE_WORKSPACE, a: curateName(index, 0), b: curateName(index, 2) })),
      showMemoryGraph: async () => void (await call("show_memory_graph", {})),
      appExpand: async (name) => void (await call("app_expand", { entityName: name })),
      appFilter: async () => void (await call("app_filter", { entityType: "bench" })),
      appEntityDetails: async (name) => void (await call("app_entity_details", { entityName: name })),
      showEntityTimeline: async (name) => void (await call("show_entity_timeline", { entityName: name })),
      reviewDuplicates: async () => {
        reviewed = (await call<{ pairs: unknown[] }>("review_duplicates", { workspaceName: CURATE_WORKSPACE, threshold: REVIEW_THRESHOLD }))
          .pairs.length;
      },
    },
    notes: () => [
      ...(detected
        ? [
            `detect_duplicate_entities, ours: its last call compared ${detected.comparisons} pairs among ${detected.entities} entities ` +
              `(every pair would be ${(detected.entities * (detected.entities - 1)) / 2}).`,
          ]
        : []),
      ...(reviewed === undefined
        ? []
        : [`review_duplicates, ours: its last call listed ${reviewed} pairs (threshold ${REVIEW_THRESHOLD}).`]),
    ],
    viewerUrl: `${server.ready.url}/api/workspaces/${BENCH_WORKSPACE}/view`,
    storageRequests: async () => (await server.ask<{ requests: number }>("stats")).requests,
    storageBytes: async () => (await server.ask<{ bytes: number }>("stats")).bytes,
    drainServerDurations: async () => (await server.ask<{ durations: number[] }>("durations")).durations,
    peakRssBytes: () => peakRssBytes(server.child.pid),
    async close() {
      await mcp.close();
      await server.stop();
    },
  };
}
