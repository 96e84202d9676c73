import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CryptoKey, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";

import { connectClient } from "./harness.js";

export interface Refusal {
  status: number;
  wwwAuthenticate: string | null;
  body: Record<string, unknown>;
  /** The raw response, for the SDK's own header parsing. */
  response: Response;
}

/**
 * Connects a real MCP SDK client with `headers` and expects the server to refuse it. Returns the
 * HTTP response the client got (observed through the transport's fetch), after checking that the
 * SDK surfaced the same status.
 */
export async function refusal(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<Refusal> {
  let last: Response | undefined;
  // Refusals are read here and handed on as a copy; successful responses pass through untouched.
  const observing: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (response.status < 400) return response;
    const body = await response.text();
    last = new Response(body, { status: response.status, headers: response.headers });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  let thrown: unknown;
  try {
    const client = await connectClient(baseUrl, path, { headers, fetch: observing });
    await client.close();
  } catch (error) {
    thrown = error;
  }
  if (thrown === undefined || last === undefined) throw new Error(`Expected ${path} to refuse the client, but it connected.`);
  if (!(thrown instanceof StreamableHTTPError) || thrown.code !== last.status)
    throw new Error(`Unexpected client error: ${String(thrown)}`);
  const response = last.clone();
  return {
    status: last.status,
    wwwAuthenticate: last.headers.get("www-authenticate"),
    body: (await last.json()) as Record<string, unknown>,
    response,
  };
}

export const TEST_TENANT = "11111111-2222-3333-4444-555555555555";
export const TEST_AUDIENCE = "api://central-memory-test";
/** What MEMORY_ENTRA_TENANT_ID makes the server expect in `iss`. */
export const TEST_ISSUER = `https://login.microsoftonline.com/${TEST_TENANT}/v2.0`;
const KID = "test-signing-key";

export interface TestIssuer {
  jwksUrl: string;
  /** JWKS requests served so far. */
  requests(): number;
  /** An RS256 access token as Entra would issue it; `claims` override the defaults (null removes one). */
  mint(claims?: Record<string, unknown>, options?: { key?: CryptoKey; kid?: string }): Promise<string>;
  close(): Promise<void>;
}

/** A stand-in for the Entra tenant: a fresh RSA key pair whose public half is served as a JWKS on 127.0.0.1. */
export async function startTestIssuer(): Promise<TestIssuer> {
  const { publicKey, privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: KID, alg: "RS256", use: "sig" }] });
  let served = 0;
  const server = createServer((_request, response) => {
    served += 1;
    response.writeHead(200, { "content-type": "application/json" }).end(jwks);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    jwksUrl: `http://127.0.0.1:${port}/discovery/v2.0/keys`,
    requests: () => served,
    async mint(claims = {}, options = {}) {
      const now = Math.floor(Date.now() / 1000);
      const payload: Record<string, unknown> = { iss: TEST_ISSUER, aud: TEST_AUDIENCE, iat: now, nbf: now, exp: now + 600, ...claims };
      for (const [name, value] of Object.entries(payload)) if (value === null) delete payload[name];
      return new SignJWT(payload as JWTPayload)
        .setProtectedHeader({ alg: "RS256", kid: options.kid ?? KID, typ: "JWT" })
        .sign(options.key ?? privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
