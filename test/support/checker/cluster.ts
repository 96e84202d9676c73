import { setTimeout as sleep } from "node:timers/promises";

import { connectClient, type McpTestClient, startTestServer, type TestServer } from "../harness.js";
import type { Rng } from "./generator.js";

/**
 * The checker's cluster: server instances on the one test Azurite, each with its own runtime (so its own workspace
 * index registry, as a separate host has), its own clock offset and an injected link delay on its table client.
 */

/** How an instance's link to storage behaves now: seeded jitter on every request, and an optional extra delay on $batch. */
export class Link {
  /** Every request waits 0..jitterMs with probability jitterChance. */
  jitterMs = 0;
  jitterChance = 0;
  /** Extra wait on each entity-group transaction ($batch): a slow link while the call has already chosen its event keys. */
  batchMs = 0;
  constructor(private readonly rng: Rng) {}

  delay(isBatch: boolean): number {
    const jitter = this.jitterMs > 0 && this.rng.chance(this.jitterChance) ? this.rng.int(0, this.jitterMs) : 0;
    return jitter + (isBatch ? this.batchMs : 0);
  }
  off(): void {
    this.jitterMs = 0;
    this.batchMs = 0;
  }
}

/** One instance: its server, clients on it, its link and its clock offset. */
export interface Instance {
  label: string;
  server: TestServer;
  clients: McpTestClient[];
  link: Link;
  clockOffsetMs: number;
}

/** Starts an instance whose clock runs `clockOffsetMs` off and whose table requests pass through `link`. */
export async function startInstance(label: string, clockOffsetMs: number, link: Link, clients = 2): Promise<Instance> {
  const server = await startTestServer({ storage: { clock: () => Date.now() + clockOffsetMs } });
  server.app.storage.table.pipeline.addPolicy({
    name: "checkerLink",
    sendRequest: async (request, next) => {
      const ms = link.delay(request.url.includes("$batch"));
      if (ms > 0) await sleep(ms);
      return next(request);
    },
  });
  try {
    const connected = await Promise.all(Array.from({ length: clients }, () => connectClient(server.url)));
    return { label, server, clients: connected, link, clockOffsetMs };
  } catch (error) {
    await server.close();
    throw error;
  }
}

/** Closes the instances' clients and servers, whatever fails. */
export async function stopInstances(instances: readonly Instance[]): Promise<void> {
  await Promise.allSettled(
    instances.map(async (instance) => {
      await Promise.allSettled(instance.clients.map((client) => client.close()));
      await instance.server.close();
    }),
  );
}
