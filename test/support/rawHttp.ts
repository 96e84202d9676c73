import { request } from "node:http";

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One HTTP request with headers exactly as given, Host included: fetch() sets Host from the URL,
 * and DNS-rebinding and Host-reflection checks need a request whose Host names another server.
 */
export function rawRequest(url: string, init: { method: string; headers?: Record<string, string>; body?: string }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: init.method, headers: init.headers ?? {} }, (incoming) => {
      let body = "";
      incoming.setEncoding("utf8");
      incoming.on("data", (chunk: string) => (body += chunk));
      incoming.on("end", () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body }));
      incoming.on("error", reject);
    });
    outgoing.on("error", reject);
    outgoing.end(init.body);
  });
}
