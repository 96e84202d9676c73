import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

import { TableClient } from "@azure/data-tables";

import { type McpTestClient, TEST_TABLE, testConnectionString, uniqueWorkspace } from "../harness.js";
import { partitionRows } from "../rawRows.js";
import { type Instance, Link, startInstance, stopInstances } from "./cluster.js";
import { drawTool, GenState, READ_GENERATORS, Rng, WRITE_GENERATORS } from "./generator.js";
import { type Call, lostWrites } from "./history.js";
import { graphOfRows, NON_GRAPH_KINDS, orphans } from "./model.js";
import { checkViews } from "./views.js";

/**
 * The checker's run: a seeded sequence of rounds of concurrent write calls over several instances (random rounds, and
 * rounds biased towards the races that have lost data before), then the checks: lost writes, orphan rows, and every view
 * of every instance (and of a freshly started one) against a fresh scan of storage. docs/reliability.md#the-consistency-checker
 */

export interface CheckerOptions {
  seed: number;
  /** Rounds of concurrent calls (default 12). */
  rounds?: number;
  /** Server instances sharing the storage (default 3). */
  instances?: number;
  /** Most calls in flight in one random round (default 5). */
  maxConcurrent?: number;
  /** Run the instances' clocks up to ±15 s off (so any two differ by up to 30 s, the documented allowance). Default true. */
  clockOffsets?: boolean;
  /** Inject seeded link delays (0-300 ms jitter, sometimes 1.5 s on one instance's transactions). Default true. */
  linkDelays?: boolean;
  /** Draw delete_workspace too (default true). */
  workspaceDeletes?: boolean;
  /**
   * Weights of the round kinds: random, crossed merges, a relation deleted on a slow link while upserted elsewhere, a
   * workspace deleted while written and read, then re-created, and an entity restored twice at once while re-created
   * (missing kinds weigh 0).
   */
  scenarios?: Partial<Record<Scenario, number>>;
}

/** What one run found. `problems` is empty when every check held. */
export interface CheckerReport {
  options: CheckerOptions;
  workspace: string;
  calls: number;
  acknowledged: number;
  clockOffsetsMs: number[];
  /** Where the run's history was written when it found a problem (JSON: every call with its arguments, answer and times). */
  historyFile?: string;
  problems: string[];
}

type Scenario = "random" | "crossedMerge" | "relationRace" | "workspaceRace" | "restoreRace";
const DEFAULT_SCENARIOS: Record<Scenario, number> = { random: 6, crossedMerge: 1, relationRace: 1, workspaceRace: 0.5, restoreRace: 0.5 };

/** Runs the checker once; starts and stops its own instances. */
export async function runChecker(options: CheckerOptions): Promise<CheckerReport> {
  const rng = new Rng(options.seed);
  const workspace = uniqueWorkspace("chk");
  const g = new GenState(rng, workspace);
  const count = options.instances ?? 3;
  const offsets = Array.from({ length: count }, (_, i) => (i === 0 || options.clockOffsets === false ? 0 : rng.int(-15_000, 15_000)));
  const instances: Instance[] = [];
  const history: Call[] = [];
  try {
    for (const [i, offset] of offsets.entries())
      instances.push(await startInstance(`I${i}`, offset, new Link(new Rng(rng.int(1, 2 ** 31)))));
    const runner = new Runner(instances, history, workspace);
    const scenarios = options.scenarios ?? DEFAULT_SCENARIOS;
    for (let round = 0; round < (options.rounds ?? 12); round++) {
      if (options.linkDelays !== false) setLinks(rng, instances);
      const kind = pickScenario(rng, scenarios);
      if (kind === "crossedMerge") await crossedMerge(rng, g, runner, options.linkDelays !== false);
      else if (kind === "relationRace") await relationRace(rng, g, runner, options.linkDelays !== false);
      else if (kind === "workspaceRace") await workspaceRace(rng, g, runner);
      else if (kind === "restoreRace") await restoreRace(rng, g, runner);
      else await randomRound(rng, g, runner, options);
      g.pastTimes.push(new Date().toISOString());
    }
    for (const instance of instances) instance.link.off();
    const problems = await checkAll(workspace, history, instances);
    const historyFile =
      problems.length > 0 || process.env.CHECKER_HISTORY === "1" ? join(tmpdir(), `checker-${options.seed}-${workspace}.json`) : undefined;
    if (historyFile) await writeFile(historyFile, JSON.stringify({ options, clockOffsetsMs: offsets, history }, null, 1));
    return {
      ...(historyFile ? { historyFile } : {}),
      options,
      workspace,
      calls: history.length,
      acknowledged: history.filter((c) => c.ok).length,
      clockOffsetsMs: offsets,
      problems,
    };
  } finally {
    await stopInstances(instances);
  }
}

/** Issues calls on the instances' clients and records each in the history. */
class Runner {
  private next = 0;
  constructor(
    readonly instances: readonly Instance[],
    private readonly history: Call[],
    private readonly workspace: string,
  ) {}

