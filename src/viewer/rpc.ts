import { type DataSource, structuredOf } from "./shapes.js";

/**
 * The page's only data source: the workspace's read-only MCP data route (/api/workspaces/{ws}/view/mcp), which runs the
 * same MCP server and tools an agent uses. Plain JSON-RPC over fetch, with the session cookie (same origin).
 */

/** The server refused the caller (401: no or expired credential; 403: no grant for this workspace). */
export class AccessError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class ViewerApi implements DataSource {
  private nextId = 0;

  constructor(readonly base: string) {}

  private async rpc<T>(method: string, params: Record<string, unknown>): Promise<T> {
    const response = await fetch(`${this.base}/mcp`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++this.nextId, method, params }),
    });
    if (response.status === 401 || response.status === 403 || response.status === 503) {
      const body = (await response.json().catch(() => ({}))) as { message?: string };
      throw new AccessError(response.status, body.message ?? `The server answered ${response.status}.`);
    }
    const body = (await response.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(body.error.message);
    return body.result as T;
  }

  /** A tool's structured result; an error result is thrown with its message (which says how to recover). */
  async call<T>(name: string, args: Record<string, unknown> = {}): Promise<T> {
    return structuredOf<T>(name, await this.rpc("tools/call", { name, arguments: args }));
  }

  /** Exchanges a key, typed once, for the session cookie (HttpOnly: this page never sees it again). */
  async signIn(key: string): Promise<void> {
    const response = await fetch(`${this.base}/session`, {
      method: "POST",
      credentials: "same-origin",
      headers: { authorization: `Bearer ${key}` },
    });
    if (!response.ok) {
      const body = (await response.json().catch(() => ({}))) as { message?: string };
      throw new AccessError(response.status, body.message ?? `The server answered ${response.status}.`);
    }
  }
}
