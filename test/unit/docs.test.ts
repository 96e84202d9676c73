import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

import { describe, expect, test } from "@jest/globals";

import { parseBenchArgs } from "../../bench/lib/args.js";
import { githubAnchor, renderToolsReference, toolAnchor, withReadmeToolTable } from "../../scripts/toolsReference.js";
import { taggingLine, tagLine } from "../../src/cli/memoryFile.js";
import { ALL_TOOLS } from "../../src/mcp/tools/index.js";

/**
 * The documentation stays true to the code: the generated reference is current, every link and every
 * repository path the docs, infra and workflows cite exists, and the commands they give are real.
 * No storage: these read files only.
 */

function filesUnder(dir: string, suffix: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path, suffix) : path.endsWith(suffix) ? [path] : [];
  });
}

const MARKDOWN = ["README.md", ...filesUnder("docs", ".md"), ...filesUnder("bench/results", ".md")];
const read = (file: string): string => readFileSync(file, "utf8");

/** Markdown with fenced code blocks blanked out (line numbers kept), where links and headings are not markup. */
function withoutFences(markdown: string): string {
  let fenced = false;
  return markdown
    .split("\n")
    .map((line) => {
      if (line.startsWith("```")) fenced = !fenced;
      return fenced || line.startsWith("```") ? "" : line;
    })
    .join("\n");
}

/** The anchors GitHub gives a file's headings (a repeated heading gets -1, -2, …). */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of withoutFences(read(file)).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = githubAnchor(heading!);
    const count = seen.get(base) ?? 0;
    anchors.add(count === 0 ? base : `${base}-${count}`);
    seen.set(base, count + 1);
  }
  return anchors;
}

/** Every `[text](target)` outside code, with the target as written. */
function linksOf(file: string): string[] {
  const prose = withoutFences(read(file)).replace(/`[^`\n]*`/g, "``");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
}

/** Problems with one link from `file`: a missing file, or an anchor its target has no heading for. */
function brokenLink(file: string, target: string): string | undefined {
  if (/^[a-z]+:/i.test(target)) return undefined; // https:, mailto:: not ours to check
  const [path, anchor] = target.split("#") as [string, string | undefined];
  const resolved = path === "" ? file : normalize(join(dirname(file), path));
  if (!existsSync(resolved)) return `${file}: ${target} (no such file: ${resolved})`;
  if (anchor !== undefined && resolved.endsWith(".md") && !anchorsOf(resolved).has(anchor)) {
    return `${file}: ${target} (no heading with anchor #${anchor} in ${resolved})`;
  }
  return undefined;
}

/** Repository paths named in a file's text: docs/…, infra/…, src/…, test/…, bench/…, scripts/… (build output excluded). */
function citedPaths(text: string): string[] {
  return [...text.matchAll(/(?<![\w./-])((?:docs|infra|src|test|bench|scripts)\/[\w./-]*[\w/])/g)].map((match) => match[1]!);
}

describe("generated reference", () => {
  test("docs/tools.md is what `npm run docs` renders from ALL_TOOLS (run it after changing a tool)", () => {
    expect(read("docs/tools.md")).toBe(renderToolsReference(ALL_TOOLS));
  });

  test("the README's tool table is what `npm run docs` renders", () => {
    const readme = read("README.md");
    expect(withReadmeToolTable(readme, ALL_TOOLS)).toBe(readme);
  });

  test("the README lists every tool once, linked to its section of docs/tools.md", () => {
    const readme = read("README.md");
    const anchors = anchorsOf("docs/tools.md");
    for (const tool of ALL_TOOLS) {
      const link = `[\`${tool.name}\`](docs/tools.md#${toolAnchor(tool)})`;
      expect(readme.split(link).length - 1).toBe(1);
      expect(anchors.has(toolAnchor(tool))).toBe(true);
    }
  });

  test("the reference documents read_graph's `tags` on entities, which mode 'names' returns too", () => {
    const section = read("docs/tools.md").split("### read_graph")[1]?.split("\n### ")[0] ?? "";
    expect(section).toContain("| `entities[].tags` |");
  });
});

