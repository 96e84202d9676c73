import { z } from "zod";

import type { Relation } from "../domain/model/model.js";
import type { EntityHit } from "../domain/ports/graphIndex.js";
import type { TimeLens } from "../domain/rules/validity.js";
import {
  authorshipFields,
  authorshipOf,
  entityValidityFields,
  entityValidityOf,
  relationEnds,
  relationEndsOf,
  relationValidityFields,
  relationValidityOf,
  tagFields,
  tagFieldsOf,
  versionOrLegacy,
} from "./graphShapes.js";
import { metadataOutput } from "./schemas.js";

/** The shapes the search tools return (docs/search.md), each projected from the domain in one place. */

const hitEntity = z.object({
  id: z.string(),
  name: z.string(),
  entityType: z.string(),
  observations: z
    .array(z.string())
    .describe("Every observation that shows (docs/history.md#two-times: by default those true now), in the order added."),
  ...tagFields,
  ...entityValidityFields,
  version: z
    .string()
    .optional()
    .describe("Changes whenever the entity's own fields change; pass it as expectedVersion (docs/curate.md#versions)."),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  ...authorshipFields,
});

const explanation = z.object({
  words: z.object({ rank: z.number(), score: z.number() }).optional().describe("BM25 over names, types and observations."),
  meaning: z
    .object({
      rank: z.number(),
      similarity: z.number(),
      observation: z.string().optional().describe("The entity's observation nearest the query; absent when its name was."),
    })
    .optional()
    .describe("Vector similarity of the query to the entity's name and observations."),
  graph: z
    .object({
      rank: z.number(),
      via: z.object({ from: z.string(), relationType: z.string(), to: z.string() }),
    })
    .optional()
    .describe("A neighbour of a strong hit: the relation that links them."),
});

export const entityHitsOutput = {
  workspaceName: z.string(),
  hits: z.array(
    z.object({
      entity: hitEntity,
      score: z
        .number()
        .describe(
          "Relevance, higher is better: the fused rank score in mode hybrid, BM25 in words, cosine similarity in meaning; 0 when listing by filters alone.",
        ),
      matchedFields: z.array(z.enum(["name", "entityType", "observations"])).describe("Where the query's words matched."),
      matchedObservations: z
        .array(z.string())
        .describe("The observations that matched the query: by its words, or the one nearest its meaning."),
      explain: explanation.optional().describe("With explain: true, which rankers found the hit, at what rank, and through what."),
    }),
  ),
  nextCursor: z.string().optional().describe("Present when more hits follow: pass it back as `cursor` with the same other arguments."),
};

export function toEntityHits(workspace: string, page: { hits: EntityHit[]; nextCursor?: string }, lens: TimeLens, withTags: boolean) {
  return {
    workspaceName: workspace,
    hits: page.hits.map(({ entity, score, matchedFields, matchedObservations, version, explain }) => ({
      entity: {
        id: entity.id,
        name: entity.name,
        entityType: entity.entityType,
        observations: entity.observations,
        ...(withTags ? tagFieldsOf(entity) : {}),
        ...entityValidityOf(entity, lens),
        version: versionOrLegacy({ version: version ?? entity.version }),
        ...(entity.createdAt ? { createdAt: entity.createdAt } : {}),
        ...(entity.updatedAt ? { updatedAt: entity.updatedAt } : {}),
        ...authorshipOf(entity),
      },
      score,
      matchedFields,
      matchedObservations,
      ...(explain ? { explain } : {}),
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
      ...relationValidityFields,
    }),
  ),
  nextCursor: z.string().optional().describe("Present when more relations follow: pass it back as `cursor` with the same other arguments."),
};

export function toRelations(workspace: string, page: { relations: Relation[]; nextCursor?: string }, lens: TimeLens) {
  return {
    workspaceName: workspace,
    relations: page.relations.map((r) => ({
      ...relationEndsOf(r),
      metadata: r.metadata,
      ...authorshipOf(r),
      ...relationValidityOf(r, lens),
    })),
    ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
  };
}
