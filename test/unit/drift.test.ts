import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, test } from "@jest/globals";

import { configurationReference } from "../../src/config/reference.js";
import { SETTINGS, type Topic } from "../../src/config/table.js";

/**
 * Configuration drift between the code, the settings table (src/config/table.ts), the Bicep app
 * settings and the reference (docs/configuration.md), found by parsing them (no list is written
 * down twice). Settings the Functions host reads itself are named by their prefixes below,
 * because the app never reads them.
 */
const HOST_OWNED = [/^AzureWebJobsStorage__/, /^APPLICATIONINSIGHTS_/];
/** Settings that are never read in Azure: the local server's, the CLI's and the bench's. */
const NOT_IN_AZURE: readonly Topic[] = ["Local server and CLI", "Benchmarks"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

const code = [...sourceFiles("src"), ...sourceFiles("bench")].map((file) => ({ file, text: readFileSync(file, "utf8") }));

/** Names matched by `pattern` (first capture group that matched) across the code. */
function namesIn(pattern: RegExp, files = code): Set<string> {
  const names = new Set<string>();
  for (const { text } of files) for (const match of text.matchAll(pattern)) names.add(match.slice(1).find((group) => group)!);
  return names;
}

/** Read straight from an environment object, past the table: `env.NAME`, `env?.NAME` or `env["NAME"]`. */
const readDirectly = namesIn(/\benv\??\.([A-Za-z_][A-Za-z0-9_]*)|\benv\[["']([A-Za-z_][A-Za-z0-9_]*)["']\]/g);
/** Read through the table's reader: `.get("NAME")`, `.raw("NAME")`, `.parse("NAME", …)`. */
const readThroughTable = namesIn(
  /\.(?:get|raw|parse)\("([A-Za-z_][A-Za-z0-9_]*)"/g,
  code.filter(({ file }) => file.replaceAll("\\", "/").startsWith("src/config/")),
);
const table = new Set(Object.keys(SETTINGS));
const inAzure = new Set(
  Object.entries(SETTINGS)
    .filter(([, spec]) => !NOT_IN_AZURE.includes(spec.topic))
    .map(([name]) => name),
);

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

/** Names in the first column of the reference's tables. */
function documentedSettings(): Set<string> {
  const names = new Set<string>();
  for (const row of readFileSync("docs/configuration.md", "utf8")
    .split("\n")
    .filter((line) => line.startsWith("| `"))) {
    for (const match of (row.split("|")[1] ?? "").matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)) names.add(match[1]!);
  }
  return names;
}

const deployed = bicepAppSettings();
const documented = documentedSettings();

describe("configuration drift", () => {
  test("the parsers find something (so an empty result cannot pass)", () => {
    expect(readThroughTable.size).toBeGreaterThan(15);
    expect(readDirectly.size).toBeGreaterThan(0);
    expect(deployed.size).toBeGreaterThan(5);
    expect(documented.size).toBeGreaterThan(15);
  });

  test("every setting the code reads, through the table's reader or straight from an env object, is in the table", () => {
    expect([...readThroughTable, ...readDirectly].filter((name) => !table.has(name))).toEqual([]);
  });

  test("every setting in the table is read by the code (no row documents a setting nothing reads)", () => {
    expect([...table].filter((name) => !readThroughTable.has(name) && !readDirectly.has(name))).toEqual([]);
  });

  test("every setting the code reads in Azure is set by the Bicep app settings or documented as optional", () => {
    expect([...inAzure].filter((name) => !deployed.has(name) && !documented.has(name))).toEqual([]);
  });

  test("every app setting the Bicep sets is read by the code, or by the Functions host", () => {
    const unread = [...deployed].filter((name) => !table.has(name) && !HOST_OWNED.some((pattern) => pattern.test(name)));
    expect(unread).toEqual([]);
  });

  test("every setting in the table is in docs/configuration.md's tables", () => {
    expect([...table].filter((name) => !documented.has(name))).toEqual([]);
  });

  test("docs/configuration.md is what `npm run docs` writes from the table (run it after changing a setting)", () => {
    expect(readFileSync("docs/configuration.md", "utf8")).toBe(configurationReference());
  });
});