describe("links and cited files", () => {
  test("the docs are found (so an empty list cannot pass)", () => {
    expect(MARKDOWN.length).toBeGreaterThan(8);
    expect(MARKDOWN.flatMap(linksOf).length).toBeGreaterThan(50);
  });

  test("every relative link in README.md, docs/ and bench/results/ reaches a file, and its anchor a heading", () => {
    expect(MARKDOWN.flatMap((file) => linksOf(file).map((target) => brokenLink(file, target))).filter(Boolean)).toEqual([]);
  });

  test("a broken link or anchor is reported (the checker can fail)", () => {
    expect(brokenLink("README.md", "docs/nowhere.md")).toContain("no such file");
    expect(brokenLink("README.md", "docs/tools.md#no-such-tool")).toContain("no heading");
    expect(brokenLink("README.md", "docs/tools.md#read_graph")).toBeUndefined();
  });

  test("every repository path that the docs, azure.yaml, infra/ and the workflows cite exists", () => {
    const citing = [
      ...MARKDOWN,
      "azure.yaml",
      ...filesUnder("infra", ".bicep"),
      ...filesUnder("infra", ".json"),
      ...filesUnder(".github", ".yml"),
    ];
    const cited = citing.flatMap((file) => citedPaths(read(file)).map((path) => ({ file, path })));
    expect(cited.length).toBeGreaterThan(20);
    expect(cited.filter(({ path }) => !existsSync(path))).toEqual([]);
  });
});

describe("docs cited by the code", () => {
  test("every docs/….md (and its #anchor) that a comment in src/, test/, bench/ or scripts/ cites exists", () => {
    // This file names broken links on purpose, to show that the checker fails.
    const code = ["src", "test", "bench", "scripts"]
      .flatMap((dir) => filesUnder(dir, ".ts"))
      .filter((file) => !file.endsWith("docs.test.ts"));
    const cited = code.flatMap((file) =>
      [...read(file).matchAll(/(?<![\w/])(docs\/[\w/-]+\.md(?:#[\w-]+)?)/g)].map((match) => ({ file, target: match[1]! })),
    );
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.map(({ file, target }) => brokenLink("README.md", target)?.replace("README.md", file)).filter(Boolean)).toEqual([]);
  });
});

describe("what the docs promise", () => {
  const readme = read("README.md");

  test("the README is the front door: at most 250 lines, the Node version stated before the first command", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(250);
    const node = readme.indexOf("Node.js 20");
    expect(node).toBeGreaterThan(-1);
    expect(node).toBeLessThan(readme.indexOf("npm start"));
  });

  test("CI runs the type check, lint and tests, as the docs say", () => {
    const runs = filesUnder(".github/workflows", ".yml").flatMap((file) =>
      [...read(file).matchAll(/^\s*(?:-\s*)?run:\s*(.+)$/gm)].map((match) => match[1]!.trim()),
    );
    const runsAll =
      runs.includes("npm run check") || ["npm run typecheck", "npm run lint", "npm test"].every((command) => runs.includes(command));
    expect({ runs, runsAll }).toEqual({ runs, runsAll: true });
  });

  test("every `npm run <script>` in the docs is a script of package.json", () => {
    const scripts = Object.keys((JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts);
    const named = MARKDOWN.flatMap((file) => [...read(file).matchAll(/npm run ([\w:-]+)/g)].map((match) => match[1]!));
    expect(named.length).toBeGreaterThan(10);
    expect([...new Set(named)].filter((name) => !scripts.includes(name))).toEqual([]);
  });

  test("every `npm run bench -- …` command in the docs has flags the bench accepts", () => {
    const commands = MARKDOWN.flatMap((file) => [...read(file).matchAll(/npm run bench -- ([^`\n#]+)/g)].map((match) => match[1]!.trim()));
    expect(commands.length).toBeGreaterThan(5);
    for (const command of commands.filter((c) => !c.includes("--help"))) expect(() => parseBenchArgs(command.split(/\s+/))).not.toThrow();
  });

  test("docs/development.md gives a quick bench run", () => {
    expect(read("docs/development.md")).toMatch(/npm run bench -- --entities \d+ /);
  });

  test("the import/export doc names every tag line type export writes, and that server-memory drops them when it saves", () => {
    const doc = read("docs/import-export.md");
    const lines = [tagLine({ name: "t", category: "", description: "" }), taggingLine("e", undefined, ["t"]), taggingLine("e", "o", ["t"])];
    for (const line of lines) expect(doc).toContain(`"type":"${(JSON.parse(line) as { type: string }).type}"`);
    expect(doc).toMatch(/next save/);
  });

  test("func start is documented with what it needs: Core Tools and a full Azurite", () => {
    const doc = read("docs/development.md");
    expect(doc).toContain("func start");
    expect(doc).toMatch(/Azure Functions Core Tools/);
    expect(doc).toMatch(/blob, queue and table/);
  });
});
