import { cpus, loadavg, platform, release, totalmem } from "node:os";

import { APP_TARGETS, type AppsMeasure } from "./apps.js";
import type { BrowserFirstRender } from "./browser.js";
import type { PhaseResult, ProbeResult } from "./phases.js";

/** A report with this machine, the load average now and the run's options, and nothing measured yet. */
export function newReport(options: BenchReport["options"]): BenchReport {
  return {
    date: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model.trim() ?? "unknown",
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: `${platform()} ${release()}`,
    },
    loadAverage: { start: loadavg()[0] ?? Number.NaN, end: Number.NaN },
    options,
    coldImport: [],
    targets: [],
    skipped: [],
    verified: {},
    notes: [],
    phases: [],
    lostWriteProbe: [],
    seconds: Number.NaN,
  };
}

export interface BenchReport {
  date: string;
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string; platform: string };
  /** 1-minute load average at the start and the end: other processes on a shared machine skew absolute times. */
  loadAverage: { start: number; end: number };
  options: { entities: number; calls: number; searchCalls: number; concurrency: number; azureMs: number; storeLatencyMs: number };
  /** Fresh-process import time per Functions entry: the deployed bundle first, then the unbundled tsc output. */
  coldImport: { entry: string; runs: number[]; median: number }[];
  targets: { name: string; description: string }[];
  skipped: { name: string; reason: string }[];
  verified: Record<string, string>;
  /** What targets said about their run (Target.notes). */
  notes: string[];
  phases: PhaseResult[];
  /** Concurrent add_observations on one entity: how many of the writers' observations it kept. */
  lostWriteProbe: (ProbeResult & { failed: number })[];
  /** Wall time of the whole run, start to finish. */
  seconds: number;
  /** The viewer's first render in headless Chromium, on ours after the workload (absent when skipped). */
  browser?: BrowserFirstRender;
  /** The MCP App's resource size and its time to interactive inside a host, on ours after the workload (absent when skipped). */
  apps?: AppsMeasure;
}

const fixed = (value: number | undefined, digits: number) => (value === undefined || Number.isNaN(value) ? "n/a" : value.toFixed(digits));
const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? "" : `${(a / b).toFixed(2)}×`);

