import { RestError } from "@azure/core-rest-pipeline";
import type { TableClient } from "@azure/data-tables";

export interface FaultInjector {
  /** From now on, lets `requests` more requests through, then fails every one until healed. */
  failAfter(requests: number): void;
  heal(): void;
  /** How many requests were failed so far. */
  readonly failed: number;
}

/**
 * Storage that breaks part-way through a call: a pipeline policy on the server's own TableClient that,
 * once armed, fails requests as a dropped connection does (no HTTP answer), before they leave the
 * process. Everything it lets through reaches the real Azurite; nothing about Table Storage is imitated.
 */
export function injectFaults(client: TableClient): FaultInjector {
  let allowance = Number.POSITIVE_INFINITY;
  let failed = 0;
  client.pipeline.addPolicy({
    name: "testFaultInjector",
    sendRequest: (request, next) => {
      if (allowance <= 0) {
        failed += 1;
        return Promise.reject(new RestError("Injected fault: the connection was reset.", { code: "ECONNRESET", request }));
      }
      allowance -= 1;
      return next(request);
    },
  });
  return {
    failAfter: (requests) => (allowance = requests),
    heal: () => (allowance = Number.POSITIVE_INFINITY),
    get failed() {
      return failed;
    },
  };
}
