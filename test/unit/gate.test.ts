import { describe, expect, test } from "@jest/globals";
import { Hono } from "hono";

import { readAuthSettings } from "../../src/config/auth.js";
import { ValidationError } from "../../src/domain/model/errors.js";
import { hashApiKey } from "../../src/http/auth/apiKeyVerifier.js";
import { createAuthenticator } from "../../src/http/auth/authenticate.js";
import { sessionCookies } from "../../src/http/auth/sessionCookies.js";
import { gate, type GateOptions } from "../../src/http/gate.js";

/**
 * The one HTTP gate (src/http/gate.ts) on a bare Hono app, without storage or MCP: the order of its refusals, what each
 * carries, and who it lets in. The MCP and viewer routes' own answers are covered end to end (auth*, viewer*, doors).
 */
const KEYS = { team: "gate-team-key-0123456789" };
const settings = readAuthSettings({
  MEMORY_AUTH: "keys",
  MEMORY_API_KEYS: JSON.stringify([{ id: "team", sha256: hashApiKey(KEYS.team), workspaces: ["team-*"], access: "read" }]),
});
const auth = { settings, authenticate: createAuthenticator(settings.mode) };
const cookies = sessionCookies(settings, async () => new Uint8Array(32).fill(3));

/** A gated route that answers with what the gate admitted. */
function gatedApp<Params>(options: Omit<GateOptions<Params>, "auth">): Hono {
  const app = new Hono();
  app.post(
    "/ws/:workspaceName",
    gate({ auth, ...options }),
    (c) => new Response(JSON.stringify({ ...c.var.admission, principal: c.var.admission.principal.id })),
  );
  return app;
}

async function call(app: Hono, path: string, headers: Record<string, string> = {}) {
  const response = await app.request(path, { method: "POST", headers });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe("the order of refusals: authenticate, validate, grant", () => {
  const app = gatedApp({ params: (request) => (new URL(request.url).searchParams.has("bad") ? failParams() : "fine") });

  test("no credential is 401, whatever the URL says", async () => {
    expect((await call(app, "/ws/not%20valid")).status).toBe(401);
    expect((await call(app, "/ws/team-a?bad")).status).toBe(401);
  });

  test("an authenticated caller with an invalid workspace or parameter gets 400, even without a grant", async () => {
    const invalid = await call(app, "/ws/not%20valid", bearer(KEYS.team));
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({ error: "ValidationError", message: expect.stringMatching(/^Invalid workspaceName 'not valid'/) });
    expect((await call(app, "/ws/other?bad", bearer(KEYS.team))).body).toEqual({ error: "ValidationError", message: "bad parameter" });
  });

  test("a valid request outside the caller's grants is 403", async () => {
    expect((await call(app, "/ws/other", bearer(KEYS.team))).body).toEqual({
      error: "Forbidden",
      message: "This caller has no grant for workspace 'other'.",
    });
  });

  test("an admitted caller reaches the route with its principal, workspace and parameters", async () => {
    const admitted = await call(app, "/ws/team-a", bearer(KEYS.team));
    expect(admitted).toMatchObject({
      status: 200,
      body: { principal: "key:team", workspace: "team-a", credential: "header", params: "fine" },
    });
  });
});

describe("what a 401 carries", () => {
  test("with the challenge (the MCP routes): WWW-Authenticate naming the route's metadata, and Vary: Host", async () => {
    const refused = await call(gatedApp({ challenge: true }), "/ws/team-a", bearer("unknown-key"));
    expect(refused.headers.get("www-authenticate")).toBe(
      'Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource/ws/team-a", ' +
        'error="invalid_token", error_description="The API key is not recognised."',
    );
    expect(refused.headers.get("vary")).toBe("Host");
  });

  test("without it (the viewer's routes): no challenge", async () => {
    const refused = await call(gatedApp({}), "/ws/team-a", bearer("unknown-key"));
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBeNull();
  });

  test("a refusal of the caller can be sent otherwise (the viewer's page sends itself), keeping its status; a 400 cannot", async () => {
    const app = gatedApp({ refused: (_c, refusal) => new Response(JSON.stringify({ page: true }), { status: refusal.status }) });
    expect(await call(app, "/ws/team-a")).toMatchObject({ status: 401, body: { page: true } });
    expect(await call(app, "/ws/other", bearer(KEYS.team))).toMatchObject({ status: 403, body: { page: true } });
    expect(await call(app, "/ws/not%20valid", bearer(KEYS.team))).toMatchObject({ status: 400, body: { error: "ValidationError" } });
  });
});

describe("the viewer's session cookie", () => {
  const principal = { id: "key:team", kind: "key" as const, grants: [{ workspaces: ["team-*"], access: "read" as const }] };
  /** A session cookie for `workspace`, minted as the viewer's routes mint it. */
  const cookieFor = async (workspace: string) => {
    const minting = new Hono().get("/", async (c) => new Response(await cookies.setCookie(c, workspace, principal)));
    return (await (await minting.request("/")).text()).split(";")[0]!;
  };

  test("lets its caller in on its own workspace only, where the route takes it", async () => {
    const cookie = await cookieFor("team-a");
    const viewer = gatedApp({ cookies });
    expect((await call(viewer, "/ws/team-a", { cookie })).body).toMatchObject({ principal: "key:team", credential: "cookie" });
    const elsewhere = await call(viewer, "/ws/team-b", { cookie });
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.body.message).toMatch(/^The viewer session has expired, was not issued for this workspace/);
    expect((await call(gatedApp({}), "/ws/team-a", { cookie })).status).toBe(401);
  });

  test("gives way to a credential header", async () => {
    const cookie = await cookieFor("team-a");
    const admitted = await call(gatedApp({ cookies }), "/ws/team-a", { cookie, ...bearer(KEYS.team) });
    expect(admitted.body).toMatchObject({ credential: "header" });
  });
});

function failParams(): never {
  throw new ValidationError("bad parameter");
}
