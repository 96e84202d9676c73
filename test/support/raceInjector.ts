import type { TableClient } from "@azure/data-tables";

export interface RaceInjector {
  /** Runs `race` (a write through another client) just before the next entity-group transaction this client sends. */
  beforeNextTransaction(race: () => Promise<unknown>): void;
}

/**
 * A concurrent writer that wins its race every time: a pipeline policy on the server's own TableClient
 * that, once armed, lets another write land between a call's reads and its transaction. The write is
 * a real one, on the real Azurite; nothing about Table Storage is imitated.
 */
export function injectRaces(client: TableClient): RaceInjector {
  let pending: (() => Promise<unknown>) | undefined;
  client.pipeline.addPolicy({
    name: "testRaceBeforeTransaction",
    sendRequest: async (request, next) => {
      const race = pending;
      if (race && new URL(request.url).pathname.endsWith("$batch")) {
        pending = undefined;
        await race();
      }
      return next(request);
    },
  });
  return { beforeNextTransaction: (race) => (pending = race) };
}
