import { z } from "zod";

import { ERROR_KINDS } from "../../domain/model/errors.js";
import { LIMITS } from "../../domain/model/limits.js";
import { MAX_BATCH_OPERATIONS } from "../../domain/rules/batch.js";
import type { BatchOp } from "../../domain/rules/batchModel.js";
import { DESTRUCTIVE_WRITE } from "../annotations.js";
import { defineTool } from "../tool.js";
import { addObservations } from "./addObservations.js";
import { deleteEntities } from "./deleteEntities.js";
import { deleteObservations } from "./deleteObservations.js";
import { deleteRelations } from "./deleteRelations.js";
import { upsertEntity } from "./upsertEntity.js";
import { upsertRelation } from "./upsertRelation.js";

/**
 * Each op takes the arguments of the tool of the same name: their schemas, not copies. delete_entities' own `confirm` is
 * left out: a batch is confirmed as a whole (below), so one op's confirmation could not speak for the others.
 */
const operation = z.discriminatedUnion("op", [
  z.object({ op: z.literal("upsert_entity"), args: z.object(upsertEntity.input) }),
  z.object({ op: z.literal("add_observations"), args: z.object(addObservations.input) }),
  z.object({ op: z.literal("upsert_relation"), args: z.object(upsertRelation.input) }),
  z.object({ op: z.literal("delete_entities"), args: z.object(deleteEntities.input).omit({ confirm: true } as never) }),
  z.object({ op: z.literal("delete_relations"), args: z.object(deleteRelations.input) }),
  z.object({ op: z.literal("delete_observations"), args: z.object(deleteObservations.input) }),
]);

type RelationArgs = { fromEntityId?: string; toEntityId?: string; from?: string; to?: string; relationType: string };

/** The domain's operation; upsert_relation's endpoint arguments become references, as that tool makes them. */
function toBatchOp(given: z.infer<typeof operation>): BatchOp {
  if (given.op !== "upsert_relation") return given as BatchOp;
  const args = given.args as RelationArgs & { metadata?: unknown; expectedVersion?: string };
  return {
    op: "upsert_relation",
    args: {
      from: { id: args.fromEntityId, name: args.from },
      to: { id: args.toEntityId, name: args.to },
      relationType: args.relationType,
      metadata: args.metadata,
      expectedVersion: args.expectedVersion,
    },
  };
}

export const executeBatch = defineTool({
  name: "execute_batch",
  toolsets: ["curate"],
  title: "Run several writes as one batch",
  description:
    "Run up to 100 write operations in order (op: upsert_entity, add_observations, upsert_relation, delete_entities, " +
    "delete_relations or delete_observations; args: that tool's arguments). atomic: true applies all of them in one transaction " +
    "or none (it must fit one transaction of 100 rows); otherwise each runs on its own and reports its own result. Give a " +
    "requestId (e.g. a UUID) to retry safely: the same requestId within 24 hours returns the first answer (replayed: true) " +
    "instead of writing again. Returns one result per operation.",
  input: {
    operations: z.array(operation).describe(`The writes, in order (1-${MAX_BATCH_OPERATIONS}).`),
    atomic: z.boolean().optional().describe("true: all or nothing, in one transaction. Default false: each operation on its own."),
    requestId: z
      .string()
      .optional()
      .describe("Makes retries safe: the same requestId within 24 hours applies once and returns the first answer."),
    confirm: z
      .boolean()
      .optional()
      .describe(
        `true: confirms a batch whose delete_entities operations delete more than ${LIMITS.deleteEntitiesUnconfirmed} entities in all, ` +
          "for a client that cannot ask its user (required then), as delete_entities itself needs.",
      ),
  },
  output: {
    success: z.literal(true),
    atomic: z.boolean(),
    replayed: z.boolean().describe("true: this requestId had run already; these are its first results, and nothing was written now."),
    results: z
      .array(
        z.looseObject({
          index: z.number(),
          op: z.string(),
          success: z.boolean(),
          error: z.enum(ERROR_KINDS).optional(),
          message: z.string().optional(),
        }),
      )
      .describe("One per operation, in order: its tool's answer (ids, created, version...), or its error (non-atomic only)."),
    digest: z.string().optional().describe("Present instead of results when a replayed answer was too large to keep."),
  },
  annotations: DESTRUCTIVE_WRITE,
  async handler(args, { services, workspace, actor, confirm }) {
    // A batch may not delete more without a confirmation than delete_entities may (docs/confirmation.md).
    const deleted = [
      ...new Set(args.operations.flatMap((operation) => (operation.op === "delete_entities" ? operation.args.entityNames : []))),
    ];
    if (deleted.length > LIMITS.deleteEntitiesUnconfirmed) {
      await confirm({
        question: `Run a batch of ${args.operations.length} writes on workspace '${workspace}' that deletes ${deleted.length} entities, with their observations and relations?`,
        subject: { operations: args.operations, atomic: args.atomic ?? false },
        explicit: args.confirm === true,
        howToConfirm: `pass confirm: true to run a batch that deletes ${deleted.length} entities (more than ${LIMITS.deleteEntitiesUnconfirmed} need it)`,
      });
    }
    const answer = await services.curate.executeBatch(workspace, actor, args.operations.map(toBatchOp), {
      atomic: args.atomic ?? false,
      ...(args.requestId !== undefined ? { requestId: args.requestId } : {}),
    });
    return {
      success: true as const,
      atomic: answer.atomic,
      replayed: answer.replayed,
      results: answer.results as { index: number; op: string; success: boolean }[],
      ...(answer.digest !== undefined ? { digest: answer.digest } : {}),
    };
  },
});
