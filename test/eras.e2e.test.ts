import type { HttpFunctionOptions } from "@azure/functions";
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import { ALL_TOOLS } from "../src/mcp/tools/index.js";
import { functionsFetch, registerFunctions } from "./support/functions.js";
import {
  connectClient,
  type Era,
  type McpTestClient,
  MODERN_PROTOCOL_VERSION,
  testConnectionString,
  type TestServer,
  uniqueWorkspace,
  withTestServer,
} from "./support/harness.js";

/**
 * Both protocol eras on one endpoint (docs/architecture.md#protocol-eras): a 2025-era client (the v1 SDK) and a 2026-07-28
 * client (the v2 SDK) each list the tools and run one script that calls every tool, on the unbound and the bound route,
 * through both doors (the local server over HTTP, the Functions handler in-process). Each run has its own workspace; after
 * normalising what legitimately differs (ids, times, versions, the workspace's name, cursors) every run's answers are the same.
 */

/** One call of the script: a tool and its arguments (without workspaceName, which the route decides), given the workspace. */
interface Step {
  tool: string;
  args?: Record<string, unknown> | ((ws: string) => Record<string, unknown>);
  /** The call is a mistake the server must answer with an error result of this kind (the same one in every run). */
  fails?: string;
}

const person = (name: string, observations: string[]) => ({ name, entityType: "person", observations });

/**
 * Calls every tool at least once; each succeeds except the mistakes. The destructive ones pass their explicit confirmations
 * (delete_workspace's `confirm`, merge_entities' `confirm: true`) and delete little; a tool that comes to need a
 * confirmation is adjusted here.
 */