/** The Markdown the README quotes: one row per phase and target, ratios on our rows. */
export function markdown(report: BenchReport): string {
  const { options, machine } = report;
  const lines = [
    `### Bench: N=${options.entities}, concurrency ${options.concurrency}${options.storeLatencyMs > 0 ? `, +${options.storeLatencyMs} ms per storage request` : ""}`,
    "",
    `${report.date.slice(0, 10)}, ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.platform}. ` +
      "Azurite 3.35.0 in memory, in its own process, one per target; targets interleaved in batches within each phase. Command: " +
      `\`npm run bench -- --entities ${options.entities} --concurrency ${options.concurrency} --calls ${options.calls} --search-calls ${options.searchCalls} --azure-ms ${options.azureMs}` +
      `${options.storeLatencyMs > 0 ? ` --store-latency-ms ${options.storeLatencyMs}` : ""}\`` +
      (options.storeLatencyMs > 0
        ? `. **Every storage request was held ${options.storeLatencyMs} ms** by a proxy in front of each target's Azurite (a stand-in for an in-region round trip, paid alike by every Azurite-backed target).`
        : ""),
    "",
    `Load average (1 min) ${report.loadAverage.start.toFixed(1)} at the start, ${report.loadAverage.end.toFixed(1)} at the end, on ${machine.cpus} cores: ` +
      "compare targets within a phase (they ran interleaved), not absolute times across runs.",
    "",
    "| phase | target | calls | ops/s | p50 ms | p99 ms | in-server p50 ms ³ | storage req/call | p50 ours/floor | p50 ours/server-memory | modelled Azure ms/call ¹ | peak server RSS MB ² |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  ];
  const phases = [...new Set(report.phases.map((row) => row.phase))];
  // Our rows first, then the references, whatever order the targets ran in.
  const order = ["ours", "ours-2026", "floor", "server-memory"];
  report.targets.sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  for (const phase of phases) {
    const rows = report.phases.filter((row) => row.phase === phase);
    const p50Of = (target: string) => rows.find((row) => row.target === target)?.p50Ms;
    for (const target of report.targets) {
      const row = rows.find((candidate) => candidate.target === target.name);
      if (!row) {
        lines.push(`| ${phase} | ${target.name} | n/a: no such tool |  |  |  |  |  |  |  |  |  |`);
        continue;
      }
      const ours = row.target === "ours";
      lines.push(
        `| ${phase} | ${row.target} | ${row.calls}${row.failedCalls > 0 ? ` (${row.failedCalls} failed)` : ""} | ${fixed(row.opsPerSec, 0)} | ${fixed(row.p50Ms, 2)} | ${fixed(row.p99Ms, 2)} | ${row.serverP50Ms === undefined ? "" : fixed(row.serverP50Ms, 2)} | ` +
          `${fixed(row.storageRequestsPerCall, 2)} | ${ours ? ratio(row.p50Ms, p50Of("floor")) : ""} | ${ours ? ratio(row.p50Ms, p50Of("server-memory")) : ""} | ` +
          `${fixed(row.modelledAzureMs, 1)} | ${row.peakRssBytes === undefined ? "n/a" : fixed(row.peakRssBytes / 2 ** 20, 0)} |`,
      );
    }
  }
  lines.push(
    "",
    `¹ A projection, not a measurement: storage requests per call × ${options.azureMs} ms, an assumed in-region Table Storage round trip ` +
      "(`--azure-ms`). It leaves out our own CPU time and counts parallel requests as sequential.",
    "² Peak RSS of the process serving the target: our server without Azurite, or the server-memory process. The floor runs inside the bench driver: n/a.",
    "³ Our server's own measure of each call, from its per-call log line: argument validation, domain code and storage round trips; " +
      "not JSON-RPC, HTTP or the hop between processes. The gap to p50 is what the protocol and the process boundary cost.",
    ...(options.searchCalls < options.calls
      ? [
          `⁴ search_nodes ran ${options.searchCalls} calls, not ${options.calls}: every call reads the whole workspace, and Azurite scans and sorts the ` +
            "table for every page, so its cost per call grows as N². Past N=1000 the default shrinks as N³ to keep the run bounded (`--search-calls` overrides it).",
        ]
      : []),
    "",
    ...report.coldImport.map(
      ({ entry, runs, median }) =>
        `Cold import of the Functions entry \`${entry}\` (fresh \`node\` each time): median ${fixed(median, 0)} ms over ${runs.length} runs (${runs.map((ms) => ms.toFixed(0)).join(", ")}).`,
    ),
  );
  for (const { target, writers, kept, failed } of report.lostWriteProbe) {
    lines.push(
      `Lost-write probe, ${target}: ${writers} concurrent add_observations on one entity; it kept ${kept} of ${writers}` +
        `${failed > 0 ? ` (${failed} calls reported an error)` : ""}${kept + failed < writers ? `: ${writers - kept - failed} lost` : ""}.`,
    );
  }
  if (report.browser) lines.push(browserLine(report.browser));
  if (report.apps) lines.push(...appsLines(report.apps));
  lines.push(...searchTargets(report));
  for (const [target, note] of Object.entries(report.verified)) lines.push(`Verified after the run, ${target}: ${note}.`);
  lines.push(...report.notes);
  lines.push(`The whole run took ${fixed(report.seconds, 0)} s.`);
  for (const { name, reason } of report.skipped) lines.push(`Skipped ${name}: ${reason}.`);
  return lines.join("\n");
}

function browserLine(browser: BrowserFirstRender): string {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
  return (
    `Viewer, first render of the ${browser.entities}-entity workspace in headless Chromium (fresh context each run): interactive ` +
    `(graph drawn, search usable) in a median ${fixed(browser.medianMs, 0)} ms over ${browser.runs.length} runs ` +
    `(${browser.runs.map((ms) => ms.toFixed(0)).join(", ")}); page + script + style ${kb(browser.payloadBytes)} gzipped ` +
    `(${kb(browser.decodedBytes)} decoded); ${browser.dataRequests} tool calls, ${kb(browser.dataBytes)} of data before it.`
  );
}

/** The MCP App's two figures and the issue's targets for them (#26): under 300 KB gzipped, interactive under 1.5 s at N=1,000. */
function appsLines(apps: AppsMeasure): string[] {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
  const verdict = (met: boolean) => (met ? "met" : "**missed**");
  const atTarget = apps.entities === APP_TARGETS.atEntities ? "" : ` (set for N=${APP_TARGETS.atEntities.toLocaleString("en")})`;
  return [
    `MCP App: the ui:// resource (${apps.resourceUri}) read through the MCP client is ${kb(apps.rawBytes)}, ${kb(apps.gzipBytes)} gzipped; ` +
      `target < ${kb(APP_TARGETS.gzipBytes)} gzipped: ${verdict(apps.gzipBytes < APP_TARGETS.gzipBytes)}.`,
    ...apps.openings.map(
      (opening) =>
        `MCP App, the graph inside a host (the extension SDK's AppBridge in headless Chromium, a sandboxed iframe, fresh context ` +
        `each run) on the ${apps.entities}-entity workspace, opened ${opening.name === "default" ? "as a model opens it (no arguments)" : `with ${JSON.stringify(opening.args)}, as the page asks`}, ` +
        `${opening.drawn} entities drawn: interactive, from the iframe's creation to the app's mark, in a median ${fixed(opening.medianMs, 0)} ms ` +
        `over ${opening.runs.length} runs (${opening.runs.map((ms) => ms.toFixed(0)).join(", ")}); ` +
        `target < ${(APP_TARGETS.interactiveMs / 1000).toFixed(1)} s${atTarget}: ${verdict(opening.medianMs < APP_TARGETS.interactiveMs)}.`,
    ),
  ];
}

/**
 * The search targets (issue #14, docs/search.md#what-the-bench-shows), checked on this run: on an unchanged workspace,
 * search p50 at most 3× server-memory's at N=1,000 and below it at N=10,000; a warm search at most 2 ms in our server at
 * N=10,000. The index's memory per 10,000 entities is bench/searchLibraries.ts's figure.
 */
function searchTargets(report: BenchReport): string[] {
  const row = (phase: string, target: string) => report.phases.find((r) => r.phase.split(" ")[0] === phase && r.target === target);
  const ours = row("search_nodes", "ours");
  const reference = row("search_nodes", "server-memory");
  const ranked = row("search_entities", "ours");
  if (!ours) return [];
  const n = report.options.entities;
  const verdict = (met: boolean) => (met ? "met" : "**missed**");
  const lines = [`Search index: ours' first search_nodes call (the index's build, one scan) took ${fixed(ours.firstMs, 0)} ms.`];
  if (reference) {
    const ratioNow = ours.p50Ms / reference.p50Ms;
    const rule =
      n <= 1000 ? { text: "≤ 3× server-memory's (N ≤ 1,000)", met: ratioNow <= 3 } : { text: "below server-memory's", met: ratioNow < 1 };
    lines.push(
      `Target, search p50 ${rule.text}: search_nodes ours ${fixed(ours.p50Ms, 2)} ms, server-memory ${fixed(reference.p50Ms, 2)} ms ` +
        `(${ratioNow.toFixed(2)}×): ${verdict(rule.met)}.` +
        (ranked ? ` search_entities ours ${fixed(ranked.p50Ms, 2)} ms (${(ranked.p50Ms / reference.p50Ms).toFixed(2)}×).` : ""),
    );
  }
  const inServer = [ours, ranked].filter((r) => r?.serverP50Ms !== undefined) as PhaseResult[];
  if (inServer.length > 0) {
    lines.push(
      `Target, warm search ≤ 2 ms in the server${n >= 10_000 ? "" : " (set for N=10,000)"}: ` +
        inServer.map((r) => `${r.phase.split(" ")[0]} ${fixed(r.serverP50Ms, 2)} ms: ${verdict(r.serverP50Ms! <= 2)}`).join("; ") +
        ".",
    );
  }
  return lines;
}
