import type { Change } from "../../domain/feed/history.js";
import { ConflictError, NotFoundError } from "../../domain/model/errors.js";
import type { Actor } from "../../domain/model/model.js";
import type { MergeReport } from "../../domain/rules/curationModel.js";
import { readEvents } from "../reads/feed.js";
import { keyRange } from "../rows/keys.js";
import { kindOf, text } from "../rows/rows.js";
import { stampOf } from "../rows/rowWrites.js";
import type { TableGateway } from "../table/gateway.js";
import { MAX_ATTEMPTS, retrying } from "../table/retrying.js";
import { type EntityRange, type PlanContext, planSource } from "./mergePlan.js";
import { commit } from "./transactions.js";

/**
 * merge_entities (docs/curate.md#merge_entities). Crash safety comes from the order of the writes:
 * each move is one transaction that creates the row on the target and deletes it from the source
 * (a relation: the new relation's three rows and the old one's), so every row is on one side or the
 * other, never both nor neither; the source's entity row is deleted last, with If-Match on the ETag
 * read (rule 3, transactions.ts), in one transaction with the target's update. Until then the source
 * exists, so a rerun reads what is left and moves it; after that the merge is complete and a rerun
 * finds no source and writes nothing. Sources are merged one after another, each one's moves in order.
 * Races: every move fails unless both its sides are still as read (mergePlan.ts); then all is read again.
 */
export async function mergeEntities(
  gateway: TableGateway,
  workspace: string,
  actor: Actor,
  request: { targetId: string; targetLabel: string; sources: { id: string; label: string }[]; dryRun: boolean },
): Promise<MergeReport> {
  const stamp = stampOf(actor, gateway.clock);
  const report = emptyReport(request);
  const position = { next: 1 };
  let attempts = 0;
  let gone: Error | undefined;
  // 409: a row a move creates appeared meanwhile; 412: a source changed since the read; 404: a row went away. Read again.
  const merging = retrying({ retryOn: ["entity-exists", "precondition-failed", "not-found"], exhausted: "conflict" }, async () => {
    attempts += 1;
    const target = await readRange(gateway, workspace, request.targetId);
    if (!target) throw (gone = await targetGone(gateway, workspace, request, attempts > 1));
    const read = await Promise.all(request.sources.map((source) => readRange(gateway, workspace, source.id)));
    const absent = request.sources.filter((_, i) => !read[i]);
    // A source already merged into this target (by this call before a retry, or by an interrupted earlier call) is done.
    const last = await Promise.all(absent.map((source) => lastChange(gateway, workspace, source.id)));
    const unknown = absent.flatMap((source, i) => {
      const into = last[i]?.mergedInto;
      if (into === target.id) return [];
      // Merged into another entity (a concurrent merge, perhaps): say where its data is.
      return [into !== undefined ? `'${source.label}' (merged into '${last[i]?.mergedIntoName ?? into}')` : `'${source.label}'`];
    });
    if (unknown.length > 0) {
      throw new NotFoundError(
        `Source ${unknown.join(", ")} not found (and not merged into '${request.targetLabel}' before). ` +
          (attempts > 1 ? "It went while this merge ran: what was moved stays on the target. " : "Nothing was merged. ") +
          "Check the names with search_nodes.",
      );
    }
    const sources = read.filter((source): source is EntityRange => source !== undefined);
    Object.assign(report, emptyReport(request), {
      target: { id: target.id, name: text(target.head.name) },
      sources: sources.map((source) => ({ id: source.id, name: text(source.head.name) })),
      alreadyMerged: absent.map((source) => source.label),
    });
    const context: PlanContext = {
      workspace,
      stamp,
      target,
      merging: new Set(request.sources.map((source) => source.id)),
      targetKeys: new Set(target.rows.map((row) => text(row.rowKey))),
      done: new Set(),
      position,
      report,
    };
    const plans = sources.map((source) => planSource(context, source));
    if (request.dryRun) return;
    for (const plan of plans) {
      // In order, unit by unit: the moved observations' events reach the feed in their order keys' order.
      await commit(gateway, workspace, stamp, plan.moves, { order: "keep-order" });
      await commit(gateway, workspace, stamp, [plan.final]);
    }
  });
  try {
    await merging;
  } catch (error) {
    if (!(error instanceof ConflictError) || error === gone) throw error;
    throw new ConflictError(
      `Other writes kept changing these entities while they were being merged (${MAX_ATTEMPTS} attempts). Every row is on the ` +
        "target or still on its source: nothing was lost. Retry the call: it completes the merge.",
    );
  }
  return report;
}

/**
 * The target is not there. Missing from the start: NotFoundError. Gone during the call (deleted, or merged
 * into another entity by a concurrent merge): ConflictError, since this call may have moved rows onto it
 * already; what it moved went with the target, and the sources keep the rest.
 */
async function targetGone(
  gateway: TableGateway,
  workspace: string,
  request: { targetId: string; targetLabel: string },
  seen: boolean,
): Promise<Error> {
  const last = await lastChange(gateway, workspace, request.targetId);
  const into = last?.mergedInto !== undefined ? ` It was merged into '${last.mergedIntoName ?? last.mergedInto}'.` : "";
  if (!seen) return new NotFoundError(`Target entity '${request.targetLabel}' not found.${into} Nothing was merged.`);
  return new ConflictError(
    `Target entity '${request.targetLabel}' was ${into ? "merged into another entity" : "deleted"} by another call while this merge ran.${into} ` +
      "What this merge had moved onto it went with it; the sources still hold the rest. Nothing else was lost. " +
      "Read the entities again (open_nodes), then retry the merge into the entity that remains, if you still want it.",
  );
}

/**
 * The entity's last change (its history: a server-side filter over the events, read only for an entity that is not
 * there), with, for a deletion by a merge, the target's name as that event recorded it.
 */
async function lastChange(
  gateway: TableGateway,
  workspace: string,
  entityId: string,
): Promise<(Change & { mergedIntoName?: string }) | undefined> {
  const events = await readEvents(gateway, workspace, { entityId });
  for (const event of [...events].reverse()) {
    const change = event.changes.filter((c) => c.entityId === entityId && c.kind.startsWith("entity.")).at(-1);
    if (!change) continue;
    const into = change.mergedInto;
    const name = into !== undefined ? event.changes.find((c) => c.entityId === into && c.entityName)?.entityName : undefined;
    return { ...change, ...(name !== undefined ? { mergedIntoName: name } : {}) };
  }
  return undefined;
}

async function readRange(gateway: TableGateway, workspace: string, id: string): Promise<EntityRange | undefined> {
  const rows = await gateway.queryRange(workspace, keyRange.wholeEntity(id));
  const head = rows.find((row) => kindOf(row) === "entity");
  return head ? { id, head, rows } : undefined;
}

function emptyReport(request: { targetId: string; targetLabel: string; sources: { id: string; label: string }[] }): MergeReport {
  return {
    target: { id: request.targetId, name: request.targetLabel },
    sources: request.sources.map((source) => ({ id: source.id, name: source.label })),
    observations: { moved: 0, droppedDuplicates: 0 },
    relations: { moved: [], droppedSelfLoops: [], droppedDuplicates: [] },
    tags: { moved: 0, droppedDuplicates: 0 },
    alreadyMerged: [],
  };
}
