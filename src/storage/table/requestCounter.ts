import { AsyncLocalStorage } from "node:async_hooks";

import type { PipelinePolicy } from "@azure/core-rest-pipeline";

/**
 * Counts storage round trips. Each HTTP request the TableClient sends passes through the policy,
 * which adds one to the process total and to the counter of the current tool call, found through
 * AsyncLocalStorage so concurrent calls do not mix their counts.
 */
export class RequestCounter {
  private readonly scope = new AsyncLocalStorage<{ requests: number }>();
  total = 0;
  /** Bytes of the answers' bodies so far (what the reads downloaded; the bench reports it per call). */
  bytes = 0;

  readonly policy: PipelinePolicy = {
    name: "centralMemoryRequestCounter",
    sendRequest: async (request, next) => {
      this.total += 1;
      const current = this.scope.getStore();
      if (current) current.requests += 1;
      const response = await next(request);
      this.bytes += Buffer.byteLength(response.bodyAsText ?? "");
      return response;
    },
  };

  /** Runs `work`, counting its storage requests into `tally` (read it afterwards, on success or failure). */
  run<T>(work: () => Promise<T>, tally: { requests: number }): Promise<T> {
    return this.scope.run(tally, work);
  }
}
