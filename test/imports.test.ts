import { describe, expect, test } from "@jest/globals";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";

/**
 * The import graph, read with TypeScript's own pre-processor (type-only imports count too: a
 * cycle of types still ties modules together). No cycles anywhere; the CLI, which calls the
 * domain directly, reaches nothing in src/http; src/config, which every door reads, depends on no door.
 */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

const files = ["src", "bench", "test"].flatMap(sourceFiles).map((file) => file.replaceAll("\\", "/"));

/** Relative imports of `file`, as repository paths of .ts files. */
function importsOf(file: string): string[] {
  return ts
    .preProcessFile(readFileSync(file, "utf8"), true, true)
    .importedFiles.map(({ fileName }) => fileName)
    .filter((name) => name.startsWith("."))
    .map((name) => relative(".", join(dirname(file), name.replace(/\.js$/, ".ts"))).replaceAll("\\", "/"))
    .filter((path) => existsSync(path));
}

const graph = new Map(files.map((file) => [file, importsOf(file)]));

function cycles(): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (file: string, path: string[]) => {
    if (state.get(file) === "done") return;
    if (state.get(file) === "open") {
      found.push([...path.slice(path.indexOf(file)), file]);
      return;
    }
    state.set(file, "open");
    for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    state.set(file, "done");
  };
  for (const file of graph.keys()) visit(file, []);
  return found;
}

function reachableFrom(entry: string): Set<string> {
  const seen = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const next of graph.get(file) ?? []) walk(next);
  };
  walk(entry);
  return seen;
}

describe("import graph", () => {
  test("the reader sees the graph (so an empty one cannot pass)", () => {
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get("src/cli/main.ts")).toContain("src/cli/command.ts");
  });

  test("has no cycles", () => {
    expect(cycles()).toEqual([]);
  });

  test("the CLI reaches nothing in src/http", () => {
    expect([...reachableFrom("src/cli/main.ts")].filter((file) => file.startsWith("src/http/"))).toEqual([]);
  });

  test("src/config depends on no door and no HTTP code", () => {
    const config = files.filter((file) => file.startsWith("src/config/"));
    const outside = config.flatMap((file) => graph.get(file)!.filter((to) => /^src\/(http|local|functions|cli)\//.test(to)));
    expect(outside).toEqual([]);
  });
});
