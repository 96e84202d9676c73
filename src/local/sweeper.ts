import type { TimeService } from "../domain/services/timeService.js";

/**
 * `npm start`'s sweep of expired items (docs/history.md#expiry-and-pinning): every MEMORY_SWEEP_INTERVAL_MINUTES, every
 * registered workspace, as "system:sweep". The timer is unref'd, so it never keeps the process alive, and a sweep still
 * running when the next is due is not doubled. `stop` clears it and waits for a sweep in progress.
 */
export interface Sweeper {
  stop(): Promise<void>;
}

export function startSweeper(time: TimeService, minutes: number, log: (line: string) => void = console.log): Sweeper {
  if (minutes <= 0) return { stop: async () => undefined };
  let running: Promise<void> | undefined;
  const sweep = async () => {
    for (const result of await time.sweepEverywhere()) {
      const answer = result.answer;
      if (result.error !== undefined) log(`Sweep of '${result.workspace}' failed: ${result.error}`);
      else if (answer && answer.entities + answer.observations + answer.relations > 0) {
        log(
          `Swept '${result.workspace}': ${answer.entities} entities, ${answer.observations} observations, ${answer.relations} relations.`,
        );
      }
    }
  };
  const timer = setInterval(() => {
    running ??= sweep()
      .catch((error: unknown) => log(`Sweep failed: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => (running = undefined));
  }, minutes * 60_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
