import { describe, expect, test } from "@jest/globals";

import { hashApiKey } from "../src/http/auth/apiKeyVerifier.js";
import { connectClient, ok, type TestServer, uniqueWorkspace, withTestServer } from "./support/harness.js";

/**
 * MEMORY_ALLOWED_ORIGINS lets a browser in: preflight is answered for listed origins, and their
 * responses carry the CORS headers the MCP transport needs. Unlisted origins stay refused.
 */
const LISTED = "https://inspector.example";
const KEY = "cmk_cors-test-key";
let server: TestServer;

withTestServer(
  (started) => {
    server = started;
  },
  {
    env: {
      MEMORY_AUTH: "keys",
      MEMORY_API_KEYS: JSON.stringify([{ id: "cors", sha256: hashApiKey(KEY), workspaces: ["*"], access: "write" }]),
      MEMORY_ALLOWED_ORIGINS: LISTED,
    },
  },
);

function preflight(origin: string, path = "/api/mcp") {
  return fetch(`${server.url}${path}`, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization,content-type,mcp-protocol-version",
    },
  });
}

function headerList(response: { headers: Headers }, name: string): string[] {
  return (response.headers.get(name) ?? "").split(",").map((value) => value.trim().toLowerCase());
}

describe("a listed origin", () => {
  test.each(["/api/mcp", "/api/workspaces/team/mcp"])("gets a preflight answer on %s naming the MCP headers", async (path) => {
    const response = await preflight(LISTED, path);
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe(LISTED);
    expect(headerList(response, "access-control-allow-methods")).toEqual(["post"]);
    expect(headerList(response, "access-control-allow-headers")).toEqual(
      expect.arrayContaining(["authorization", "content-type", "accept", "mcp-protocol-version", "mcp-session-id", "last-event-id"]),
    );
    expect(headerList(response, "vary")).toContain("origin");
  });

  test("gets CORS headers on its MCP responses, the 401 challenge included", async () => {
    const ws = uniqueWorkspace("cors");
    const seen: { status: number; headers: Headers }[] = [];
    const observe: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      seen.push({ status: response.status, headers: response.headers });
      return response;
    };
    const client = await connectClient(server.url, "/api/mcp", {
      headers: { authorization: `Bearer ${KEY}`, origin: LISTED },
      fetch: observe,
    });
    ok(await client.call("read_graph", { workspaceName: ws }));
    await client.close();
    const posts = seen.filter((response) => response.status === 200);
    expect(posts.length).toBeGreaterThan(0);
    for (const response of posts) {
      expect(response.headers.get("access-control-allow-origin")).toBe(LISTED);
      expect(headerList(response, "access-control-expose-headers")).toEqual(
        expect.arrayContaining(["mcp-session-id", "mcp-protocol-version", "www-authenticate"]),
      );
    }
    const challenge = await fetch(`${server.url}/api/mcp`, {
      method: "POST",
      headers: { origin: LISTED, "content-type": "application/json" },
      body: "{}",
    });
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get("access-control-allow-origin")).toBe(LISTED);
    expect(challenge.headers.get("www-authenticate")).toMatch(/^Bearer resource_metadata=/);
  });
});

describe("an unlisted origin", () => {
  test("is refused at preflight and on POST, with no CORS headers", async () => {
    const refusedPreflight = await preflight("https://evil.example");
    expect(refusedPreflight.status).toBe(403);
    expect(refusedPreflight.headers.get("access-control-allow-origin")).toBeNull();
    expect(await refusedPreflight.json()).toEqual({ error: "Forbidden", message: expect.stringMatching(/MEMORY_ALLOWED_ORIGINS/) });
    const refusedPost = await fetch(`${server.url}/api/mcp`, {
      method: "POST",
      headers: { origin: "https://evil.example", authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(refusedPost.status).toBe(403);
    expect(refusedPost.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("is not allowed just for being on loopback when the server is not bound to loopback only", async () => {
    expect((await preflight("http://localhost:6274")).status).toBe(403);
  });
});

describe("the protected-resource metadata", () => {
  test("is readable from any origin, preflight included (discovery sends Mcp-Protocol-Version)", async () => {
    const path = "/.well-known/oauth-protected-resource/api/mcp";
    const answer = await fetch(`${server.url}${path}`, {
      method: "OPTIONS",
      headers: {
        origin: "https://any.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "mcp-protocol-version",
      },
    });
    expect(answer.status).toBe(204);
    expect(answer.headers.get("access-control-allow-origin")).toBe("*");
    expect(headerList(answer, "access-control-allow-headers")).toContain("mcp-protocol-version");
    const document = await fetch(`${server.url}${path}`, { headers: { origin: "https://any.example" } });
    expect(document.status).toBe(200);
    expect(document.headers.get("access-control-allow-origin")).toBe("*");
  });
});
