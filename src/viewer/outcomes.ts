import type { TimelineEvent } from "./shapes.js";

/**
 * The pure rules behind the apps' actions (docs/viewer.md): what a call adds to its arguments, when a write's answer
 * proves it happened, which pairs and events still offer an action, and how an event reads. No DOM here: unit-tested.
 */

/**
 * A tool call's arguments with the workspace the opening result named. On the unbound route (/api/mcp) every tool
 * requires workspaceName; a bound route accepts it when equal (src/mcp/workspace.ts). The caller's own value wins.
 */
export function withWorkspace(args: Record<string, unknown>, workspaceName: string | undefined): Record<string, unknown> {
  if (workspaceName === undefined || "workspaceName" in args) return args;
  return { ...args, workspaceName };
}

/** merge_entities' answer (src/mcp/tools/mergeEntities.ts), as far as the duplicate review reads it. */
export interface MergeReport {
  dryRun: boolean;
  target: { name: string };
  sources: { name: string }[];
  alreadyMerged: string[];
  observations: { moved: number; droppedDuplicates: number };
  relations: { moved: unknown[]; droppedSelfLoops: unknown[]; droppedDuplicates: unknown[] };
  tags: { moved: number; droppedDuplicates: number };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;
const counts = (value: unknown, ...keys: string[]) => isRecord(value) && keys.every((key) => typeof value[key] === "number");
const lists = (value: unknown, ...keys: string[]) => isRecord(value) && keys.every((key) => Array.isArray(value[key]));

/**
 * The merge report, checked before the app says what happened: a preview must be a dry run, a confirmed merge must not
 * be, and either must name this target and source. Anything else is thrown: the app cannot tell what the call did.
 */
export function mergeReport(answer: unknown, expected: { target: string; source: string; dryRun: boolean }): MergeReport {
  const { target, source, dryRun } = expected;
  const report = answer as Partial<MergeReport> & Record<string, unknown>;
  const named =
    isRecord(report) &&
    report.success === true &&
    report.target?.name === target &&
    Array.isArray(report.sources) &&
    Array.isArray(report.alreadyMerged) &&
    (report.sources.some((entity) => entity?.name === source) || report.alreadyMerged.includes(source));
  const shaped =
    named &&
    counts(report.observations, "moved", "droppedDuplicates") &&
    lists(report.relations, "moved", "droppedSelfLoops", "droppedDuplicates") &&
    counts(report.tags, "moved", "droppedDuplicates");
  if (!shaped || report.dryRun !== dryRun) {
    throw new Error(
      dryRun
        ? `merge_entities did not answer with a preview of merging ${source} into ${target}; nothing is shown as merged. Try the preview again.`
        : `merge_entities did not answer with a report of merging ${source} into ${target}, so this app cannot say it happened. ` +
            `Check ${target}'s timeline (show_entity_timeline) before trying again.`,
    );
  }
  return report as MergeReport;
}

/** What merging `source` into `target` would do, as the preview says it. */
export function previewText(report: MergeReport, source: string, target: string): string {
  const dropped = report.relations.droppedSelfLoops.length + report.relations.droppedDuplicates.length;
  return (
    `Merging ${source} into ${target} would move ${report.observations.moved} observation(s) ` +
    `(${report.observations.droppedDuplicates} already there), ${report.relations.moved.length} relation(s) ` +
    `(${dropped} dropped) and ${report.tags.moved} tag(s), then delete ${source}.`
  );
}

/** A pair that names an entity a merge deleted: it can no longer be merged or rejected, so it leaves the list. */
export function namesMergedAway(pair: { a?: string; b?: string }, mergedAway: string): boolean {
  return pair.a === mergedAway || pair.b === mergedAway;
}

/** restore_entity's answer (src/mcp/tools/restoreEntity.ts), as far as the timeline reads it. */
export interface RestoreReport {
  entityName: string;
  restoredAsOf: string;
  observations: number;
  relations: number;
}

/** The restore report, checked before the app says the entity was restored. */
export function restoreReport(answer: unknown, entityName: string): RestoreReport {
  const report = answer as Record<string, unknown>;
  const shaped =
    isRecord(report) &&
    report.success === true &&
    report.entityName === entityName &&
    typeof report.restoredAsOf === "string" &&
    counts(report, "observations", "relations");
  if (!shaped) {
    throw new Error(
      `restore_entity did not answer with a report of restoring ${entityName}, so this app cannot say it happened. ` +
        "Read the timeline again (reopen it) before trying again.",
    );
  }
  return report as unknown as RestoreReport;
}

/**
 * Whether "Restore…" can work for this event: the state after an entity.deleted event is no entity at all, so restoring
 * to it would always be refused. (An earlier event restores the entity as it was before its deletion.)
 */
export function restorable(event: Pick<TimelineEvent, "kinds">): boolean {
  return !event.kinds.includes("entity.deleted");
}

/**
 * An event's summary without its leading "<principal> via <tool>: " (src/domain/feed/history.ts writes it), which the
 * row already shows beside it. A summary that does not start so is kept whole.
 */
export function eventSummary(event: Pick<TimelineEvent, "principal" | "tool" | "summary">): string {
  const lead = `${event.principal} via ${event.tool}: `;
  return event.summary.startsWith(lead) && event.summary.length > lead.length ? event.summary.slice(lead.length) : event.summary;
}
