import autocannon from "autocannon";

import { peakRssBytes, startChild } from "./lib/processes.js";
import { connectMcp } from "./targets/ours.js";

/**
 * `npm run load`: autocannon against POST /api/mcp of a local server with an embedded in-memory
 * Azurite (one process, as `npm start` runs without storage settings), with a mixed read/write body
 * set. Afterwards every write the server acknowledged must be in the graph.
 */
const REQUESTS = 20_000;
const CONNECTIONS = 32;
const GRAPH = "load-graph"; // small and fixed: what read_graph and get_entity_relations read
const WRITES = "load-writes"; // upsert_entity adds one unique observation per request here
const GRAPH_NODES = 20;
const WRITE_NAMES = 50; // few names, so concurrent writers often hit the same entity

type Kind = "upsert_entity" | "get_entity_relations" | "read_graph";
/** Per connection, requests cycle through this list: half writes, three tenths relations, a fifth whole graphs. */
const MIX: Kind[] = [
  "upsert_entity",
  "get_entity_relations",
  "upsert_entity",
  "read_graph",
  "upsert_entity",
  "get_entity_relations",
  "upsert_entity",
  "read_graph",
  "upsert_entity",
  "get_entity_relations",
];

function body(kind: Kind, n: number): string {
  const args =
    kind === "upsert_entity"
      ? { workspaceName: WRITES, name: `writer-${n % WRITE_NAMES}`, entityType: "load", observations: [`load write ${n}`] }
      : kind === "get_entity_relations"
        ? { workspaceName: GRAPH, entityName: `node-${n % GRAPH_NODES}`, direction: "both" }
        : { workspaceName: GRAPH };
  return JSON.stringify({ jsonrpc: "2.0", id: n, method: "tools/call", params: { name: kind, arguments: args } });
}

async function main(): Promise<void> {
  // No storage settings: the server embeds an in-memory Azurite, whatever this shell has set.
  const server = await startChild<{ url: string }>(new URL("./serverProcess.js", import.meta.url), {
    MEMORY_STORAGE_CONNECTION_STRING: "",
    MEMORY_STORAGE_TABLE_ENDPOINT: "",
    AzureWebJobsStorage: "",
  });
  const mcp = await connectMcp(server.ready.url);
  try {
    for (let i = 0; i < GRAPH_NODES; i++) {
      await mcp.call("upsert_entity", {
        workspaceName: GRAPH,
        name: `node-${i}`,
        entityType: "node",
        observations: [`node ${i} fact a`, `node ${i} fact b`],
      });
    }
    for (let i = 0; i < GRAPH_NODES; i++) {
      for (const step of [1, 7])
        await mcp.call("upsert_relation", {
          workspaceName: GRAPH,
          from: `node-${i}`,
          to: `node-${(i + step) % GRAPH_NODES}`,
          relationType: `step_${step}`,
        });
    }
    const requestsBefore = (await server.ask<{ requests: number }>("stats")).requests;

    let sent = 0;
    const acknowledged = new Set<number>();
    const toolErrors = new Map<string, number>();
    const unreadable: string[] = [];
    const requests: autocannon.Request[] = MIX.map((kind) => ({
      method: "POST",
      path: "/api/mcp",
      headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
      setupRequest: (request, context) => {
        const n = sent++;
        (context as { n?: number }).n = n;
        return { ...request, body: body(kind, n) };
      },
      onResponse: (status, text, context) => {
        if (status !== 200) return; // counted by autocannon as non-2xx
        try {
          const { result, error } = JSON.parse(text) as {
            result?: { isError?: boolean; structuredContent?: { error?: string } };
            error?: unknown;
          };
          if (error !== undefined || result?.isError) {
            const key = `${kind}: ${result?.structuredContent?.error ?? "JSON-RPC error"}`;
            toolErrors.set(key, (toolErrors.get(key) ?? 0) + 1);
          } else if (kind === "upsert_entity") {
            acknowledged.add((context as { n: number }).n);
          }
        } catch {
          unreadable.push(text.slice(0, 200));
        }
      },
    }));

    process.stderr.write(`Load: ${REQUESTS} requests, ${CONNECTIONS} connections, against ${server.ready.url}/api/mcp …\n`);
    const result = await autocannon({ url: server.ready.url, connections: CONNECTIONS, amount: REQUESTS, requests });
    const storageRequests = (await server.ask<{ requests: number }>("stats")).requests - requestsBefore;

    // Every acknowledged write is stored, once.
    const graph = await mcp.call<{ entities: { observations: string[] }[] }>("read_graph", { workspaceName: WRITES });
    const stored = graph.entities.flatMap((entity) => entity.observations);
    const storedSet = new Set(stored);
    const missing = [...acknowledged].filter((n) => !storedSet.has(`load write ${n}`));

    const lines = [
      `### Load: ${REQUESTS} requests, ${CONNECTIONS} connections, POST /api/mcp`,
      "",
      "Mix per connection: 50% upsert_entity (a unique observation each, on 50 entity names), 30% get_entity_relations, 20% read_graph " +
        `(a ${GRAPH_NODES}-entity, ${GRAPH_NODES * 2}-relation workspace). Server and in-memory Azurite in one process, autocannon in another.`,
      "",
      "| measure | value |",
      "|---|--:|",
      `| requests completed | ${result.requests.total} |`,
      `| duration | ${result.duration.toFixed(1)} s |`,
      `| throughput | ${result.requests.average.toFixed(0)} req/s (mean of per-second samples) |`,
      `| latency p50 / p99 | ${result.latency.p50} ms / ${result.latency.p99} ms |`,
      `| latency max | ${result.latency.max} ms |`,
      `| non-2xx responses | ${result.non2xx} |`,
      `| connection errors / timeouts | ${result.errors} / ${result.timeouts} |`,
      `| tool or JSON-RPC errors | ${[...toolErrors.values()].reduce((a, b) => a + b, 0)}${toolErrors.size ? ` (${[...toolErrors].map(([k, v]) => `${k}: ${v}`).join(", ")})` : ""} |`,
      `| unreadable responses | ${unreadable.length} |`,
      `| storage requests | ${storageRequests} (${(storageRequests / result.requests.total).toFixed(2)} per request) |`,
      `| server peak RSS (with Azurite) | ${((peakRssBytes(server.child.pid) ?? Number.NaN) / 2 ** 20).toFixed(0)} MB |`,
      `| writes acknowledged | ${acknowledged.size} |`,
      `| observations stored | ${stored.length} (${storedSet.size} distinct) |`,
      `| acknowledged writes missing | ${missing.length} |`,
    ];
    console.log(lines.join("\n"));
    if (unreadable.length > 0) console.error(`First unreadable response: ${unreadable[0]}`);
    const failed =
      missing.length > 0 || stored.length !== storedSet.size || result.non2xx > 0 || result.errors > 0 || unreadable.length > 0;
    if (failed) {
      console.error(
        `\nLOAD FAILED: ${missing.length} acknowledged writes missing (first: ${missing.slice(0, 5).join(", ")}), or errors above.`,
      );
      process.exitCode = 1;
    } else {
      console.log(`\nEvery acknowledged write is stored exactly once (${acknowledged.size} of ${acknowledged.size}).`);
    }
  } finally {
    await mcp.close();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
