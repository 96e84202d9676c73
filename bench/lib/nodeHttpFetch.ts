import { setMaxListeners } from "node:events";
import { Agent, request } from "node:http";

/**
 * A minimal `fetch` over node:http with keep-alive, for the bench's MCP SDK client. Node 20's built-in
 * fetch (undici) costs ~0.4 ms of client CPU per call on loopback (measured: an empty POST round trip
 * takes ~520 µs with fetch, ~100 µs with node:http). That is the client's cost, not the server's, and
 * at Azurite's 1–3 ms per request it alone would move ours/floor by 0.2–0.4. The storage floor's
 * Azure SDK also talks node:http. Only what the SDK's streamable HTTP client uses is supported:
 * http: URLs, method, headers, a string body, an abort signal; the whole body is read before the
 * Response is returned (JSON responses; the bench never opens an SSE stream).
 */
export function nodeHttpFetch(): (url: string | URL, init?: RequestInit) => Promise<Response> {
  const agent = new Agent({ keepAlive: true });
  return (url, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      // The SDK passes one session-wide signal to every request; the lost-write probe has 50 in flight.
      if (init.signal) setMaxListeners(0, init.signal);
      const headers = Object.fromEntries(new Headers(init.headers).entries());
      const outgoing = request(url, { method: init.method ?? "GET", headers, agent, signal: init.signal ?? undefined }, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("error", reject);
        incoming.on("end", () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) responseHeaders.append(name, one);
          }
          const status = incoming.statusCode ?? 500;
          // A null-body status (204, 304) must not be given a body.
          const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
          resolve(new Response(body, { status, statusText: incoming.statusMessage ?? "", headers: responseHeaders }));
        });
      });
      outgoing.on("error", reject);
      if (init.body !== undefined && init.body !== null && typeof init.body !== "string") {
        outgoing.destroy();
        reject(new TypeError("nodeHttpFetch sends string bodies only."));
        return;
      }
      outgoing.end(init.body ?? undefined);
    });
}
