import { describe, expect, test } from "@jest/globals";

import { readAuthSettings } from "../src/config/auth.js";
import { hashApiKey } from "../src/http/auth/apiKeyVerifier.js";
import { type TestServer, withTestServer } from "./support/harness.js";
import { rawRequest } from "./support/rawHttp.js";

/**
 * Hardening: the Host header must not be reflected into authorization discovery where a shared
 * cache could hand it to others. Under Azure the public URL is https://$WEBSITE_HOSTNAME; with no
 * public URL at all, responses built from Host say `Vary: Host` and are private.
 */
const KEYS_ENV = {
  MEMORY_AUTH: "keys",
  MEMORY_API_KEYS: JSON.stringify([{ id: "disc", sha256: hashApiKey("cmk_discovery"), workspaces: ["*"], access: "read" }]),
};
const METADATA = "/.well-known/oauth-protected-resource/api/mcp";
const EVIL = { host: "evil.example" };

function headerList(value: string | string[] | undefined): string[] {
  return (Array.isArray(value) ? value.join(",") : (value ?? "")).split(",").map((part) => part.trim().toLowerCase());
}

describe("the public URL", () => {
  test("is https://$WEBSITE_HOSTNAME under Azure when MEMORY_PUBLIC_URL is unset; MEMORY_PUBLIC_URL wins", () => {
    expect(readAuthSettings({ MEMORY_AUTH: "none", WEBSITE_HOSTNAME: "memory.azurewebsites.net" }).publicUrl).toBe(
      "https://memory.azurewebsites.net",
    );
    expect(
      readAuthSettings({
        MEMORY_AUTH: "none",
        WEBSITE_HOSTNAME: "memory.azurewebsites.net",
        MEMORY_PUBLIC_URL: "https://memory.example.com",
      }).publicUrl,
    ).toBe("https://memory.example.com");
    expect(readAuthSettings({ MEMORY_AUTH: "none" }).publicUrl).toBeUndefined();
  });
});

describe("under Azure (WEBSITE_HOSTNAME set)", () => {
  let server: TestServer;
  withTestServer(
    (started) => {
      server = started;
    },
    { env: { ...KEYS_ENV, WEBSITE_HOSTNAME: "memory.azurewebsites.net" } },
  );

  test("a foreign Host changes neither the metadata nor the 401 challenge; the document stays publicly cacheable", async () => {
    const document = await rawRequest(`${server.url}${METADATA}`, { method: "GET", headers: EVIL });
    expect(document.status).toBe(200);
    expect(JSON.parse(document.body).resource).toBe("https://memory.azurewebsites.net/api/mcp");
    expect(document.headers["cache-control"]).toBe("public, max-age=300");
    const challenge = await rawRequest(`${server.url}/api/mcp`, {
      method: "POST",
      headers: { ...EVIL, "content-type": "application/json" },
      body: "{}",
    });
    expect(challenge.status).toBe(401);
    expect(challenge.headers["www-authenticate"]).toBe(
      `Bearer resource_metadata="https://memory.azurewebsites.net/.well-known/oauth-protected-resource/api/mcp"`,
    );
  });
});

describe("with no public URL", () => {
  let server: TestServer;
  withTestServer(
    (started) => {
      server = started;
    },
    { env: KEYS_ENV },
  );

  test("responses built from the Host header vary with it, and no shared cache may keep the document", async () => {
    const document = await rawRequest(`${server.url}${METADATA}`, { method: "GET", headers: EVIL });
    expect(JSON.parse(document.body).resource).toBe("http://evil.example/api/mcp");
    expect(document.headers["cache-control"]).toBe("private, max-age=300");
    expect(headerList(document.headers.vary)).toContain("host");
    const challenge = await rawRequest(`${server.url}/api/mcp`, {
      method: "POST",
      headers: { ...EVIL, "content-type": "application/json" },
      body: "{}",
    });
    expect(challenge.status).toBe(401);
    expect(headerList(challenge.headers.vary)).toContain("host");
  });
});
