/**
 * The error kinds a caller can see. Every failure that reaches a client is one of these,
 * so an agent can branch on `error` and read `message` for how to recover.
 */
export const ERROR_KINDS = ["ValidationError", "NotFoundError", "ConflictError", "StorageError", "ForbiddenError"] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

export abstract class MemoryError extends Error {
  abstract readonly kind: ErrorKind;
}

/** The request itself is wrong; retrying it unchanged will fail again. */
export class ValidationError extends MemoryError {
  readonly kind = "ValidationError";
}

/** Something the request names does not exist in the workspace. */
export class NotFoundError extends MemoryError {
  readonly kind = "NotFoundError";
}

/** A concurrent writer won a race that could not be settled automatically; retry the call. */
export class ConflictError extends MemoryError {
  readonly kind = "ConflictError";
}

/** The store failed or could not be reached; the call may be retried later. */
export class StorageError extends MemoryError {
  readonly kind = "StorageError";
}

/**
 * The caller has no grant for this workspace, or only read access for a write. The message
 * starts with "Forbidden:" and never says anything about the workspace's contents or existence.
 */
export class ForbiddenError extends MemoryError {
  readonly kind = "ForbiddenError";
  constructor(reason: string) {
    super(`Forbidden: ${reason}`);
  }
}
