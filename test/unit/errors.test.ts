import { describe, expect, test } from "@jest/globals";

import { NotFoundError, presentError, ValidationError } from "../../src/domain/model/errors.js";

/** The one presenter: a failure as a tool result, a JSON-RPC error or an HTTP body (pure, no storage). */
describe("presentError", () => {
  const notFound = new NotFoundError("Entity 'A' not found in workspace 'w'.");

  test("a MemoryError as a tool result: isError, structured content and the same JSON as text", () => {
    const structured = { success: false, error: "NotFoundError", message: "Entity 'A' not found in workspace 'w'." };
    expect(presentError(notFound, { as: "tool" })).toEqual({
      isError: true,
      structuredContent: structured,
      content: [{ type: "text", text: JSON.stringify(structured) }],
    });
    expect(presentError(notFound, { as: "tool", structured: false })).toEqual({
      isError: true,
      content: [{ type: "text", text: JSON.stringify(structured) }],
    });
  });

  test("the same failure as a JSON-RPC error and as the one HTTP body", () => {
    expect(presentError(notFound, { as: "jsonrpc", code: -32603 })).toEqual({ code: -32603, message: notFound.message });
    expect(presentError(new ValidationError("Bad name."), { as: "http" })).toEqual({ error: "ValidationError", message: "Bad name." });
  });

  test("an edge Problem keeps its kind and its extra fields, which cannot override error or message", () => {
    const problem = { kind: "InvalidConfiguration", message: "Fix it.", details: { problems: [{ setting: "X" }], error: "nope" } };
    expect(presentError(problem, { as: "http" })).toEqual({
      error: "InvalidConfiguration",
      message: "Fix it.",
      problems: [{ setting: "X" }],
    });
  });

  test("any other error is reported without its text, in every form", () => {
    const leak = Object.assign(new Error("connection string AccountKey=secret"), { kind: "Sneaky" });
    const generic = /The server failed while handling this call/;
    expect(presentError(leak, { as: "http" })).toEqual({ error: "StorageError", message: expect.stringMatching(generic) });
    expect(presentError(leak, { as: "jsonrpc", code: -32603 }).message).toMatch(generic);
    expect(JSON.stringify(presentError("a string", { as: "tool" }))).not.toMatch(/a string/);
  });
});
