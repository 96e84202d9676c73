import { describe, expect, test } from "@jest/globals";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * Configuration drift between the code, the Bicep app settings and docs/configuration.md, found by parsing
 * all three (no list is written down twice). Settings the Functions host reads itself are named by
 * their prefixes below, because the app never reads them.
 */
const HOST_OWNED = [/^AzureWebJobsStorage__/, /^APPLICATIONINSIGHTS_/];
/** Modules that never run in Azure: the local server and the CLI. */
const NOT_IN_AZURE = [/^src\/local\//, /^src\/cli\//];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** Setting names the code reads: `env.NAME`, `env?.NAME` or `env["NAME"]` on any env object. */
function settingsReadBy(files: string[]): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    for (const match of readFileSync(file, "utf8").matchAll(
      /\benv\??\.([A-Za-z_][A-Za-z0-9_]*)|\benv\[["']([A-Za-z_][A-Za-z0-9_]*)["']\]/g,
    )) {
      names.add((match[1] ?? match[2])!);
    }
  }
  return names;
}

/** Names in the single `var appSettings = { … }` block of infra/app/api.bicep. */
function bicepAppSettings(): Set<string> {
  const bicep = readFileSync("infra/app/api.bicep", "utf8");
  const block = /var appSettings = \{\n([\s\S]*?)\n\}/.exec(bicep)?.[1];
  if (!block) throw new Error("infra/app/api.bicep has no `var appSettings = {` block");
  return new Set(
    block
      .split("\n")
      .map((line) => /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:/.exec(line)?.[1])
      .filter((name): name is string => !!name),
  );
}

/** Names in the first column of the settings table in docs/configuration.md. */
function documentedSettings(): Set<string> {
  const section = readFileSync("docs/configuration.md", "utf8");
  const names = new Set<string>();
  for (const row of section.split("\n").filter((line) => line.startsWith("| `"))) {
    for (const match of (row.split("|")[1] ?? "").matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)) names.add(match[1]!);
  }
  return names;
}

const all = sourceFiles("src").map((file) => file.replaceAll("\\", "/"));
const inAzure = settingsReadBy(all.filter((file) => !NOT_IN_AZURE.some((pattern) => pattern.test(file))));
const everywhere = settingsReadBy(all);
const deployed = bicepAppSettings();
const documented = documentedSettings();

describe("configuration drift", () => {
  test("the parsers find something (so an empty result cannot pass)", () => {
    expect(inAzure.size).toBeGreaterThan(5);
    expect(deployed.size).toBeGreaterThan(5);
    expect(documented.size).toBeGreaterThan(5);
  });

  test("every setting the code reads in Azure is set by the Bicep app settings or documented as optional", () => {
    expect([...inAzure].filter((name) => !deployed.has(name) && !documented.has(name))).toEqual([]);
  });

  test("every app setting the Bicep sets is read by the code, or by the Functions host", () => {
    const unread = [...deployed].filter((name) => !everywhere.has(name) && !HOST_OWNED.some((pattern) => pattern.test(name)));
    expect(unread).toEqual([]);
  });

  test("every setting the code reads anywhere is in the settings table of docs/configuration.md", () => {
    expect([...everywhere].filter((name) => !documented.has(name))).toEqual([]);
  });
});
