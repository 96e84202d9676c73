import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { describe, expect, test } from "@jest/globals";

import { readAuthSettings } from "../../src/config/auth.js";
import { isLoopbackHost } from "../../src/config/kinds.js";
import { hashApiKey } from "../../src/http/auth/apiKeyVerifier.js";

/** Start-up validation of the auth settings: every mistake is refused with a message naming the setting. */
const KEY = { id: "ci-bot", sha256: hashApiKey("k"), workspaces: ["team-*"], access: "write" };
const ENTRA = {
  MEMORY_AUTH: "entra",
  MEMORY_ENTRA_TENANT_ID: "contoso.onmicrosoft.com",
  MEMORY_ENTRA_AUDIENCE: "api://memory",
  MEMORY_ENTRA_GRANTS: '[{"role":"R","workspaces":["*"],"access":"read"}]',
};

function problems(env: Record<string, string>): string {
  try {
    readAuthSettings(env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected the settings to be refused");
}

describe("MEMORY_AUTH unset", () => {
  test("means none only for the local server on loopback outside Azure", () => {
    expect(readAuthSettings({}, { localLoopback: true }).mode).toEqual({ kind: "none", defaulted: true });
    expect(readAuthSettings({}, { localLoopback: false }).mode).toEqual({ kind: "unset" });
    expect(readAuthSettings({}).mode).toEqual({ kind: "unset" });
    expect(readAuthSettings({ WEBSITE_SITE_NAME: "memory-prod" }, { localLoopback: true }).mode).toEqual({ kind: "unset" });
  });

  test.each([
    ["127.0.0.1", true],
    ["127.5.0.1", true],
    ["localhost", true],
    ["::1", true],
    ["[::1]", true],
    ["0.0.0.0", false],
    ["::", false],
    ["10.0.0.4", false],
    ["memory.example.com", false],
  ])("host %s is loopback: %s", (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

describe("valid settings", () => {
  test("keys inline or from a file, Entra from the tenant, several methods and origins", () => {
    const inline = readAuthSettings({
      MEMORY_AUTH: "keys",
      MEMORY_API_KEYS: JSON.stringify([{ ...KEY, sha256: KEY.sha256.toUpperCase() }]),
    });
    expect(inline.mode).toEqual({ kind: "required", keys: [KEY] });
    const file = join(mkdtempSync(join(tmpdir(), "keys-")), "keys.json");
    writeFileSync(file, JSON.stringify([KEY]));
    const both = readAuthSettings({
      ...ENTRA,
      MEMORY_AUTH: "keys, Entra",
      MEMORY_API_KEYS_FILE: file,
      MEMORY_ALLOWED_ORIGINS: "https://a.example.com, http://localhost:6274",
    });
    expect(both).toEqual({
      mode: {
        kind: "required",
        keys: [KEY],
        entra: {
          issuer: "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0",
          jwksUrl: "https://login.microsoftonline.com/contoso.onmicrosoft.com/discovery/v2.0/keys",
          audiences: ["api://memory"],
          grants: [{ role: "R", workspaces: ["*"], access: "read" }],
          scopes: ["api://memory/.default"],
        },
      },
      allowedOrigins: ["https://a.example.com", "http://localhost:6274"],
    });
    expect(readAuthSettings({ MEMORY_AUTH: "none", MEMORY_PUBLIC_URL: "https://memory.example.com/" }).publicUrl).toBe(
      "https://memory.example.com",
    );
  });
});

describe("invalid settings stop the server with messages naming the setting", () => {
  test.each([
    [{ MEMORY_AUTH: "open" }, "MEMORY_AUTH: 'open' is not one of none, keys, entra, keys,entra."],
    [{ MEMORY_AUTH: "none,keys" }, "MEMORY_AUTH: 'none,keys' is not one of"],
    [{ MEMORY_AUTH: "keys" }, "neither MEMORY_API_KEYS nor MEMORY_API_KEYS_FILE is set"],
    [{ MEMORY_AUTH: "keys", MEMORY_API_KEYS: "[", MEMORY_API_KEYS_FILE: "x" }, "MEMORY_API_KEYS and MEMORY_API_KEYS_FILE are both set"],
    [{ MEMORY_AUTH: "keys", MEMORY_API_KEYS: "[{id:1}]" }, "MEMORY_API_KEYS is not valid JSON"],
    [{ MEMORY_AUTH: "keys", MEMORY_API_KEYS: "[]" }, "MEMORY_API_KEYS: lists no keys"],
    [
      { MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify([{ ...KEY, sha256: "abc" }]) },
      "MEMORY_API_KEYS[0].sha256: must be the 64-hex-digit SHA-256",
    ],
    [
      { MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify([{ ...KEY, workspaces: ["team/*"] }]) },
      "MEMORY_API_KEYS[0].workspaces[0]: must be a workspace name",
    ],
    [{ MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify([{ ...KEY, access: "admin" }]) }, "MEMORY_API_KEYS[0].access"],
    [{ MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify([{ ...KEY, key: "plain" }]) }, 'MEMORY_API_KEYS[0]: Unrecognized key: "key"'],
    [
      { MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify([KEY, { ...KEY, sha256: hashApiKey("other") }]) },
      "MEMORY_API_KEYS[1].id: 'ci-bot' is used twice",
    ],
    [{ MEMORY_AUTH: "keys", MEMORY_API_KEYS: JSON.stringify([KEY, { ...KEY, id: "twin" }]) }, "MEMORY_API_KEYS[1].sha256: is used twice"],
    [
      { MEMORY_AUTH: "keys", MEMORY_API_KEYS_FILE: "/nonexistent/keys.json" },
      "MEMORY_API_KEYS_FILE (/nonexistent/keys.json): cannot read the file (ENOENT).",
    ],
    [{ ...ENTRA, MEMORY_ENTRA_TENANT_ID: "" }, "MEMORY_ENTRA_TENANT_ID is not set"],
    [{ ...ENTRA, MEMORY_ENTRA_AUDIENCE: "" }, "MEMORY_ENTRA_AUDIENCE (the app's client id or Application ID URI) is not set"],
    [{ ...ENTRA, MEMORY_ENTRA_GRANTS: "" }, "MEMORY_ENTRA_GRANTS (JSON [{role|group|oid, workspaces, access}]) is not set"],
    [
      { ...ENTRA, MEMORY_ENTRA_GRANTS: '[{"role":"R","group":"G","workspaces":["*"],"access":"read"}]' },
      "MEMORY_ENTRA_GRANTS[0]: give exactly one of role, group or oid",
    ],
    [
      { ...ENTRA, MEMORY_ENTRA_JWKS_URL: "http://keys.example.com/keys" },
      "MEMORY_ENTRA_JWKS_URL: 'http://keys.example.com/keys' must be an https URL",
    ],
    [
      { MEMORY_AUTH: "none", MEMORY_ALLOWED_ORIGINS: "https://a.example.com/app" },
      "MEMORY_ALLOWED_ORIGINS: 'https://a.example.com/app' is not an origin",
    ],
    [
      { MEMORY_AUTH: "none", MEMORY_PUBLIC_URL: "memory.example.com" },
      "MEMORY_PUBLIC_URL: 'memory.example.com' must be scheme://host[:port]",
    ],
  ])("%j", (env, message) => {
    expect(problems(env)).toContain(message);
  });

  test("all problems are reported at once", () => {
    const message = problems({ MEMORY_AUTH: "keys,entra", MEMORY_ALLOWED_ORIGINS: "nope" });
    expect(message.split("\n  - ")).toHaveLength(1 + 5);
    expect(message).toMatch(/^Invalid authentication settings:/);
  });
});
