import type { InProcessRun } from "./inProcess.js";
import type { Scores } from "./metrics.js";
import { type Mode, type ModeQuality, type RankerShares, SPLITS } from "./quality.js";

/** One size's latency through MCP: per mode, the client's p50/p99, the server's own p50, storage requests per call. */
export interface McpLatency {
  entities: number;
  seeding: { via: "mcp" | "cli"; seconds: number }[];
  /** The first search on the fresh workspace: the index's build (one scan) and, for vectors, embedding what is pending. */
  firstSearchMs: number;
  modes: { mode: Mode; calls: number; p50Ms: number; p99Ms: number; serverP50Ms: number; storageRequestsPerCall: number }[];
  quality: ModeQuality[];
}

export interface RecallReport {
  date: string;
  machine: string;
  corpus: { entities: number; relations: number; queries: number; paraphrase: number; keyword: number };
  /** Whether the server's search_entities takes `mode`; without it only "words" (today's BM25) is measured. */
  modesSupported: boolean;
  /** The server's embedding model (get_stats), when search by meaning is on. */
  model?: string;
  seedSeconds: number;
  quality: ModeQuality[];
  /** From hybrid's `explain` on the corpus: which rankers found the judged answers it ranked in its top 10. */
  rankers?: RankerShares;
  latency: McpLatency[];
  inProcess: InProcessRun[];
  notes: string[];
  seconds: number;
}

const pct = (value: number) => (value * 100).toFixed(1);
const ms = (value: number) => value.toFixed(2);

function qualityTable(quality: readonly ModeQuality[]): string {
  const rows = quality.flatMap(({ mode, scores }) =>
    SPLITS.map((split) => {
      const s: Scores = scores[split];
      return `| ${mode} | ${split} (${s.queries}) | ${pct(s.recallAt5)} ± ${pct(s.recallAt5StdErr)} | ${pct(s.recallAt10)} | ${s.mrr.toFixed(3)} | ${s.ndcgAt10.toFixed(3)} |`;
    }),
  );
  return ["| mode | queries | recall@5 % (± standard error) | recall@10 % | MRR | nDCG@10 |", "|---|---|--:|--:|--:|--:|", ...rows].join(
    "\n",
  );
}

/** The acceptance lines of issue #24 that this bench can judge. */
function acceptance(quality: readonly ModeQuality[]): string[] {
  const of = (mode: Mode) => quality.find((row) => row.mode === mode)?.scores;
  const words = of("words");
  const hybrid = of("hybrid");
  if (!words || !hybrid) return ["- Acceptance not judged: the server measured here has no `mode` (only BM25 ran)."];
  const gain = (hybrid.paraphrase.recallAt5 - words.paraphrase.recallAt5) * 100;
  // Unpaired: an upper bound on the paired difference's standard error when the two rankings' hits go together.
  const gainError = Math.hypot(hybrid.paraphrase.recallAt5StdErr, words.paraphrase.recallAt5StdErr) * 100;
  const keywordLoss = (words.keyword.recallAt5 - hybrid.keyword.recallAt5) * 100;
  return [
    `- Paraphrase queries, hybrid recall@5 − BM25 recall@5: **${gain.toFixed(1)} points** (± ${gainError.toFixed(1)}; needs ≥ 25): ${gain >= 25 ? "met" : "**missed**"}.`,
    `- Keyword queries, BM25 recall@5 − hybrid recall@5: **${keywordLoss.toFixed(1)} points** (needs ≤ 2): ${keywordLoss <= 2 ? "met" : "**missed**"}.`,
  ];
}

/** Issue #24's latency lines: hybrid costs one storage request, and its in-server p50 stays under 2× BM25's (words). */
function latencyAcceptance(run: McpLatency): string[] {
  const words = run.modes.find((m) => m.mode === "words");
  const hybrid = run.modes.find((m) => m.mode === "hybrid");
  if (!words || !hybrid) return [];
  const ratio = hybrid.serverP50Ms / words.serverP50Ms;
  return [
    "",
    `- Hybrid storage requests per call: ${hybrid.storageRequestsPerCall.toFixed(2)} (needs 1 on an unchanged workspace).`,
    `- Hybrid in-server p50 / BM25 (words) in-server p50: **${ratio.toFixed(2)}×** (needs < 2): ${ratio < 2 ? "met" : "**missed**"}.`,
  ];
}

