import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import { OAuthProtectedResourceMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import { checkResourceAllowed } from "@modelcontextprotocol/sdk/shared/auth-utils.js";
import { base64url, generateKeyPair, SignJWT, UnsecuredJWT } from "jose";

import { ALL_TOOLS } from "../src/mcp/tools/index.js";
import { refusal, startTestIssuer, TEST_AUDIENCE, TEST_ISSUER, TEST_TENANT, type TestIssuer } from "./support/auth.js";
import { connectClient, failed, ok, startTestServer, type TestServer, uniqueWorkspace, withTestServer } from "./support/harness.js";

/** Every read-only tool, by its annotation: what a read-only caller must see, and all it may see. */
const READ_ONLY_TOOLS = ALL_TOOLS.filter((tool) => tool.annotations.readOnlyHint)
  .map((tool) => tool.name)
  .sort();

/**
 * Entra ID tokens end to end: a local JWKS stands in for the tenant's keys, the issuer is the
 * one MEMORY_ENTRA_TENANT_ID implies, and real SDK clients send the tokens.
 */
const GRANTS = [
  { role: "Memory.Team.Write", workspaces: ["team-*"], access: "write" },
  { group: "g-readers", workspaces: ["shared-*"], access: "read" },
  { oid: "oid-carol", workspaces: ["carol-notes"], access: "write" },
];

let issuer: TestIssuer;
let server: TestServer;

function entraEnv(jwksUrl: string): Record<string, string> {
  return {
    MEMORY_AUTH: "entra",
    MEMORY_ENTRA_TENANT_ID: TEST_TENANT,
    MEMORY_ENTRA_AUDIENCE: TEST_AUDIENCE,
    MEMORY_ENTRA_JWKS_URL: jwksUrl,
    MEMORY_ENTRA_GRANTS: JSON.stringify(GRANTS),
  };
}

beforeAll(async () => {
  issuer = await startTestIssuer();
});

withTestServer(
  (started) => {
    server = started;
  },
  () => ({ env: entraEnv(issuer.jwksUrl) }),
);

// Declared after the fixture, so the issuer stops after the server.
afterAll(async () => {
  await issuer.close();
});

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const hour = 3600;
const now = () => Math.floor(Date.now() / 1000);

describe("refused tokens", () => {
  const cases: [string, () => Promise<string | undefined>][] = [
    ["missing", async () => undefined],
    ["malformed", async () => "not-a-jwt"],
    ["malformed (three parts of junk)", async () => "abc.def.ghi"],
    [
      "expired",
      () => issuer.mint({ oid: "u1", roles: ["Memory.Team.Write"], iat: now() - 2 * hour, nbf: now() - 2 * hour, exp: now() - hour }),
    ],
    ["not yet valid", () => issuer.mint({ oid: "u1", roles: ["Memory.Team.Write"], nbf: now() + hour, exp: now() + 2 * hour })],
    ["without exp", () => issuer.mint({ oid: "u1", roles: ["Memory.Team.Write"], exp: null })],
    ["for another audience", () => issuer.mint({ oid: "u1", roles: ["Memory.Team.Write"], aud: "api://some-other-app" })],
    [
      "from another issuer",
      () => issuer.mint({ oid: "u1", roles: ["Memory.Team.Write"], iss: "https://login.microsoftonline.com/another-tenant/v2.0" }),
    ],
    [
      "alg: none",
      async () =>
        new UnsecuredJWT({ oid: "u1", roles: ["Memory.Team.Write"] })
          .setIssuer(TEST_ISSUER)
          .setAudience(TEST_AUDIENCE)
          .setExpirationTime("10m")
          .encode(),
    ],
    [
      "HMAC-signed (HS256)",
      async () =>
        new SignJWT({ oid: "u1", roles: ["Memory.Team.Write"] })
          .setProtectedHeader({ alg: "HS256", kid: "test-signing-key" })
          .setIssuer(TEST_ISSUER)
          .setAudience(TEST_AUDIENCE)
          .setExpirationTime("10m")
          .sign(new TextEncoder().encode("a-shared-secret-of-at-least-32-bytes!")),
    ],
    [
      "tampered (payload changed after signing)",
      async () => {
        const [header, payload, signature] = (await issuer.mint({ oid: "u1", roles: ["Memory.Shared.Read"] })).split(".");
        const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload!))) as Record<string, unknown>;
        const forged = base64url.encode(JSON.stringify({ ...claims, roles: ["Memory.Team.Write"] }));
        return `${header}.${forged}.${signature}`;
      },
    ],
    [
      "signed by another key under the tenant's key id",
      async () => issuer.mint({ oid: "u1", roles: ["Memory.Team.Write"] }, { key: (await generateKeyPair("RS256")).privateKey }),
    ],
    ["naming no caller (no oid, azp or appid)", () => issuer.mint({ roles: ["Memory.Team.Write"] })],
  ];

  test.each(cases)("%s → 401 with WWW-Authenticate: Bearer resource_metadata", async (label, token) => {
    const presented = await token();
    const refused = await refusal(server.url, "/api/mcp", presented === undefined ? {} : bearer(presented));
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe("Unauthorized");
    expect(refused.wwwAuthenticate).toMatch(/^Bearer resource_metadata="[^"]+"/);
    // What an MCP client parses out of the header: an absolute URL on this server.
    const { resourceMetadataUrl, error } = extractWWWAuthenticateParams(refused.response);
    expect(resourceMetadataUrl?.href).toBe(`${server.url}/.well-known/oauth-protected-resource/api/mcp`);
    expect(error).toBe(label === "missing" ? undefined : "invalid_token");
  });

  test("an expired token is named as expired, a wrong audience by its claim", async () => {
    const expired = await refusal(
      server.url,
      "/api/mcp",
      bearer(await issuer.mint({ oid: "u1", exp: now() - hour, nbf: now() - 2 * hour, iat: now() - 2 * hour })),
    );
    expect(expired.body.message).toBe("The token has expired.");
    const audience = await refusal(server.url, "/api/mcp", bearer(await issuer.mint({ oid: "u1", aud: "api://some-other-app" })));
    expect(audience.body.message).toBe("The token's aud claim is not accepted.");
  });
});

