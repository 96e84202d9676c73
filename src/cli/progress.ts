import type { CliIo } from "./command.js";

export interface Progress {
  update(done: number, total: number): void;
  finish(): void;
}

const BAR_WIDTH = 30;
/** Redraws at most this often on a terminal; prints a line at most this often otherwise. */
const TTY_INTERVAL_MS = 100;
const LINE_INTERVAL_MS = 2000;

/**
 * Progress on stderr: a bar redrawn in place on a terminal, plain lines otherwise (CI logs, pipes),
 * so a long import is visibly alive without flooding a log.
 */
export function progress(io: CliIo, label: string): Progress {
  const stream = io.stderr;
  const tty = stream.isTTY === true;
  let last = 0;
  let shown = { done: -1, total: 0 };
  const render = (done: number, total: number) => {
    const share = total === 0 ? 1 : done / total;
    const percent = `${Math.floor(share * 100)}%`.padStart(4);
    if (tty) {
      const filled = Math.round(share * BAR_WIDTH);
      stream.write(`\r${label} [${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${percent} ${done}/${total}`);
    } else {
      stream.write(`${label}: ${done}/${total} (${percent.trim()})\n`);
    }
    shown = { done, total };
  };
  return {
    update(done, total) {
      if (done === shown.done && total === shown.total) return;
      const now = Date.now();
      if (now - last < (tty ? TTY_INTERVAL_MS : LINE_INTERVAL_MS) && done < total) return;
      last = now;
      render(done, total);
    },
    finish() {
      if (shown.done !== shown.total) render(shown.total, shown.total);
      if (tty && shown.done >= 0) stream.write("\n");
    },
  };
}
