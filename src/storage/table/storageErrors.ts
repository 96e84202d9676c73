import { isRestError, type RestError } from "@azure/core-rest-pipeline";

import { ConflictError, MemoryError, NotFoundError, StorageError } from "../../domain/model/errors.js";

/** What a failed storage call means to the adapter, decided from status and `odata.error` code. */
export type StorageFailure =
  | "entity-exists" // 409 EntityAlreadyExists or TableAlreadyExists: a create lost a race
  | "not-found" // 404 ResourceNotFound: a row an update, delete or guard needed is gone
  | "precondition-failed" // 412 UpdateConditionNotSatisfied: an ETag no longer matches
  | "table-missing" // 404 TableNotFound
  | "unreachable" // no HTTP answer at all
  | "other";

export function classifyStorageError(error: unknown): StorageFailure {
  if (!isRestError(error)) {
    // A per-attempt timeout aborts the request before any HTTP answer.
    const name = error instanceof Error ? error.name : "";
    return name === "AbortError" || name === "TimeoutError" ? "unreachable" : "other";
  }
  const code = serviceErrorCode(error) ?? "";
  if (error.statusCode === undefined) return "unreachable";
  if (code === "TableNotFound") return "table-missing";
  if (error.statusCode === 409 && (code === "EntityAlreadyExists" || code === "TableAlreadyExists" || code === "")) return "entity-exists";
  if (error.statusCode === 404) return "not-found";
  if (error.statusCode === 412 || code === "UpdateConditionNotSatisfied") return "precondition-failed";
  return "other";
}

/**
 * The service's error code. The SDK sets `code` only for failed transactions; a single operation
 * carries it in `details.errorCode`, or (inside the pipeline, before the SDK adds details) only in
 * the x-ms-error-code response header. Without this, TableNotFound looked like a missing row.
 */
function serviceErrorCode(error: RestError): string | undefined {
  const details =
    error.details !== null && typeof error.details === "object" ? (error.details as { errorCode?: unknown }).errorCode : undefined;
  return error.code ?? (typeof details === "string" ? details : undefined) ?? error.response?.headers.get("x-ms-error-code");
}

/**
 * The one place that turns a storage failure into a domain error. Messages never carry the
 * raw service text (it can echo request details); they say what the caller can do.
 */
export function toMemoryError(error: unknown): MemoryError {
  if (error instanceof MemoryError) return error;
  switch (classifyStorageError(error)) {
    case "entity-exists":
    case "precondition-failed":
      return new ConflictError("A concurrent write changed the same data. Retry the call.");
    case "not-found":
      return new NotFoundError("The data changed while the call ran (it was deleted concurrently). Read it again, then retry.");
    case "table-missing":
      return new StorageError(
        "The memory table does not exist (it was deleted while the server ran?). It is created again on the next call: retry. If this persists, check MEMORY_TABLE_NAME and the storage permissions.",
      );
    case "unreachable":
      return new StorageError("Table Storage could not be reached. The call may be retried once storage is available.");
    default: {
      const status = isRestError(error) ? ` (HTTP ${error.statusCode ?? "?"}, ${error.code ?? "no code"})` : "";
      return new StorageError(`Table Storage rejected the request${status}. The call may be retried later.`);
    }
  }
}
