import type { TableClient } from "@azure/data-tables";
import { classifyStorageError } from "../storage/errors.js";

export interface ReadinessProbe {
  check(): Promise<{ ready: true } | { ready: false; reason: string }>;
}

/**
 * Readiness = the table answers. One point read of a row that never exists: a 404 for the row
 * proves the account and table are reachable. The probe client has no retries and a short
 * timeout, and concurrent probes share one request, so load balancers cost one read per burst.
 */
export function tableReadiness(probe: TableClient): ReadinessProbe {
  let inFlight: ReturnType<ReadinessProbe["check"]> | undefined;
  const run = async (): ReturnType<ReadinessProbe["check"]> => {
    try {
      await probe.getEntity("~readiness", "~readiness");
      return { ready: true };
    } catch (error) {
      switch (classifyStorageError(error)) {
        case "not-found":
          return { ready: true };
        case "table-missing":
          return { ready: false, reason: "The memory table does not exist yet." };
        case "unreachable":
          return { ready: false, reason: "Table Storage is unreachable." };
        default:
          return { ready: false, reason: "Table Storage refused the readiness check." };
      }
    }
  };
  return {
    check() {
      inFlight ??= run().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
  };
}
