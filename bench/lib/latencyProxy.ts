import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An HTTP proxy in front of Azurite that holds every request for `delayMs` before forwarding it:
 * a stand-in for the network round trip to an in-region Table Storage account (Azurite answers
 * over loopback in 1–3 ms, real Table Storage in several). Every target gets one, so ours and the
 * floor pay the same delay per storage request, and the ratio between them is measured, not modelled.
 */
export async function startLatencyProxy(targetPort: number, delayMs: number): Promise<{ port: number; close(): Promise<void> }> {
  const agent = new Agent({ keepAlive: true });
  const server = createServer((incoming, outgoing) => {
    setTimeout(() => {
      const upstream = request(
        { host: "127.0.0.1", port: targetPort, method: incoming.method, path: incoming.url, headers: incoming.headers, agent },
        (response) => {
          outgoing.writeHead(response.statusCode ?? 502, response.statusMessage, response.headers);
          response.pipe(outgoing);
        },
      );
      upstream.on("error", () => outgoing.destroy());
      incoming.pipe(upstream);
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
