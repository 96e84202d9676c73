/** One wrong setting. */
export interface SettingProblem {
  /** The setting to change, e.g. MEMORY_AUTH. */
  setting: string;
  /** What the setting must be, without its value: safe to show to any caller. */
  expected: string;
  /** The full message for the operator's console or log, which may quote the value. */
  message: string;
}

/** Settings the app cannot run with; every problem found is reported at once. */
export class InvalidSettingsError extends Error {
  constructor(
    readonly problems: readonly SettingProblem[],
    heading = "Invalid settings",
  ) {
    super(`${heading}:\n  - ${problems.map((problem) => problem.message).join("\n  - ")}`);
    this.name = "InvalidSettingsError";
  }
}