const SCRIPT: Step[] = [
  { tool: "upsert_entity", args: { ...person("Alice", ["writes TypeScript", "likes tea"]), metadata: { team: "core" } } },
  {
    tool: "create_entities",
    args: {
      entities: [
        person("Bob", ["reviews code"]),
        { name: "Carol", entityType: "project", observations: ["a memory server"] },
        person("Dave", ["writes TypeScript"]),
        person("Eve", ["joined briefly"]),
        person("Alice Smith", ["writes TypeScript"]), // for detect_duplicate_entities to find
      ],
    },
  },
  { tool: "upsert_relation", args: { from: "Alice", to: "Carol", relationType: "works_on" } },
  {
    tool: "create_relations",
    args: {
      relations: [
        { from: "Bob", to: "Carol", relationType: "works_on" },
        { from: "Alice", to: "Bob", relationType: "knows" },
        { from: "Dave", to: "Carol", relationType: "works_on" },
      ],
    },
  },
  { tool: "add_observations", args: { observations: [{ entityName: "Bob", contents: ["likes tea"] }] } },
  { tool: "get_entity_relations", args: { entityName: "Alice", direction: "both" } },
  { tool: "read_graph" },
  { tool: "search_nodes", args: { query: "tea" } },
  { tool: "open_nodes", args: { names: ["Alice", "Carol"] } },
  // Mistakes: answered as tool results with isError, alike in both eras.
  { tool: "upsert_entity", args: { name: "Nameless" }, fails: "ValidationError" },
  { tool: "restore_entity", args: { entityName: "Nobody" }, fails: "NotFoundError" },
  { tool: "get_neighbors", args: { entityName: "Alice", depth: 99 }, fails: "ValidationError" },
  { tool: "define_tag", args: { name: "important", category: "priority", description: "Worth keeping" } },
  { tool: "tag_entity", args: { entityName: "Alice", tagNames: ["important", "reviewed"] } },
  { tool: "tag_observation", args: { entityName: "Alice", observationContent: "likes tea", tagNames: ["trivia"] } },
  { tool: "get_entities_by_tag", args: { tagName: "important" } },
  { tool: "get_all_tags" },
  { tool: "get_tag_usage" },
  { tool: "untag_observation", args: { entityName: "Alice", observationContent: "likes tea", tagNames: ["trivia"] } },
  { tool: "remove_tags_from_entity", args: { entityName: "Alice", tagNames: ["reviewed"] } },
  { tool: "delete_tags", args: { tagNames: ["reviewed"] } },
  { tool: "search_entities", args: { query: "TypeScript" } },
  { tool: "search_relations", args: { relationType: "works_on" } },
  { tool: "get_stats" },
  // The two times: a single-valued key, a supersession, an ended relation, an expiry and a sweep.
  { tool: "declare_fact_keys", args: { keys: [{ key: "status", singleValued: true }] } },
  { tool: "add_observations", args: { observations: [{ entityName: "Carol", contents: ["status: draft", "phase: one"] }] } },
  { tool: "supersede_observation", args: { entityName: "Carol", observation: "phase: one", replacement: "phase: two" } },
  { tool: "upsert_relation", args: { from: "Bob", to: "Alice", relationType: "mentors" } },
  { tool: "end_relation", args: { from: "Bob", to: "Alice", relationType: "mentors" } },
  { tool: "set_expiry", args: { entityName: "Carol", observation: "status: draft", expiresAt: "2999-01-01T00:00:00Z" } },
  { tool: "sweep_expired", args: { dryRun: true } },
  { tool: "list_conflicts" },
  { tool: "get_context", args: { query: "TypeScript", entityNames: ["Alice"], maxTokens: 500 } },
  { tool: "get_neighbors", args: { entityName: "Alice", depth: 2 } },
  { tool: "find_path", args: { from: "Alice", to: "Dave" } },
  { tool: "detect_duplicate_entities", args: { entityType: "person", threshold: 0.3 } },
  // apps (docs/apps.md): the tools that open an app, and the app-only ones, called as an app calls them.
  { tool: "show_memory_graph" },
  { tool: "show_memory_graph", args: { entityName: "Alice" } },
  { tool: "show_memory_graph", args: { query: "TypeScript" } },
  { tool: "review_duplicates", args: { entityType: "person", threshold: 0.3 } },
  { tool: "app_expand", args: { entityName: "Carol" } },
  { tool: "app_expand", args: { entityName: "Nobody" }, fails: "NotFoundError" },
  { tool: "app_filter", args: { entityType: "person" } },
  { tool: "app_entity_details", args: { entityName: "Carol", includeSuperseded: true } },
  { tool: "reject_duplicate_pair", args: { a: "Alice", b: "Alice Smith" } },
  { tool: "reject_duplicate_pair", args: { a: "Alice", b: "Alice" }, fails: "ValidationError" },
  {
    tool: "execute_batch",
    args: {
      atomic: true,
      operations: [
        { op: "upsert_entity", args: person("Frank", ["new here"]) },
        { op: "upsert_relation", args: { from: "Frank", to: "Carol", relationType: "works_on" } },
      ],
    },
  },
  { tool: "delete_observations", args: { deletions: [{ entityName: "Bob", observations: ["likes tea"] }] } },
  { tool: "delete_relations", args: { relations: [{ from: "Alice", to: "Bob", relationType: "knows" }] } },
  { tool: "delete_entities", args: { entityNames: ["Eve"] } },
  { tool: "restore_entity", args: { entityName: "Eve" } },
  { tool: "get_entity_history", args: { entityName: "Eve" } },
  { tool: "show_entity_timeline", args: { entityName: "Eve" } },
  // confirm: true is what a client that cannot ask its user will pass once merges ask for confirmation (ignored until then).
  { tool: "merge_entities", args: { target: "Alice", sources: ["Dave"], confirm: true } },
  { tool: "upsert_entity", args: person("Alice", ["merged Dave"]) },
  { tool: "get_changes", args: { order: "oldest" } },
  { tool: "list_workspaces" },
  { tool: "delete_workspace", args: (ws) => ({ confirm: ws }) },
];

/**
 * The app-only tools (docs/apps.md): a 2026-07-28 client that declares no MCP Apps extension (as these do) is not listed them,
 * so it cannot call them either (its SDK sends a tool's routing headers from the listing): its runs leave their steps out.
 */
const APP_ONLY = new Set(ALL_TOOLS.filter((tool) => tool.app?.visibility?.includes("model") === false).map((tool) => tool.name));
const stepsOf = (era: Era) => SCRIPT.filter((step) => era === "2025" || !APP_ONLY.has(step.tool));

type Route = "unbound" | "bound";
type Door = "local" | "functions";
interface Run {
  era: Era;
  route: Route;
  door: Door;
}
const RUNS: Run[] = (["local", "functions"] as const).flatMap((door) =>
  (["unbound", "bound"] as const).flatMap((route) => (["2025", "2026"] as const).map((era) => ({ era, route, door }))),
);
const label = ({ era, route, door }: Run) => `${era}/${route}/${door}`;

