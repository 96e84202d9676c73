import type { Metadata } from "../model/model.js";

/**
 * The shapes of execute_batch (docs/curate.md#execute_batch), below both the rules (batch.ts) and the
 * storage port, which speak of them.
 */

/** An entity by id or by name (as upsert_relation takes endpoints). */
interface EntityRefArgs {
  id?: string;
  name?: string;
}

/** Each op takes the arguments of the tool of the same name. */
export type BatchOp =
  | {
      op: "upsert_entity";
      args: { name: string; entityType: string; observations?: string[]; metadata?: unknown; expectedVersion?: string };
    }
  | { op: "add_observations"; args: { observations: { entityName: string; contents: string[] }[] } }
  | {
      op: "upsert_relation";
      args: { from: EntityRefArgs; to: EntityRefArgs; relationType: string; metadata?: unknown; expectedVersion?: string };
    }
  | { op: "delete_entities"; args: { entityNames: string[] } }
  | { op: "delete_relations"; args: { relations: { from: string; to: string; relationType: string }[] } }
  | { op: "delete_observations"; args: { deletions: { entityName: string; observations: string[] }[] } };

/** Named entities' observations to add or delete, in one step. */
interface ObservationItems {
  items: { entityId: string; entityName: string; contents: string[] }[];
}

/** One checked operation of an atomic batch, with ids derived. */
export type BatchStep =
  | {
      op: "upsert_entity";
      write: { id: string; name: string; entityType: string; metadata?: Metadata; observations: string[]; expectedVersion?: string };
    }
  | ({ op: "add_observations" } & ObservationItems)
  | {
      op: "upsert_relation";
      relation: { id: string; fromEntityId: string; toEntityId: string; relationType: string; metadata?: Metadata };
      expectedVersion?: string;
      /** How the caller named each endpoint, for messages. */
      labels: { from: string; to: string };
    }
  | { op: "delete_entities"; entityIds: string[] }
  | { op: "delete_relations"; relations: { id: string; fromEntityId: string; toEntityId: string }[] }
  | ({ op: "delete_observations" } & ObservationItems);

/** What one operation reports (the fields of its tool's answer that matter in a batch). */
export type StepResult = Record<string, unknown>;

/** A batch's answer, as returned and as its marker keeps it. `digest` replaces `results` when they were too big to keep. */
export interface BatchAnswer {
  atomic: boolean;
  results: StepResult[];
  digest?: string;
}

/** What claiming a non-atomic batch's requestId found (docs/curate.md#idempotency). */
export type BatchClaim = { status: "claimed" } | { status: "running" } | { status: "done"; answer: BatchAnswer };
