import { app, type InvocationContext, type Timer } from "@azure/functions";

import { DEFAULT_SWEEP_INTERVAL_MINUTES, SettingsReader, sweepSchedule } from "../config/table.js";
import { createRuntime, type Runtime } from "../runtime.js";

/**
 * The sweep of expired items (docs/history.md#expiry-and-pinning) as a timer trigger: every MEMORY_SWEEP_INTERVAL_MINUTES
 * (default 5; 0: no trigger), every registered workspace, as "system:sweep". The schedule is read when the host loads the
 * app (it restarts on a settings change); an invalid value schedules the default, and is reported by the HTTP routes (503)
 * and by each run here. No logic lives here: TimeService.sweepEverywhere does the work.
 */
export const SWEEP_FUNCTION = "sweepExpired";

const minutes = new SettingsReader(process.env).get("MEMORY_SWEEP_INTERVAL_MINUTES") ?? DEFAULT_SWEEP_INTERVAL_MINUTES;
if (minutes > 0) app.timer(SWEEP_FUNCTION, { schedule: sweepSchedule(minutes), handler: sweepTimer });

/** Built on the first run, not at import, so a cold start does no storage work; kept for the life of the process. */
let runtime: Runtime | undefined;

export async function sweepTimer(timer: Timer, context: InvocationContext): Promise<void> {
  try {
    runtime ??= createRuntime(process.env, { door: "functions" });
  } catch (error) {
    context.error(
      `The sweep of expired items cannot run until the settings are fixed.\n${error instanceof Error ? error.message : String(error)}`,
    );
    return;
  }
  if (timer.isPastDue) context.warn("The sweep of expired items is running late (the previous run was missed or is still running).");
  for (const result of await runtime.services.time.sweepEverywhere()) {
    if (result.error !== undefined) {
      context.error(JSON.stringify({ sweep: result.workspace, error: result.error }));
    } else if (result.answer) {
      const { entities, observations, relations, skipped } = result.answer;
      if (entities + observations + relations + skipped.length > 0) {
        context.log(JSON.stringify({ sweep: result.workspace, entities, observations, relations, skipped: skipped.length }));
      }
    }
  }
}