  async call(instance: Instance, client: McpTestClient, tool: string, args: Record<string, unknown>): Promise<Call> {
    const full = { workspaceName: this.workspace, ...args };
    const start = Date.now();
    let ok = false;
    let answer: unknown;
    try {
      const result = await client.call(tool, full);
      ok = result.isError !== true;
      answer = result.structuredContent ?? result.content;
    } catch (error) {
      answer = String(error);
    }
    const call: Call = { id: ++this.next, instance: instance.label, tool, args: full, ok, answer, start, end: Date.now() };
    this.history.push(call);
    return call;
  }

  /**
   * The call on a random client of `instance` (or of a random instance), after `delayMs`. The choices are made now, not
   * after the wait, so the seed's sequence of choices does not depend on timing.
   */
  on(rng: Rng, tool: string, args: Record<string, unknown>, instance = rng.pick(this.instances), delayMs = 0): Promise<Call> {
    const client = rng.pick(instance.clients);
    return sleep(delayMs).then(() => this.call(instance, client, tool, args));
  }
}

function pickScenario(rng: Rng, weights: Partial<Record<Scenario, number>>): Scenario {
  const entries = Object.entries(weights) as [Scenario, number][];
  let x = rng.next() * entries.reduce((sum, [, w]) => sum + w, 0);
  for (const [kind, weight] of entries) if ((x -= weight) < 0) return kind;
  return "random";
}

/** Seeded jitter on every instance; in one round of ten, one instance's transactions take 1.5 s more. */
function setLinks(rng: Rng, instances: readonly Instance[]): void {
  for (const instance of instances) {
    instance.link.jitterMs = 300;
    instance.link.jitterChance = rng.next() * 0.6;
    instance.link.batchMs = 0;
  }
  if (rng.chance(0.1)) rng.pick(instances).link.batchMs = 1500;
}

/** Up to maxConcurrent random write calls at once, and a read or two, each on a random instance, started a few ms apart. */
async function randomRound(rng: Rng, g: GenState, runner: Runner, options: CheckerOptions): Promise<void> {
  const without = new Set(options.workspaceDeletes === false ? ["delete_workspace"] : []);
  const calls = Array.from({ length: rng.int(2, options.maxConcurrent ?? 5) }, () => {
    const tool = drawTool(rng, without);
    return { tool, args: WRITE_GENERATORS[tool]!(g), wait: rng.int(0, 60), instance: rng.pick(runner.instances) };
  });
  for (let reads = rng.int(0, 2); reads > 0; reads--) {
    const tool = rng.pick(Object.keys(READ_GENERATORS));
    calls.push({ tool, args: READ_GENERATORS[tool]!(g), wait: rng.int(0, 120), instance: rng.pick(runner.instances) });
  }
  await Promise.all(calls.map((c) => runner.on(rng, c.tool, c.args, c.instance, c.wait)));
}

/**
 * Defect 1's shape: two entities with many observations, merged into each other at once from two instances, whose links
 * jitter every request (so one merge's moves land between the other's reads).
 */
async function crossedMerge(rng: Rng, g: GenState, runner: Runner, slowLinks: boolean): Promise<void> {
  const [a, b] = rng.some(g.names, 2) as [string, string];
  const fill = (name: string) => ({
    name,
    entityType: "person",
    observations: Array.from({ length: rng.int(30, 80) }, () => g.fresh(name)),
  });
  await Promise.all([runner.on(rng, "upsert_entity", fill(a)), runner.on(rng, "upsert_entity", fill(b))]);
  const [x, y] = rng.some(runner.instances, 2) as [Instance, Instance];
  if (slowLinks) for (const link of [x.link, y.link]) Object.assign(link, { jitterMs: 150, jitterChance: 1 });
  await Promise.all([
    runner.on(rng, "merge_entities", { target: b, sources: [a], confirm: true }, x),
    runner.on(rng, "merge_entities", { target: a, sources: [b], confirm: true }, y, rng.int(0, 20)),
  ]);
}

/**
 * Defect 3's shape: a relation deleted through an instance whose transactions are slow (its event key chosen before the
 * wait) while another instance upserts it with new metadata; the delete commits last.
 */
async function relationRace(rng: Rng, g: GenState, runner: Runner, slowLinks: boolean): Promise<void> {
  const [a, b] = rng.some(g.names, 2) as [string, string];
  const relation = { from: a, to: b, relationType: rng.pick(g.relationTypes) };
  await Promise.all([a, b].map((name) => runner.on(rng, "upsert_entity", { name, entityType: "person" })));
  await runner.on(rng, "upsert_relation", { ...relation, metadata: g.metadata() });
  const [slow, fast] = rng.some(runner.instances, 2) as [Instance, Instance];
  const before = slow.link.batchMs;
  if (slowLinks) slow.link.batchMs = 1500;
  try {
    await Promise.all([
      runner.on(rng, "delete_relations", { relations: [relation] }, slow),
      runner.on(rng, "upsert_relation", { ...relation, metadata: g.metadata() }, fast, rng.int(20, 300)),
    ]);
  } finally {
    slow.link.batchMs = before;
  }
}