/** What one run saw: the tools its client listed, and each step's answer, normalised. */
interface Transcript {
  listed: string[];
  answers: { tool: string; isError: boolean; structured: unknown; text: unknown }[];
}

const FUNCTIONS_BASE = "http://localhost:7071";
let server: TestServer;
let registered: Map<string, HttpFunctionOptions>;
const transcripts = new Map<string, Transcript>();

beforeAll(async () => {
  process.env.MEMORY_STORAGE_CONNECTION_STRING = testConnectionString();
  process.env.MEMORY_AUTH = "none";
  registered = await registerFunctions();
});
withTestServer((started) => void (server = started));
afterAll(() => {
  delete process.env.MEMORY_STORAGE_CONNECTION_STRING;
  delete process.env.MEMORY_AUTH;
});

async function connect(run: Run, ws: string): Promise<McpTestClient> {
  const path = run.route === "bound" ? `/api/workspaces/${ws}/mcp` : "/api/mcp";
  return run.door === "local"
    ? connectClient(server.url, path, { era: run.era })
    : connectClient(FUNCTIONS_BASE, path, { era: run.era, fetch: functionsFetch(registered) });
}

async function runScript(run: Run): Promise<Transcript> {
  const ws = uniqueWorkspace(`era${run.era}`);
  const mcp = await connect(run, ws);
  try {
    // The era the connection really speaks, not just the one asked for.
    expect(mcp.modern?.getNegotiatedProtocolVersion() ?? "2025").toBe(run.era === "2026" ? MODERN_PROTOCOL_VERSION : "2025");
    const listed = (await mcp.client.listTools()).tools.map((tool) => tool.name).sort();
    const normalise = normaliser(ws);
    const answers: Transcript["answers"] = [];
    for (const step of stepsOf(run.era)) {
      const given = typeof step.args === "function" ? step.args(ws) : (step.args ?? {});
      const noWorkspace = ALL_TOOLS.find((tool) => tool.name === step.tool)?.noWorkspace === true;
      const args = run.route === "unbound" && !noWorkspace ? { workspaceName: ws, ...given } : given;
      const result = await mcp.call(step.tool, args);
      const structured = step.tool === "list_workspaces" ? onlyThisWorkspace(result.structuredContent, ws) : result.structuredContent;
      // An error's text is compared too: a tool with an exact (official) output schema carries its error as text only.
      const text = result.isError ? normalise(textOf(result)) : undefined;
      answers.push({ tool: step.tool, isError: result.isError === true, structured: normalise(structured), text });
    }
    return { listed, answers };
  } finally {
    await mcp.close();
  }
}

/** A result's first text block (for an error, the error's JSON). */
function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === "text" ? first.text : "";
}

