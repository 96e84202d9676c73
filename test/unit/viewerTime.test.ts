import { describe, expect, test } from "@jest/globals";

import { absoluteTime, readableTime, relativeTime, sliderAsOf, sliderRange } from "../../src/viewer/time.js";

/** The viewer's readable times and the time slider's scale (src/viewer/time.ts), with "now" fixed. */
const NOW = Date.parse("2026-12-02T21:00:00.000Z");
const HOUR = 3600_000;

describe("readable times", () => {
  test("relative: the largest whole unit, in the past or the future", () => {
    expect(relativeTime(NOW - 3 * HOUR, NOW)).toBe("3 hours ago");
    expect(relativeTime(NOW - 3 * HOUR - 59 * 60_000, NOW)).toBe("3 hours ago");
    expect(relativeTime(NOW - 90_000, NOW)).toBe("1 minute ago");
    expect(relativeTime(NOW - 24 * HOUR, NOW)).toBe("yesterday");
    expect(relativeTime(NOW - 5 * 24 * HOUR, NOW)).toBe("5 days ago");
    expect(relativeTime(NOW - 400 * 24 * HOUR, NOW)).toBe("last year");
    expect(relativeTime(NOW + 2 * HOUR, NOW)).toBe("in 2 hours");
    expect(relativeTime(NOW - 2000, NOW)).toBe("now");
  });

  test("absolute: the local date and time in the zone given", () => {
    expect(absoluteTime(NOW, "en-GB", "UTC")).toBe("2 Dec 2026, 21:00");
    expect(absoluteTime(NOW, "en-GB", "Europe/Paris")).toBe("2 Dec 2026, 22:00");
  });

  test("an ISO time becomes both; anything else is left as it is", () => {
    expect(readableTime("2026-12-02T18:00:00.000Z", NOW, { timeZone: "UTC" })).toBe("2 Dec 2026, 18:00 (3 hours ago)");
    expect(readableTime("not a time", NOW)).toBe("not a time");
  });
});

describe("the time slider's scale", () => {
  test("runs from the history's start to now, in about 1,000 stops of at least a second", () => {
    expect(sliderRange("2026-12-01T21:00:00.000Z", NOW)).toEqual({ min: NOW - 24 * HOUR, max: NOW, step: 86_400 });
    expect(sliderRange("2026-12-02T20:59:59.000Z", NOW)?.step).toBe(1000);
    expect(sliderRange("2026-12-03T00:00:00.000Z", NOW)).toBeUndefined();
    expect(sliderRange("never", NOW)).toBeUndefined();
  });

  test("its right end is now (no asOf); any other position is that time", () => {
    const range = sliderRange("2026-12-01T21:00:00.000Z", NOW)!;
    expect(sliderAsOf(range.max, range)).toBeUndefined();
    expect(sliderAsOf(range.min, range)).toBe("2026-12-01T21:00:00.000Z");
    expect(sliderAsOf(NOW - HOUR, range)).toBe("2026-12-02T20:00:00.000Z");
  });
});
