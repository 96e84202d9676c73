import { randomBytes } from "node:crypto";

import { app, InvocationContext, type Timer, type TimerFunctionOptions } from "@azure/functions";
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";

import { readSettings } from "../src/config/settings.js";
import { sweepSchedule } from "../src/config/table.js";
import { entityId } from "../src/domain/model/ids.js";
import { failed, type McpTestClient, ok, testConnectionString, uniqueWorkspace, withTestServers } from "./support/harness.js";
import { partitionRows, rawTable } from "./support/rawRows.js";

/**
 * The sweep's timer trigger, in-process (@azure/functions' test mode, as test/functions.test.ts runs the HTTP triggers): its
 * registration and schedule from MEMORY_SWEEP_INTERVAL_MINUTES, and a run that sweeps a registered workspace as
 * "system:sweep". It uses a table of its own: a timer sweep visits every registered workspace, and must not reach other
 * files' workspaces.
 */
const TABLE = `sweeptimer${randomBytes(4).toString("hex")}`;
let registered: Map<string, TimerFunctionOptions>;
let mcp: McpTestClient;

withTestServers({ servers: { server: { tableName: TABLE } }, clients: { mcp: {} } }, (started) => void ({ mcp } = started));

beforeAll(async () => {
  process.env.MEMORY_STORAGE_CONNECTION_STRING = testConnectionString();
  process.env.MEMORY_TABLE_NAME = TABLE;
  process.env.MEMORY_AUTH = "none";
  process.env.MEMORY_SWEEP_INTERVAL_MINUTES = "10";
  registered = new Map();
  const original = app.timer;
  app.timer = (name: string, options: TimerFunctionOptions) => void registered.set(name, options);
  try {
    await import("../src/functions/sweep.js");
  } finally {
    app.timer = original;
  }
});

afterAll(async () => {
  for (const name of ["MEMORY_STORAGE_CONNECTION_STRING", "MEMORY_TABLE_NAME", "MEMORY_AUTH", "MEMORY_SWEEP_INTERVAL_MINUTES"]) {
    delete process.env[name];
  }
  await rawTable(testConnectionString(), TABLE).deleteTable();
});

const timer: Timer = { isPastDue: false, schedule: { adjustForDST: false }, scheduleStatus: { last: "", next: "", lastUpdated: "" } };

describe("the sweep's timer trigger", () => {
  test("is registered on the interval's schedule", () => {
    expect([...registered.keys()]).toEqual(["sweepExpired"]);
    expect(registered.get("sweepExpired")!.schedule).toBe("0 */10 * * * *");
  });

  test("a run sweeps every registered workspace as system:sweep, with events", async () => {
    const ws = uniqueWorkspace("timer");
    ok(await mcp.call("create_entities", { workspaceName: ws, entities: [{ name: "Old", entityType: "t", observations: ["x"] }] }));
    const soon = new Date(Date.now() + 300).toISOString();
    ok(await mcp.call("set_expiry", { workspaceName: ws, entityName: "Old", expiresAt: soon }));
    while (Date.now() <= Date.parse(soon)) await new Promise((resolve) => setTimeout(resolve, 50));

    const lines: string[] = [];
    const context = new InvocationContext({
      functionName: "sweepExpired",
      invocationId: "test",
      logHandler: (_level, ...args) => lines.push(args.map(String).join(" ")),
    });
    await registered.get("sweepExpired")!.handler(timer, context);

    const table = rawTable(testConnectionString(), TABLE);
    const rows = await partitionRows(table, ws, ["event", "workspace"]);
    expect(rows.filter((row) => row.rowKey.startsWith(entityId(ws, "Old")))).toEqual([]);
    const events = await partitionRows(table, ws, { only: ["event"] });
    const swept = events.filter((row) => row.tool === "sweep_expired");
    expect(swept.length).toBeGreaterThan(0);
    expect(swept.every((row) => row.principal === "system:sweep")).toBe(true);
    expect(lines).toEqual(expect.arrayContaining([expect.stringContaining(`"sweep":"${ws}","entities":1`)]));
    expect(failed(await mcp.call("set_expiry", { workspaceName: ws, entityName: "Old", pinned: true })).error).toBe("NotFoundError");
  });
});

describe("MEMORY_SWEEP_INTERVAL_MINUTES", () => {
  const interval = (value: string) =>
    readSettings({ MEMORY_AUTH: "none", MEMORY_SWEEP_INTERVAL_MINUTES: value }, "local").sweepIntervalMinutes;

  test("takes 0 (off) and intervals of at least 5 minutes a schedule repeats exactly", () => {
    expect(readSettings({ MEMORY_AUTH: "none" }, "local").sweepIntervalMinutes).toBe(5);
    for (const value of [0, 5, 6, 10, 15, 30, 60, 120, 1440]) expect(interval(String(value))).toBe(value);
    expect(sweepSchedule(5)).toBe("0 */5 * * * *");
    expect(sweepSchedule(120)).toBe("0 0 */2 * * *");
  });

  test("refuses intervals below 5 minutes and those a schedule cannot repeat, naming the setting", () => {
    expect(() => interval("1")).toThrow(/MEMORY_SWEEP_INTERVAL_MINUTES: '1' is below the least interval, 5 minutes/);
    for (const value of ["4", "7", "45", "90", "-5", "five"]) expect(() => interval(value)).toThrow(/MEMORY_SWEEP_INTERVAL_MINUTES/);
  });
});
