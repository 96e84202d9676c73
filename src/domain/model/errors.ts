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

/**
 * A concurrent writer won a race that could not be settled automatically; retry the call. A version
 * conflict (expectedVersion, docs/curate.md#versions) carries the version stored now (null: no such row).
 */
export class ConflictError extends MemoryError {
  readonly kind = "ConflictError";
  constructor(
    message: string,
    readonly currentVersion?: string | null,
  ) {
    super(message);
  }
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

/**
 * A failure described for a caller: `kind` to branch on, `message` saying how to recover, and
 * optional fields (e.g. `problems`). The HTTP edge describes its own refusals (NotFound, Forbidden,
 * MethodNotAllowed...) this way; the presenter below turns them, and MemoryErrors, into every shape.
 */
export interface Problem {
  kind: string;
  message: string;
  details?: Record<string, unknown>;
}

/** A tool result as MCP defines it (the SDK's CallToolResult), built here as a plain object. */
export interface ToolErrorResult {
  [field: string]: unknown;
  isError: true;
  content: { type: "text"; text: string }[];
  structuredContent?: { success: false; error: string; message: string; currentVersion?: string | null };
}

/** The `error` member of a JSON-RPC error response. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
}

/** The one body shape of every HTTP error this server answers. */
export interface HttpErrorBody {
  [field: string]: unknown;
  error: string;
  message: string;
}

export type ErrorForm =
  /** `structured: false` leaves out structuredContent (for tools whose exact outputSchema cannot admit it). */
  { as: "tool"; structured?: boolean } | { as: "jsonrpc"; code: number } | { as: "http" };

const UNEXPECTED: Problem = {
  kind: "StorageError",
  message: "The server failed while handling this call. It may be retried; if it keeps failing, report it.",
};

/**
 * The one place a failure becomes what a caller reads: a tool result (isError, and
 * `{success: false, error, message}` as structured content and as text), a JSON-RPC error, or an
 * HTTP error body `{error, message, ...details}`. Anything that is neither a MemoryError nor a
 * Problem is a bug or an unmapped failure: it is reported without its text.
 */
export function presentError(error: unknown, form: { as: "tool"; structured?: boolean }): ToolErrorResult;
export function presentError(error: unknown, form: { as: "jsonrpc"; code: number }): JsonRpcErrorObject;
export function presentError(error: unknown, form: { as: "http" }): HttpErrorBody;
export function presentError(error: unknown, form: ErrorForm): ToolErrorResult | JsonRpcErrorObject | HttpErrorBody {
  const problem = problemOf(error);
  switch (form.as) {
    case "tool": {
      const structured = { success: false as const, error: problem.kind, message: problem.message, ...problem.details };
      const content = [{ type: "text" as const, text: JSON.stringify(structured) }];
      return form.structured === false ? { isError: true, content } : { isError: true, structuredContent: structured, content };
    }
    case "jsonrpc":
      return { code: form.code, message: problem.message };
    case "http":
      return { ...problem.details, error: problem.kind, message: problem.message };
  }
}

function problemOf(error: unknown): Problem {
  if (error instanceof ConflictError && error.currentVersion !== undefined) {
    return { kind: error.kind, message: error.message, details: { currentVersion: error.currentVersion } };
  }
  if (error instanceof MemoryError) return { kind: error.kind, message: error.message };
  if (isProblem(error)) return error;
  return UNEXPECTED;
}

/** A plain Problem object; an Error never counts, so a stray exception's text cannot leak. */
function isProblem(value: unknown): value is Problem {
  if (typeof value !== "object" || value === null || value instanceof Error) return false;
  const { kind, message } = value as Partial<Problem>;
  return typeof kind === "string" && typeof message === "string";
}
