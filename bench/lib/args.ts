import { parseArgs } from "node:util";

export interface BenchOptions {
  /** N: entities created (each with 3 observations), and relations created. */
  entities: number;
  /** Calls in flight at once in every phase (1 = one call at a time). */
  concurrency: number;
  /** Assumed in-region Table Storage round trip, for the modelled Azure column (a projection). */
  azureMs: number;
  /** Which targets to run; unknown or unavailable ones are reported and skipped. */
  targets: string[];
}

const USAGE = `npm run bench -- [--entities N] [--concurrency C] [--azure-ms MS] [--targets ours,floor,server-memory]

  --entities      entities and relations to create (default 1000)
  --concurrency   calls in flight at once in every phase (default 1)
  --azure-ms      assumed in-region Table Storage round trip for the modelled column (default 8)
  --targets       comma-separated subset of: ours, floor, server-memory (default: all that are available)`;

function positive(name: string, text: string | undefined, fallback: number, { integer }: { integer: boolean }): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new Error(`--${name} must be a positive ${integer ? "integer" : "number"}, got '${text}'.\n\n${USAGE}`);
  }
  return value;
}

export function parseBenchArgs(argv: string[]): BenchOptions | "help" {
  const { values } = parseArgs({
    args: argv,
    options: {
      entities: { type: "string" },
      concurrency: { type: "string" },
      "azure-ms": { type: "string" },
      targets: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return "help";
  }
  return {
    entities: positive("entities", values.entities, 1000, { integer: true }),
    concurrency: positive("concurrency", values.concurrency, 1, { integer: true }),
    azureMs: positive("azure-ms", values["azure-ms"], 8, { integer: false }),
    targets: (values.targets ?? "ours,floor,server-memory").split(",").map((name) => name.trim()).filter(Boolean),
  };
}
