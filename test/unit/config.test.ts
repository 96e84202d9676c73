import { describe, expect, test } from "@jest/globals";

import { InvalidSettingsError, type SettingProblem } from "../../src/config/problems.js";
import { type Door, readSettings } from "../../src/config/settings.js";
import { SETTINGS } from "../../src/config/table.js";

/** The settings table read as each door reads it: pure, no storage. */
function problemsOf(env: NodeJS.ProcessEnv, door: Door): readonly SettingProblem[] {
  try {
    readSettings(env, door);
  } catch (error) {
    if (error instanceof InvalidSettingsError) return error.problems;
    throw error;
  }
  throw new Error("expected the settings to be refused");
}

describe("readSettings", () => {
  test("every problem in every group at once, each naming the setting and what it expects from the table, never the value", () => {
    const env = {
      PORT: "seventy",
      MEMORY_TABLE_NAME: "no-dashes-s3cret",
      MEMORY_TOOLSETS: "core,nope",
      MEMORY_AUTH: "keys",
      MEMORY_API_KEYS: "[]",
      MEMORY_STORAGE_MAX_RETRIES: "many",
      MEMORY_ALLOWED_ORIGINS: "https://ok.example.com, ftp://s3cret.example.com",
    };
    const problems = problemsOf(env, "local");
    expect(problems.map(({ setting }) => setting)).toEqual([
      "PORT",
      "MEMORY_API_KEYS",
      "MEMORY_ALLOWED_ORIGINS",
      "MEMORY_TOOLSETS",
      "MEMORY_STORAGE_MAX_RETRIES",
      "MEMORY_TABLE_NAME",
    ]);
    for (const { setting, expected } of problems) {
      expect(expected).not.toContain("s3cret");
      if (setting !== "MEMORY_API_KEYS") expect(expected).toBe(SETTINGS[setting as keyof typeof SETTINGS].kind.expected);
    }
    expect(problems.find(({ setting }) => setting === "MEMORY_TABLE_NAME")!.message).toContain("'no-dashes-s3cret'"); // the log may quote it
  });

  test("valid settings: the defaults from the table, and each value parsed", () => {
    const defaults = readSettings({}, "local");
    expect(defaults).toMatchObject({
      storage: { kind: "none", tableName: "memorygraph" },
      storageClient: { timeoutMs: 10_000, maxRetries: 2, historyRetentionDays: 0 },
      azuriteFolder: ".azurite",
      requestTimeoutMs: 120_000,
      listen: { host: "127.0.0.1", port: 7071 },
      auth: { mode: { kind: "none", defaulted: true } },
    });
    const given = readSettings(
      {
        MEMORY_STORAGE_TABLE_ENDPOINT: "https://acct.table.core.windows.net",
        AZURE_CLIENT_ID: "id-1",
        MEMORY_STORAGE_CONNECTION_STRING: "ignored: the endpoint takes precedence",
        MEMORY_TABLE_NAME: "other1",
        MEMORY_STORAGE_TIMEOUT_MS: "500",
        MEMORY_STORAGE_MAX_RETRIES: "0",
        MEMORY_REQUEST_TIMEOUT_MS: "900",
        MEMORY_TOOLSETS: "graph",
        MEMORY_AZURITE_FOLDER: "/data/memory",
      },
      "functions",
    );
    expect(given).toMatchObject({
      storage: { kind: "identity", endpoint: "https://acct.table.core.windows.net", clientId: "id-1", tableName: "other1" },
      storageClient: { timeoutMs: 500, maxRetries: 0, historyRetentionDays: 0 },
      requestTimeoutMs: 900,
      azuriteFolder: "/data/memory",
      auth: { mode: { kind: "unset" } },
    });
    expect([...given.toolsets]).toEqual(["graph"]);
  });

  test("Functions has no embedded storage: none configured is a problem there, not at the local doors", () => {
    expect(problemsOf({ MEMORY_AUTH: "none" }, "functions")).toEqual([
      expect.objectContaining({ setting: "MEMORY_STORAGE_CONNECTION_STRING", expected: expect.stringContaining("AzureWebJobsStorage") }),
    ]);
    expect(readSettings({ AzureWebJobsStorage: "UseDevelopmentStorage=true" }, "functions").storage).toMatchObject({
      source: "AzureWebJobsStorage",
    });
    expect(readSettings({}, "cli").storage.kind).toBe("none");
  });

  test("the CLI reads only what it uses: the longer storage timeout, and no auth or tool settings to trip over", () => {
    const cli = readSettings({ MEMORY_AUTH: "bogus", MEMORY_TOOLSETS: "nope", MEMORY_REQUEST_TIMEOUT_MS: "x" }, "cli");
    expect(cli.storageClient.timeoutMs).toBe(60_000);
    expect(readSettings({ MEMORY_STORAGE_TIMEOUT_MS: "5" }, "cli").storageClient.timeoutMs).toBe(5);
    expect(problemsOf({ MEMORY_STORAGE_TIMEOUT_MS: "5s" }, "cli").map(({ setting }) => setting)).toEqual(["MEMORY_STORAGE_TIMEOUT_MS"]);
  });

  test("on Azure the public URL defaults to https://$WEBSITE_HOSTNAME; MEMORY_PUBLIC_URL wins; elsewhere there is none", () => {
    const azure = { MEMORY_AUTH: "none", WEBSITE_HOSTNAME: "memory-prod.azurewebsites.net", AzureWebJobsStorage: "x" };
    expect(readSettings(azure, "functions").auth.publicUrl).toBe("https://memory-prod.azurewebsites.net");
    expect(readSettings({ ...azure, MEMORY_PUBLIC_URL: "https://memory.example.com/" }, "functions").auth.publicUrl).toBe(
      "https://memory.example.com",
    );
    expect(readSettings({ MEMORY_AUTH: "none" }, "local").auth.publicUrl).toBeUndefined();
    expect(problemsOf({ ...azure, WEBSITE_HOSTNAME: "bad/host" }, "functions").map(({ setting }) => setting)).toEqual(["WEBSITE_HOSTNAME"]);
  });

  test("a local server on loopback allows loopback origins and checks the Host; not on another address, or under Functions", () => {
    const auth = (env: NodeJS.ProcessEnv, door: Door = "local") => readSettings({ MEMORY_AUTH: "none", ...env }, door).auth;
    const listed = auth({ PORT: "7071", MEMORY_ALLOWED_ORIGINS: "https://app.example.com, http://localhost:7071" });
    expect(listed.allowedOrigins).toEqual(["https://app.example.com", "http://localhost:7071"]);
    expect(listed.loopbackOnly).toBe(true);
    expect(auth({ PORT: "0" }).loopbackOnly).toBe(true);
    expect(auth({ HOST: "0.0.0.0", PORT: "7071" }).loopbackOnly).toBeUndefined();
    expect(auth({ AzureWebJobsStorage: "x" }, "functions").loopbackOnly).toBeUndefined();
    expect(auth({ AzureWebJobsStorage: "x" }, "functions").allowedOrigins).toEqual([]);
  });

  test("every row of the table documents itself: a one-line doc, a default and what it expects", () => {
    for (const [name, spec] of Object.entries(SETTINGS)) {
      const row = {
        name,
        oneLineDoc: spec.doc.length > 10 && !spec.doc.includes("\n"),
        default: spec.default !== "",
        expects: spec.kind.expected !== "",
      };
      expect(row).toEqual({ name, oneLineDoc: true, default: true, expects: true });
    }
  });
});
