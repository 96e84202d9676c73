import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import type { FetchHandler } from "../http/handler.js";

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** How long an idle keep-alive connection stays open (Node's default is 5 s). */
const KEEP_ALIVE_MS = 65_000;

/** Serves the shared handler over Node's HTTP server. Port 0 picks a free port (tests). */
export function listen(handler: FetchHandler, options: { host: string; port: number }): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: handler, hostname: options.host, port: options.port }, (info: AddressInfo) => {
      const host = info.family === "IPv6" ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${host}:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            // Idle keep-alive sockets would hold close() open; in-flight requests still finish.
            if ("closeIdleConnections" in server) server.closeIdleConnections();
          }),
      });
    });
    // A client reuses an idle socket until its own keep-alive timer runs out (undici: the server's advertised timeout less a
    // margin). Node's default of 5 s leaves a margin a CPU-starved client can overrun, and its request then meets a socket the
    // server has just closed ("other side closed"). Idle sockets are closed on close() anyway.
    if ("keepAliveTimeout" in server) {
      server.keepAliveTimeout = KEEP_ALIVE_MS;
      server.headersTimeout = KEEP_ALIVE_MS + 1000;
    }
    server.once("error", reject);
  });
}