/** list_workspaces lists every workspace of the shared test table: the run compares only its own. */
function onlyThisWorkspace(structured: unknown, ws: string): unknown {
  const { workspaces } = structured as { workspaces: { workspaceName: string }[] };
  return { workspaces: workspaces.filter((entry) => entry.workspaceName === ws) };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;
/** A change event's id: its time and a random suffix. */
const EVENT_ID = /~ev~\d+~[0-9a-f]+/g;
/** Opaque per-run values, by the field that holds them. */
const OPAQUE_FIELDS = new Set(["cursor", "nextCursor", "version", "expectedVersion", "etag"]);

/**
 * Replaces what differs between two runs of the same script: the workspace's name, times, event ids and opaque fields
 * become fixed placeholders; each id becomes `<id:N>` by the order it first appears, so which answers name the same
 * entity still counts. Some orders follow the rows' keys, which derive from the workspace's ids, so they differ too: an
 * event's changes and its summary's parts are compared as sets, a duplicate pair's two sides by name.
 */
function normaliser(ws: string): (value: unknown) => unknown {
  const ids = new Map<string, string>();
  const idOf = (id: string) => {
    const key = id.toLowerCase();
    if (!ids.has(key)) ids.set(key, `<id:${ids.size + 1}>`);
    return ids.get(key)!;
  };
  const text = (value: string) => value.split(ws).join("<ws>").replace(ISO_TIME, "<time>").replace(EVENT_ID, "<event>").replace(UUID, idOf);
  const walk = (value: unknown, key?: string): unknown => {
    if (key !== undefined && OPAQUE_FIELDS.has(key) && value !== undefined && value !== null) return `<${key}>`;
    if (key === "summary" && typeof value === "string") return text(unordered(value));
    // get_context's event items say the same as a summary, after the time.
    if (key === "text" && typeof value === "string" && / via [a-z_]+: /.test(value) && !value.includes("\n")) return text(unordered(value));
    if (typeof value === "string") return text(value);
    if (Array.isArray(value)) {
      const items = value.map((item) => walk(item));
      if (key === "changes") return items.sort(byContent);
      if (key === "pairs") return items.map(sidesByName);
      return items;
    }
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    return value;
  };
  return (value) => walk(value);
}

/** An event summary (`who via tool: part; part`) with its parts sorted. */
function unordered(summary: string): string {
  const at = summary.indexOf(": ");
  return at < 0
    ? summary
    : summary.slice(0, at + 2) +
        summary
          .slice(at + 2)
          .split("; ")
          .sort()
          .join("; ");
}

/** A duplicate pair with its sides in name order. */
function sidesByName(pair: unknown): unknown {
  const { a, b, ...rest } = pair as { a: { name: string }; b: { name: string } };
  return a.name <= b.name ? { a, b, ...rest } : { a: b, b: a, ...rest };
}

/** Orders normalised items by their content, ids left out (their numbering follows the order being undone). */
function byContent(a: unknown, b: unknown): number {
  const key = (item: unknown) => JSON.stringify(item).replace(/<id:\d+>/g, "<id>");
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}

describe("both protocol eras, every tool, both routes, both doors", () => {
  beforeAll(async () => {
    // Two runs at a time (one per era) keep the shared machine's load modest.
    for (let i = 0; i < RUNS.length; i += 2) {
      const pair = RUNS.slice(i, i + 2);
      const done = await Promise.all(pair.map((run) => runScript(run)));
      pair.forEach((run, j) => transcripts.set(label(run), done[j]!));
    }
  }, 240_000);

  test("every client lists every tool, and the script calls exactly the listed tools", () => {
    const everyTool = ALL_TOOLS.map((tool) => tool.name).sort();
    // A 2025-era request has no envelope to say whether its client renders apps: it is listed the app-only tools, marked.
    expect([...APP_ONLY].sort()).toEqual(["app_entity_details", "app_expand", "app_filter"]);
    const called = [...new Set(SCRIPT.map((step) => step.tool))].sort();
    expect(called).toEqual(everyTool);
    for (const run of RUNS) {
      const listed = run.era === "2026" ? everyTool.filter((name) => !APP_ONLY.has(name)) : everyTool;
      expect({ run: label(run), listed: transcripts.get(label(run))!.listed }).toEqual({ run: label(run), listed });
    }
  });

  test("every call of the script succeeds in every run, except the mistakes, which fail", () => {
    for (const run of RUNS) {
      const expected = stepsOf(run.era).map((step) => ({ tool: step.tool, error: step.fails }));
      const outcomes = transcripts.get(label(run))!.answers.map(({ tool, isError, text }) => ({
        tool,
        error: isError ? (JSON.parse(String(text)) as { error: string }).error : undefined,
      }));
      expect({ run: label(run), outcomes }).toEqual({ run: label(run), outcomes: expected });
    }
  });

  test.each(RUNS.filter((run) => run.era === "2026"))("2026-07-28 answers as 2025 does: $route route, $door door", (run) => {
    const answers2025 = transcripts.get(label({ ...run, era: "2025" }))!.answers.filter((answer) => !APP_ONLY.has(answer.tool));
    expect(transcripts.get(label(run))!.answers).toEqual(answers2025);
  });

  test.each(RUNS.filter((run) => run.route === "bound"))("the bound route answers as the unbound one: $era, $door door", (run) => {
    expect(transcripts.get(label(run))!.answers).toEqual(transcripts.get(label({ ...run, route: "unbound" }))!.answers);
  });

  test.each(RUNS.filter((run) => run.door === "functions"))("the Functions door answers as the local server: $era, $route route", (run) => {
    expect(transcripts.get(label(run))!.answers).toEqual(transcripts.get(label({ ...run, door: "local" }))!.answers);
  });
});
