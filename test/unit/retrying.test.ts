import { RestError } from "@azure/core-rest-pipeline";
import { describe, expect, test } from "@jest/globals";

import { ConflictError, NotFoundError, StorageError } from "../../src/domain/model/errors.js";
import { MAX_ATTEMPTS, retrying } from "../../src/storage/table/retrying.js";
import type { StorageFailure } from "../../src/storage/table/storageErrors.js";

/** The adapter's one optimistic-concurrency loop, on its own (no storage: the failures are the service's error shapes). */
const exists = () => new RestError("exists", { statusCode: 409, code: "EntityAlreadyExists" });
const gone = () => new RestError("gone", { statusCode: 404, code: "ResourceNotFound" });
const refused = () => new RestError("refused", { statusCode: 403, code: "AuthorizationFailure" });

describe("retrying", () => {
  test("runs the attempt again on a named failure, telling it what failed, and returns what the attempt returns", async () => {
    const seen: (StorageFailure | undefined)[] = [];
    const result = await retrying({ retryOn: ["entity-exists", "not-found"] }, async (previous) => {
      seen.push(previous);
      if (seen.length === 1) throw exists();
      if (seen.length === 2) throw gone();
      return "done";
    });
    expect(result).toBe("done");
    expect(seen).toEqual([undefined, "entity-exists", "not-found"]);
  });

  test("a failure the policy does not name ends the call at once, mapped to a domain error", async () => {
    let attempts = 0;
    const call = retrying({ retryOn: ["not-found"] }, async () => {
      attempts += 1;
      throw attempts === 1 ? exists() : gone();
    });
    await expect(call).rejects.toBeInstanceOf(ConflictError);
    expect(attempts).toBe(1);
    await expect(retrying({ retryOn: ["not-found"] }, () => Promise.reject(refused()))).rejects.toBeInstanceOf(StorageError);
  });

  test(`stops after ${MAX_ATTEMPTS} attempts; a lost race is mapped as usual, or for deletes as a conflict that says to retry`, async () => {
    let attempts = 0;
    const mapped = retrying({ retryOn: ["not-found"] }, async () => {
      attempts += 1;
      throw gone();
    });
    await expect(mapped).rejects.toBeInstanceOf(NotFoundError);
    expect(attempts).toBe(MAX_ATTEMPTS);
    await expect(retrying({ retryOn: ["not-found"], exhausted: "conflict" }, () => Promise.reject(gone()))).rejects.toThrow(
      new ConflictError("The data kept changing while it was being deleted. Retry the call."),
    );
  });

  test("a predicate decides from what the attempt saw (a create lost to a creator, a merge lost to a delete: read again)", async () => {
    let creating = false;
    const retryOn = (failure: StorageFailure) => (creating ? failure === "entity-exists" : failure === "not-found");
    // What each attempt finds and how its write fails: absent (create, 409), present (merge, 404), absent (create, success).
    const plan = [
      { creating: true, fail: exists },
      { creating: false, fail: gone },
      { creating: true, fail: undefined },
    ];
    let attempts = 0;
    const created = await retrying({ retryOn }, async () => {
      const step = plan[attempts++]!;
      creating = step.creating;
      if (step.fail) throw step.fail();
      return creating;
    });
    expect([created, attempts]).toEqual([true, 3]);
    // A create that fails with 404 is not a race the predicate names: it ends the call.
    attempts = 0;
    const call = retrying({ retryOn }, async () => {
      attempts += 1;
      creating = true;
      throw gone();
    });
    await expect(call).rejects.toBeInstanceOf(NotFoundError);
    expect(attempts).toBe(1);
  });
});
