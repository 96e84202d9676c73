import { existsSync } from "node:fs";

import { CHROMIUM_PATH, launchBrowser } from "../test/support/browser.js";
import { median } from "./lib/stats.js";

/**
 * The viewer's first render in headless Chromium (docs/viewer.md#bench), on the workspace the workload filled. Each run opens
 * the page in a fresh browser context (empty cache), so every run pays for the page, its script and the data.
 *
 * Time to interactive: from the navigation's start to the page's `viewer-interactive` mark, set once the graph is drawn and
 * laid out and the search box takes input. Payload: the bytes of the page, its script and its style as sent (gzipped).
 */
export interface BrowserFirstRender {
  url: string;
  entities: number;
  runs: number[];
  medianMs: number;
  /** HTML + JS + CSS as transferred (content-encoded), bytes. */
  payloadBytes: number;
  /** The same files decoded, bytes. */
  decodedBytes: number;
  /** Those calls' answers as transferred, bytes. */
  dataBytes: number;
  /** Tool calls the first render waited for (JSON-RPC POSTs to the data route answered before the mark). */
  dataRequests: number;
}

/** Why the phase cannot run here, or undefined when it can. */
export function browserUnavailable(): string | undefined {
  return existsSync(CHROMIUM_PATH) ? undefined : `no browser at ${CHROMIUM_PATH} (apt-get install -y chromium)`;
}

export async function measureFirstRender(url: string, runs: number): Promise<BrowserFirstRender> {
  const browser = await launchBrowser();
  try {
    const times: number[] = [];
    let last: Omit<BrowserFirstRender, "url" | "runs" | "medianMs"> | undefined;
    for (let run = 0; run < runs; run++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const response = await page.goto(url);
      if (response?.status() !== 200) throw new Error(`The viewer answered ${response?.status()} at ${url}.`);
      await page.waitForSelector("body[data-state=ready]", { timeout: 60_000 });
      const measured = await page.evaluate(() => {
        const mark = performance.getEntriesByName("viewer-interactive")[0];
        const navigation = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
        const resources = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
        const files = resources.filter((entry) => /\/api\/viewer\//.test(entry.name));
        const interactiveAt = mark?.startTime ?? Number.POSITIVE_INFINITY;
        const data = resources.filter((entry) => /\/view\/mcp$/.test(entry.name) && entry.responseEnd <= interactiveAt);
        const sum = (entries: PerformanceResourceTiming[], field: "encodedBodySize" | "decodedBodySize") =>
          entries.reduce((total, entry) => total + entry[field], 0);
        return {
          interactiveMs: mark?.startTime ?? Number.NaN,
          payloadBytes: navigation.encodedBodySize + sum(files, "encodedBodySize"),
          decodedBytes: navigation.decodedBodySize + sum(files, "decodedBodySize"),
          dataBytes: sum(data, "encodedBodySize"),
          dataRequests: data.length,
          entities: Number(/^(\d+) entities/.exec(document.getElementById("summary")?.textContent ?? "")?.[1]),
        };
      });
      times.push(measured.interactiveMs);
      const { interactiveMs: _unused, ...sizes } = measured;
      last = sizes;
      await context.close();
    }
    return { url, runs: times, medianMs: median(times), ...last! };
  } finally {
    await browser.close();
  }
}
