import type { StorageConnection } from "../storage/table/client.js";

export interface ReadinessProbe {
  check(): Promise<{ ready: true } | { ready: false; reason: string }>;
}

/** Fixed text: the service's own message could echo request details. */
const CANNOT_CREATE =
  "The memory table does not exist and could not be created. Check MEMORY_TABLE_NAME, and that the server's identity " +
  "has the Storage Table Data Contributor role on the storage account.";

/**
 * Readiness = the table answers (the storage connection's probe: one point read, no retries, a short timeout).
 * Concurrent probes share one request, so load balancers cost one read per burst.
 *
 * A missing table is created here (through the connection's once-per-process ensureTable, so tool
 * calls share it): behind a load balancer that sends traffic only to ready instances, no tool call
 * would ever come to create it.
 */
export function tableReadiness(storage: Pick<StorageConnection, "probe" | "ensureTable">): ReadinessProbe {
  let inFlight: ReturnType<ReadinessProbe["check"]> | undefined;
  const run = async (): ReturnType<ReadinessProbe["check"]> => {
    switch (await storage.probe()) {
      case "reachable":
        return { ready: true };
      case "table-missing":
        return createTable(storage);
      case "unreachable":
        return { ready: false, reason: "Table Storage is unreachable." };
      case "refused":
        return { ready: false, reason: "Table Storage refused the readiness check." };
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

async function createTable(storage: Pick<StorageConnection, "ensureTable">): ReturnType<ReadinessProbe["check"]> {
  try {
    await storage.ensureTable();
    return { ready: true };
  } catch {
    return { ready: false, reason: CANNOT_CREATE };
  }
}
