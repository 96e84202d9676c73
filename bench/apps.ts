import { gzipSync } from "node:zlib";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { startAppHost } from "../test/support/appHost.js";
import { launchBrowser } from "../test/support/browser.js";
import { median } from "./lib/stats.js";

/**
 * The MCP Apps (docs/apps.md) in the bench, on the workspace the workload filled: the size of the one `ui://` resource as a
 * client reads it, and the time for the graph app to take input inside a host (test/support/appHost.ts: the extension SDK's
 * host side in headless Chromium, the app in a sandboxed iframe).
 *
 * Time to interactive: from the host creating the iframe to the app's `viewer-interactive` mark (the graph drawn and laid
 * out, the search box taking input); the opening call to show_memory_graph is made before and not counted. Each run is a
 * fresh browser context.
 */
export interface AppsMeasure {
  resourceUri: string;
  /** The resource's HTML, bytes (UTF-8). */
  rawBytes: number;
  /** The same, gzipped (what a client that compresses would carry). */
  gzipBytes: number;
  /** Entities in the workspace, from show_memory_graph's totals. */
  entities: number;
  /** The graph app opened two ways, each timed over the runs. */
  openings: AppOpening[];
}

/** One way of opening the graph app: show_memory_graph's arguments, what it drew, the times. */
interface AppOpening {
  /**
   * "default": as a model opens it (no arguments: the whole graph up to 500 entities, else the 500 most connected);
   * "whole": with limit 2000, as the page asks (every entity of a 1,000-entity workspace drawn).
   */
  name: "default" | "whole";
  args: Record<string, unknown>;
  drawn: number;
  runs: number[];
  medianMs: number;
}

const OPENINGS: Pick<AppOpening, "name" | "args">[] = [
  { name: "default", args: {} },
  { name: "whole", args: { limit: 2000 } },
];

/** The targets (#26): the resource under 300 KB gzipped, the app interactive in under 1.5 s at 1,000 entities. */
export const APP_TARGETS = { gzipBytes: 300 * 1024, interactiveMs: 1500, atEntities: 1000 };

/** A 2025-era MCP SDK client on a workspace's bound route, in the shape the app host takes. */
async function connect(serverUrl: string, workspace: string) {
  const client = new Client({ name: "central-memory-bench-host", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`/api/workspaces/${workspace}/mcp`, serverUrl)));
  return {
    client,
    call: async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: () => client.close(),
  };
}

export async function measureApps(serverUrl: string, workspace: string, runs: number): Promise<AppsMeasure> {
  const browser = await launchBrowser();
  try {
    const host = await startAppHost({ browser, client: await connect(serverUrl, workspace) });
    try {
      const opener = host.tools.find((tool) => tool.name === "show_memory_graph");
      const resourceUri = (opener?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
      if (!resourceUri) throw new Error("show_memory_graph is not listed with a ui:// resource: is the apps toolset offered?");
      const html = (await host.readResource(resourceUri)).text;
      const openings: AppOpening[] = [];
      let entities = Number.NaN;
      for (const { name, args } of OPENINGS) {
        const times: number[] = [];
        let drawn = Number.NaN;
        for (let run = 0; run < runs; run++) {
          const app = await host.open("show_memory_graph", args);
          if (app.result.isError) throw new Error(`show_memory_graph failed: ${JSON.stringify(app.result.content)}`);
          const opening = app.result.structuredContent as { entities: unknown[]; totals: { entities: number } };
          [drawn, entities] = [opening.entities.length, opening.totals.entities];
          times.push(await app.interactiveMs());
          await app.page.context().close();
        }
        openings.push({ name, args, drawn, runs: times, medianMs: median(times) });
      }
      return { resourceUri, rawBytes: Buffer.byteLength(html, "utf8"), gzipBytes: gzipSync(html).length, entities, openings };
    } finally {
      await host.teardown();
    }
  } finally {
    await browser.close();
  }
}