export function recallMarkdown(report: RecallReport): string {
  const { corpus } = report;
  const lines = [
    `# Recall benchmark, ${report.date.slice(0, 10)}: BM25, vectors and hybrid on the project's judged corpus (issue #24)`,
    "",
    `Machine: ${report.machine}. Command: \`npm run bench:recall\`. Total run: ${report.seconds.toFixed(0)} s.`,
    "",
    `Corpus (bench/recall/corpus.ts, written for the project): ${corpus.entities} entities, ${corpus.relations} relations, ` +
      `${corpus.queries} judged queries: ${corpus.paraphrase} paraphrases (no content word shared with any judged answer, ` +
      `checked by test/recallCorpus.test.ts) and ${corpus.keyword} keyword queries. Seeded into one workspace through MCP ` +
      `(create_entities, create_relations) in ${report.seedSeconds.toFixed(1)} s; every query runs through search_entities ` +
      `(limit 10) in each mode. Model: ${report.model ?? "none (search by meaning off)"}.`,
    "",
    "## Quality",
    "",
    qualityTable(report.quality),
    "",
    ...acceptance(report.quality),
  ];
  if (report.rankers) {
    const rows = SPLITS.map((split) => {
      const r = report.rankers![split];
      const share = (n: number) => (r.answers === 0 ? "–" : `${n} (${pct(n / r.answers)} %)`);
      return `| ${split} | ${r.answers} | ${share(r.words)} | ${share(r.meaning)} | ${share(r.graph)} | ${r.only.words} / ${r.only.meaning} / ${r.only.graph} |`;
    });
    lines.push(
      "",
      "Which rankers found the judged answers hybrid ranked in its top 10 (`explain: true`):",
      "",
      "| queries | answers in top 10 | words | meaning | graph | found by one ranker alone: words / meaning / graph |",
      "|---|--:|--:|--:|--:|--:|",
      ...rows,
    );
  }
  for (const run of report.latency) {
    lines.push(
      "",
      `## Latency through MCP at N=${run.entities.toLocaleString("en")} (corpus + ${(run.entities - corpus.entities).toLocaleString("en")} distractors)`,
      "",
      `Seeded ${run.seeding.map((s) => `through ${s.via === "mcp" ? "MCP in bulk" : "the CLI import"} in ${s.seconds.toFixed(1)} s`).join(", ")}` +
        ` (not timed below). First search (index build${report.modesSupported ? " and embedding" : ""}): ${run.firstSearchMs.toFixed(0)} ms.`,
      "",
      "| mode | calls | p50 ms | p99 ms | in-server p50 ms | storage req/call |",
      "|---|--:|--:|--:|--:|--:|",
      ...run.modes.map(
        (m) =>
          `| ${m.mode} | ${m.calls} | ${ms(m.p50Ms)} | ${ms(m.p99Ms)} | ${ms(m.serverP50Ms)} | ${m.storageRequestsPerCall.toFixed(2)} |`,
      ),
      ...latencyAcceptance(run),
      "",
      `Quality among ${run.entities.toLocaleString("en")} entities:`,
      "",
      qualityTable(run.quality),
    );
  }
  for (const run of report.inProcess) {
    lines.push(
      "",
      `## In-process at N=${run.entities.toLocaleString("en")}: WorkspaceIndex alone (no storage, no MCP)`,
      "",
      `Build ${run.buildMs.toFixed(0)} ms; first search ${run.firstSearchMs.toFixed(0)} ms; memory estimate ${(run.estimatedBytes / 1024 / 1024).toFixed(1)} MB.`,
      "",
      "| mode | calls | p50 ms | p99 ms |",
      "|---|--:|--:|--:|",
      ...run.latency.map((m) => `| ${m.mode} | ${m.calls} | ${ms(m.p50Ms)} | ${ms(m.p99Ms)} |`),
      "",
      qualityTable(run.quality),
    );
  }
  if (report.notes.length > 0) lines.push("", "## Notes", "", ...report.notes.map((note) => `- ${note}`));
  return `${lines.join("\n")}\n`;
}