/**
 * Defects 2 and 4's shape: a workspace deleted while other instances write to it and read it, then its entities
 * re-created by name and read again.
 */
async function workspaceRace(rng: Rng, g: GenState, runner: Runner): Promise<void> {
  const [a, b] = rng.some(g.names, 2) as [string, string];
  await Promise.all(
    [a, b].map((name) => runner.on(rng, "upsert_entity", { name, entityType: "person", observations: g.freshMany(name, 5) })),
  );
  await Promise.all([
    runner.on(rng, "delete_workspace", { confirm: g.workspace }),
    runner.on(
      rng,
      "add_observations",
      { observations: [{ entityName: a, contents: [g.fresh(a), g.fresh(a)] }] },
      undefined,
      rng.int(0, 80),
    ),
    runner.on(rng, "upsert_relation", { from: a, to: b, relationType: "knows" }, undefined, rng.int(0, 80)),
    runner.on(rng, "read_graph", {}, undefined, rng.int(0, 150)),
  ]);
  await runner.on(rng, "search_entities", { query: a });
  await Promise.all([a, b].map((name) => runner.on(rng, "upsert_entity", { name, entityType: "person" })));
  await runner.on(rng, "read_graph", {});
}

/**
 * Defect 9's shape: an entity with observations, tags and a relation, changed, deleted, then restored at two times at once
 * from two instances while a third re-creates it by name.
 */
async function restoreRace(rng: Rng, g: GenState, runner: Runner): Promise<void> {
  const [a, b] = rng.some(g.names, 2) as [string, string];
  await Promise.all(
    [a, b].map((name) => runner.on(rng, "upsert_entity", { name, entityType: "person", observations: g.freshMany(name, 3) })),
  );
  await runner.on(rng, "upsert_relation", { from: a, to: b, relationType: "knows", metadata: g.metadata() });
  await runner.on(rng, "tag_entity", { entityName: a, tagNames: [rng.pick(g.tags)] });
  await sleep(20);
  const before = new Date().toISOString();
  await runner.on(rng, "upsert_entity", { name: a, entityType: "project", observations: [g.fresh(a)], metadata: g.metadata() });
  await runner.on(rng, "delete_entities", { entityNames: [a] });
  await Promise.all([
    runner.on(rng, "restore_entity", { entityName: a }),
    runner.on(rng, "restore_entity", { entityName: a, asOf: before }, undefined, rng.int(0, 30)),
    runner.on(rng, "upsert_entity", { name: a, entityType: "person", observations: [g.fresh(a)] }, undefined, rng.int(0, 60)),
  ]);
}

/** The checks, once every call has returned: storage's own consistency, lost writes, then every instance's views. */
async function checkAll(workspace: string, history: readonly Call[], instances: readonly Instance[]): Promise<string[]> {
  const table = TableClient.fromConnectionString(testConnectionString(), TEST_TABLE, { allowInsecureConnection: true });
  const rows = await partitionRows(table, workspace, NON_GRAPH_KINDS);
  const stored = graphOfRows(rows);
  const problems = [...orphans(rows).map((line) => `orphan: ${line}`), ...lostWrites(history, stored)];
  await sleep(5); // asOf must be after every call's last commit, by the test's clock
  const asOf = new Date().toISOString();
  const fresh = await startInstance("fresh", 0, new Link(new Rng(1)), 1);
  try {
    for (const instance of [...instances, fresh]) {
      problems.push(...(await checkViews(instance.clients[0]!, instance.label, workspace, stored, asOf)));
    }
  } finally {
    await stopInstances([fresh]);
  }
  return problems;
}

/** The problems with the same text on several instances once, prefixed by the instances ("[I0 I1 fresh] read_graph: …"). */
export function groupByInstance(problems: readonly string[]): string[] {
  const groups = new Map<string, string[]>();
  for (const line of problems) {
    const match = /^(I\d+|fresh) (.*)$/s.exec(line);
    const [label, rest] = match ? [match[1]!, match[2]!] : ["", line];
    groups.set(rest, [...(groups.get(rest) ?? []), label]);
  }
  return [...groups].map(([rest, labels]) => (labels[0] === "" ? rest : `[${labels.join(" ")}] ${rest}`));
}

/** The report as text: the seed to replay it with, the setup, and the problems (the same one on several instances once). */
export function formatReport(report: CheckerReport, replay: string): string {
  const { seed, rounds, ...rest } = report.options;
  const again = `CHECKER_SEED=${seed} CHECKER_ROUNDS=${rounds ?? 12} CHECKER_OPTIONS='${JSON.stringify(rest)}' ${replay}`;
  const head =
    `consistency checker, seed ${seed} (replay: ${again}); workspace ${report.workspace}; ` +
    `${report.calls} calls, ${report.acknowledged} acknowledged; clock offsets ${report.clockOffsetsMs.join("/")} ms${report.historyFile ? `; history ${report.historyFile}` : ""}`;
  const lines = groupByInstance(report.problems);
  return lines.length === 0 ? `${head}: no problem` : `${head}\n${lines.length} problems:\n  ${lines.join("\n  ")}`;
}
