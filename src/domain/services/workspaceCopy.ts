import { forEachLimited } from "../model/concurrency.js";
import type { Actor } from "../model/model.js";
import { fileLinesOf, type ImportInput, type ImportReport } from "./importGraph.js";
import type { Services } from "./services.js";

/** Entities read per page while copying: bounded memory however large the workspace. */
const PAGE = 1000;
/** Metadata writes in flight at once. */
const WRITES_IN_FLIGHT = 8;

export interface CopyReport extends ImportReport {
  /** Entities and relations whose metadata was written after the import (the import format has none). */
  metadataWritten: number;
}

/**
 * Copies a workspace's graph into another: entities with observations, relations, tag definitions
 * and tags, then entity and relation metadata. Ids are derived from the workspace name
 * (docs/architecture.md#table-layout), so the copy's ids are its own, derived again from the same
 * names; its history starts with the copy (the source's history is not copied). Like import it
 * only adds: run into an empty workspace for an exact copy.
 */
export async function copyWorkspace(
  services: Pick<Services, "core" | "graph" | "tags">,
  from: string,
  to: string,
  actor: Actor,
): Promise<CopyReport> {
  const input: Required<ImportInput> = { entities: [], relations: [], tags: [], taggings: [], validities: [] };
  const withMetadata: { kind: "entity" | "relation"; write: () => Promise<unknown> }[] = [];
  let cursor: string | undefined;
  do {
    // Superseded and ended facts too, with their times, as an export carries them (importGraph.ts fileLinesOf).
    const held = await services.graph.readGraph(from, { limit: PAGE, includeSuperseded: true, ...(cursor ? { cursor } : {}) });
    const page = { ...fileLinesOf(held, Date.now()), cursor: held.cursor };
    input.validities.push(...page.validities.map((validity) => ({ ...validity, line: input.validities.length + 1 })));
    for (const entity of page.entities) {
      const line = input.entities.length + 1;
      input.entities.push({ line, name: entity.name, entityType: entity.entityType, observations: entity.observations });
      if (entity.tags.length > 0) input.taggings.push({ line, entityName: entity.name, tagNames: entity.tags });
      for (const [observation, tagNames] of entity.observationTags)
        input.taggings.push({ line, entityName: entity.name, observation, tagNames });
      if (Object.keys(entity.metadata).length > 0) {
        const { name, entityType, metadata } = entity;
        withMetadata.push({ kind: "entity", write: () => services.core.upsertEntity(to, actor, { name, entityType, metadata }) });
      }
    }
    for (const relation of page.relations) {
      const { fromName, toName, relationType, metadata } = relation;
      input.relations.push({ line: input.relations.length + 1, from: fromName, to: toName, relationType });
      if (Object.keys(metadata).length > 0) {
        withMetadata.push({
          kind: "relation",
          write: () => services.core.upsertRelation(to, actor, { from: { name: fromName }, to: { name: toName }, relationType, metadata }),
        });
      }
    }
    cursor = page.cursor;
  } while (cursor);
  input.tags = (await services.tags.allTags(from)).map((tag, i) => ({ ...tag, line: i + 1 }));
  const report = await services.graph.importGraph(to, actor, input);
  await forEachLimited(withMetadata, WRITES_IN_FLIGHT, async ({ write }) => void (await write()));
  return { ...report, metadataWritten: withMetadata.length };
}
