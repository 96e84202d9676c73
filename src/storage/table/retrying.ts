import { ConflictError } from "../../domain/model/errors.js";
import { classifyStorageError, type StorageFailure, toMemoryError } from "./storageErrors.js";

/** Races are settled by retrying with what the store now says; this bounds a pathological loop. */
export const MAX_ATTEMPTS = 8;

export interface RetryPolicy {
  /** The failures that mean a concurrent writer changed what the attempt read: read again and decide again. */
  retryOn: readonly StorageFailure[] | ((failure: StorageFailure) => boolean);
  /**
   * How a failure ends the call: mapped as usual, or, for deletes, a race still lost after the last
   * attempt (a row went away, an ETag changed) as a conflict that says to retry the call.
   */
  exhausted?: "mapped" | "conflict";
}

/**
 * The one optimistic-concurrency loop of the adapter (the rules it serves are in transactions.ts).
 * `attempt` reads, decides and writes; when it fails with a failure the policy names, it runs again,
 * told what failed, up to MAX_ATTEMPTS. Any other failure, or the last, becomes a domain error.
 */
export async function retrying<T>(policy: RetryPolicy, attempt: (previous: StorageFailure | undefined) => Promise<T>): Promise<T> {
  let previous: StorageFailure | undefined;
  for (let count = 1; ; count++) {
    try {
      return await attempt(previous);
    } catch (error) {
      const failure = classifyStorageError(error);
      const retryable = typeof policy.retryOn === "function" ? policy.retryOn(failure) : policy.retryOn.includes(failure);
      if (!retryable || count >= MAX_ATTEMPTS) throw policy.exhausted === "conflict" ? raceLost(error) : toMemoryError(error);
      previous = failure;
    }
  }
}

/** A delete that kept losing races: say so as a conflict (retry); other failures map as usual. */
function raceLost(error: unknown) {
  const failure = classifyStorageError(error);
  if (failure === "not-found" || failure === "precondition-failed") {
    return new ConflictError("The data kept changing while it was being deleted. Retry the call.");
  }
  return toMemoryError(error);
}
