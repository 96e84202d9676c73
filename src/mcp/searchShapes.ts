import { z } from "zod";

import type { Relation } from "../domain/model/model.js";
import type { EntityHit } from "../domain/ports/graphIndex.js";
import { authorshipFields, authorshipOf, relationEnds, relationEndsOf, tagFields, tagFieldsOf, versionOrLegacy } from "./graphShapes.js";
import { metadataOutput } from "./schemas.js";

/** The shapes the search tools return (docs/search.md), each projected from the domain in one place. */

const hitEntity = z.object({
  id: z.string(),
  name: z.string(),
  entityType: z.string(),
  observations: z.array(z.string()).describe("Every observation, in the order added."),
  ...tagFields,
  version: z
    .string()
    .optional()
    .describe("Changes whenever the entity's own fields change; pass it as expectedVersion (docs/curate.md#versions)."),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  ...authorshipFields,
});

export const entityHitsOutput = {
  workspaceName: z.string(),
  hits: z.array(
    z.object({
      entity: hitEntity,
      score: z.number().describe("Relevance (BM25); higher is better. 0 when listing by filters alone."),
      matchedFields: z.array(z.enum(["name", "entityType", "observations"])).describe("Where the query matched."),
      matchedObservations: z.array(z.string()).describe("The observations that matched the query."),
    }),
  ),
  nextCursor: z.string().optional().describe("Present when more hits follow: pass it back as `cursor` with the same other arguments."),
};

export function toEntityHits(workspace: string, page: { hits: EntityHit[]; nextCursor?: string }, withTags: boolean) {
  return {
    workspaceName: workspace,
    hits: page.hits.map(({ entity, score, matchedFields, matchedObservations, version }) => ({
      entity: {
        id: entity.id,
        name: entity.name,
        entityType: entity.entityType,
        observations: entity.observations,
        ...(withTags ? tagFieldsOf(entity) : {}),
        version: versionOrLegacy({ version: version ?? entity.version }),
        ...(entity.createdAt ? { createdAt: entity.createdAt } : {}),
        ...(entity.updatedAt ? { updatedAt: entity.updatedAt } : {}),
        ...authorshipOf(entity),
      },
      score,
      matchedFields,
      matchedObservations,
    })),
    ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
  };
}

export const relationsOutput = {
  workspaceName: z.string(),
  relations: z.array(
    z.object({
      ...relationEnds,
      metadata: metadataOutput,
      ...authorshipFields,
    }),
  ),
  nextCursor: z.string().optional().describe("Present when more relations follow: pass it back as `cursor` with the same other arguments."),
};

export function toRelations(workspace: string, page: { relations: Relation[]; nextCursor?: string }) {
  return {
    workspaceName: workspace,
    relations: page.relations.map((r) => ({
      ...relationEndsOf(r),
      metadata: r.metadata,
      ...authorshipOf(r),
    })),
    ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
  };
}
