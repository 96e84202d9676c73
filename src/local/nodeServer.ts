import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

import { serve } from "@hono/node-server";

import type { FetchHandler } from "../http/handler.js";

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

const KEEP_ALIVE_MS = 60_000;

/** Serves the shared handler over Node's HTTP server. Port 0 picks a free port (tests). */
export function listen(handler: FetchHandler, options: { host: string; port: number }): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: handler, hostname: options.host, port: options.port }, (info: AddressInfo) => {
      const host = info.family === "IPv6" ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${host}:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            // In-flight requests still finish; each keep-alive socket is closed as soon as it is idle, checked until all are
            // (one that turns idle later would otherwise hold close() open for the whole keep-alive).
            const drain = setInterval(() => http.closeIdleConnections(), 50);
            server.close(() => {
              clearInterval(drain);
              done();
            });
            http.closeIdleConnections();
          }),
      });
    });
    // Node's 5 s keep-alive races its clients: a client that reuses an idle socket just as the server drops it gets
    // ECONNRESET (seen under load, where timers run late). A minute makes the window rare; close() still drops idle sockets.
    const http = server as Server;
    http.keepAliveTimeout = KEEP_ALIVE_MS;
    http.headersTimeout = KEEP_ALIVE_MS + 1_000;
    server.once("error", reject);
  });
}
