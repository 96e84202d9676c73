import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { peakRssBytes } from "../lib/processes.js";
import { type GraphCounts, seedInChunks, type Target } from "./types.js";

/** The official server's entry script, or undefined when the package is not installed. */
export function serverMemoryEntry(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-memory/package.json");
    const { bin } = createRequire(import.meta.url)(manifest) as { bin: Record<string, string> | string };
    const script = typeof bin === "string" ? bin : Object.values(bin)[0];
    return script ? join(dirname(manifest), script) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * @modelcontextprotocol/server-memory over stdio with a temporary file, as its users run it. It has
 * no workspaces and no get_entity_relations; operations it lacks are reported as n/a.
 */
export async function startServerMemory(entry: string): Promise<Target> {
  const folder = mkdtempSync(join(tmpdir(), "bench-server-memory-"));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry],
    env: { ...(process.env as Record<string, string>), MEMORY_FILE_PATH: join(folder, "memory.jsonl") },
    stderr: "ignore",
  });
  const client = new Client({ name: "central-memory-bench", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    if (result.isError) throw new Error(`server-memory ${name} failed: ${JSON.stringify(result.content)}`);
    return result;
  };
  return {
    name: "server-memory",
    description: "@modelcontextprotocol/server-memory over stdio, JSONL file",
    ops: {
      createEntity: async (entity) => void (await call("create_entities", { entities: [entity] })),
      createRelation: async (relation) => void (await call("create_relations", { relations: [relation] })),
      seed: (entities, relations) => seedInChunks(call, entities, relations),
      addObservations: async (name, contents) => void (await call("add_observations", { observations: [{ entityName: name, contents }] })),
      openNodes: async (name) => graphOf(await call("open_nodes", { names: [name] })).entities[0]?.observations.length ?? 0,
      searchNodes: async (query) => void (await call("search_nodes", { query })),
      readGraph: async (): Promise<GraphCounts> => {
        const graph = graphOf(await call("read_graph", {}));
        return {
          entities: graph.entities.length,
          observations: graph.entities.reduce((sum, entity) => sum + entity.observations.length, 0),
          relations: graph.relations.length,
        };
      },
    },
    peakRssBytes: () => peakRssBytes(transport.pid ?? undefined),
    async close() {
      await client.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** A graph result: structured content where the server gives it, else the JSON text. */
function graphOf(result: CallToolResult): { entities: { observations: string[] }[]; relations: unknown[] } {
  const first = result.content[0];
  return (result.structuredContent ?? JSON.parse(first?.type === "text" ? first.text : "{}")) as {
    entities: { observations: string[] }[];
    relations: unknown[];
  };
}