describe("protected resource metadata (RFC 9728)", () => {
  test("the URL in a 401 serves valid metadata naming the tenant as authorization server", async () => {
    const refused = await refusal(server.url, "/api/mcp");
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(refused.response);
    const response = await fetch(resourceMetadataUrl!);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const metadata = OAuthProtectedResourceMetadataSchema.parse(await response.json());
    expect(metadata).toEqual({
      resource: `${server.url}/api/mcp`,
      authorization_servers: [TEST_ISSUER],
      scopes_supported: [`${TEST_AUDIENCE}/.default`],
      bearer_methods_supported: ["header"],
      resource_name: "central-memory-mcp",
    });
    expect(checkResourceAllowed({ requestedResource: `${server.url}/api/mcp`, configuredResource: metadata.resource })).toBe(true);
  });

  test("the SDK's discovery finds it by the well-known path of a bound route, and the host-wide document exists", async () => {
    const bound = `${server.url}/api/workspaces/team-x/mcp`;
    const discovered = await discoverOAuthProtectedResourceMetadata(new URL(bound));
    expect(discovered.resource).toBe(bound);
    expect(discovered.authorization_servers).toEqual([TEST_ISSUER]);
    const root = await fetch(`${server.url}/.well-known/oauth-protected-resource`);
    expect(((await root.json()) as { resource: string }).resource).toBe(server.url);
  });

  test("only MCP routes are described", async () => {
    expect((await fetch(`${server.url}/.well-known/oauth-protected-resource/api/health`)).status).toBe(404);
  });
});

describe("grants from token claims", () => {
  test("an app role grants write on team-*; a group grants read on shared-*; nothing else", async () => {
    const token = await issuer.mint({ oid: "user-1", roles: ["Memory.Team.Write"], groups: ["g-readers"] });
    const client = await connectClient(server.url, "/api/mcp", { headers: bearer(token) });
    const team = uniqueWorkspace("team");
    const shared = uniqueWorkspace("shared");
    ok(await client.call("upsert_entity", { workspaceName: team, name: "Alice", entityType: "person" }));
    ok(await client.call("read_graph", { workspaceName: shared }));
    const write = failed(await client.call("upsert_entity", { workspaceName: shared, name: "Bob", entityType: "person" }));
    expect(write.error).toBe("ForbiddenError");
    expect(write.message).toMatch(/may read workspace '.*' but not change it/);
    expect(failed(await client.call("read_graph", { workspaceName: uniqueWorkspace("other") })).error).toBe("ForbiddenError");
    // Write access somewhere: the write tools are listed on /api/mcp.
    expect((await client.client.listTools()).tools.map((t) => t.name)).toContain("upsert_entity");
    await client.close();

    // On the read-only bound route they are not.
    const reader = await connectClient(server.url, `/api/workspaces/${shared}/mcp`, { headers: bearer(token) });
    expect((await reader.client.listTools()).tools.map((t) => t.name).sort()).toEqual(READ_ONLY_TOOLS);
    await reader.close();
  });

  test("an oid grant gives that one user its workspace", async () => {
    const carol = await connectClient(server.url, "/api/workspaces/carol-notes/mcp", {
      headers: bearer(await issuer.mint({ oid: "oid-carol" })),
    });
    ok(await carol.call("upsert_entity", { name: "Reminder", entityType: "note" }));
    await carol.close();
    expect((await refusal(server.url, "/api/workspaces/carol-notes/mcp", bearer(await issuer.mint({ oid: "oid-dave" })))).status).toBe(403);
  });

  test("a valid token with no matching grant is 403 on /api/mcp, naming the caller so an admin can grant it", async () => {
    const refused = await refusal(server.url, "/api/mcp", bearer(await issuer.mint({ oid: "oid-nobody", roles: ["Some.Other.Role"] })));
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/entra:oid-nobody/);
  });

  test("an app-only token without oid is identified by azp", async () => {
    const app = await connectClient(server.url, "/api/mcp", {
      headers: bearer(await issuer.mint({ azp: "client-app-id", roles: ["Memory.Team.Write"] })),
    });
    ok(await app.call("read_graph", { workspaceName: uniqueWorkspace("team") }));
    await app.close();
  });
});

describe("signing keys", () => {
  test("are fetched once and cached across many requests", async () => {
    const own = await startTestServer({ env: entraEnv(issuer.jwksUrl) });
    const before = issuer.requests();
    const token = await issuer.mint({ oid: "u1", roles: ["Memory.Team.Write"] });
    const client = await connectClient(own.url, "/api/mcp", { headers: bearer(token) });
    for (let i = 0; i < 5; i++) ok(await client.call("read_graph", { workspaceName: uniqueWorkspace("team") }));
    await client.close();
    expect(issuer.requests() - before).toBe(1);
    await own.close();
  });

  test("unreachable keys are a 503 to retry, not a 401 that sends the client to sign in again", async () => {
    const own = await startTestServer({ env: entraEnv("http://127.0.0.1:9/keys") });
    const token = await issuer.mint({ oid: "u1", roles: ["Memory.Team.Write"] });
    const response = await fetch(`${own.url}/api/mcp`, {
      method: "POST",
      headers: { ...bearer(token), "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get("www-authenticate")).toBeNull();
    await own.close();
  });
});
