import { describe, expect, test } from "@jest/globals";

import {
  eventSummary,
  mergeReport,
  namesMergedAway,
  previewText,
  restorable,
  restoreReport,
  withWorkspace,
} from "../../src/viewer/outcomes.js";

/** The apps' pure rules (src/viewer/outcomes.ts): what a call names, when a write's answer proves it, what is offered. */

describe("the workspace every app call names", () => {
  test("is added once the opening named it, so the unbound route /api/mcp accepts the call", () => {
    expect(withWorkspace({ entityName: "A" }, "team")).toEqual({ entityName: "A", workspaceName: "team" });
    expect(withWorkspace({}, "team")).toEqual({ workspaceName: "team" });
  });

  test("is left out before the opening arrived, and never overrides one the call gives", () => {
    expect(withWorkspace({ entityName: "A" }, undefined)).toEqual({ entityName: "A" });
    expect(withWorkspace({ workspaceName: "other" }, "team")).toEqual({ workspaceName: "other" });
  });
});

/** A merge report as merge_entities answers it (src/mcp/tools/mergeEntities.ts). */
function merged(dryRun: boolean, overrides: Record<string, unknown> = {}) {
  return {
    success: true,
    dryRun,
    target: { name: "Billing", id: "1" },
    sources: [{ name: "Billing Service", id: "2" }],
    alreadyMerged: [],
    observations: { moved: 2, droppedDuplicates: 1 },
    relations: { moved: ["a uses b"], droppedSelfLoops: [], droppedDuplicates: ["c owns d"] },
    tags: { moved: 0, droppedDuplicates: 0 },
    ...overrides,
  };
}

describe("a merge's answer", () => {
  const names = { target: "Billing", source: "Billing Service" };

  test("is accepted when it is the report of this merge, a dry run for a preview and not for a confirmation", () => {
    expect(mergeReport(merged(false), { ...names, dryRun: false }).dryRun).toBe(false);
    const preview = mergeReport(merged(true), { ...names, dryRun: true });
    expect(previewText(preview, names.source, names.target)).toBe(
      "Merging Billing Service into Billing would move 2 observation(s) (1 already there), 1 relation(s) (1 dropped) and 0 tag(s), " +
        "then delete Billing Service.",
    );
    // A rerun of a merge that completed earlier names the source as already merged.
    expect(mergeReport(merged(false, { sources: [], alreadyMerged: ["Billing Service"] }), { ...names, dryRun: false }).sources).toEqual(
      [],
    );
  });

  test("is refused, so the app does not say Merged, when it is empty, a dry run, or about other entities", () => {
    const confirmed = { ...names, dryRun: false };
    expect(() => mergeReport({}, confirmed)).toThrow("cannot say it happened");
    expect(() => mergeReport(undefined, confirmed)).toThrow("cannot say it happened");
    expect(() => mergeReport(merged(true), confirmed)).toThrow("cannot say it happened");
    expect(() => mergeReport(merged(false, { target: { name: "Other" } }), confirmed)).toThrow("cannot say it happened");
    expect(() => mergeReport(merged(false, { sources: [{ name: "Other" }] }), confirmed)).toThrow("cannot say it happened");
    expect(() => mergeReport(merged(false, { observations: {} }), confirmed)).toThrow("cannot say it happened");
    expect(() => mergeReport(merged(false), { ...names, dryRun: true })).toThrow("did not answer with a preview");
  });

  test("removes every pair naming the merged-away entity, and keeps those naming only the one kept", () => {
    const pairs = [
      { a: "Billing", b: "Billing Service" },
      { a: "Billing Service", b: "Billing Svc" },
      { a: "Invoices", b: "Billing Service" },
      { a: "Billing", b: "Billing Svc" },
    ];
    expect(pairs.filter((pair) => !namesMergedAway(pair, "Billing Service"))).toEqual([{ a: "Billing", b: "Billing Svc" }]);
  });
});

describe("a restore's answer", () => {
  const report = {
    success: true,
    workspaceName: "w",
    entityName: "A",
    entityId: "1",
    restoredAsOf: "2026-01-01T00:00:00.000Z",
    observations: 2,
    relations: 1,
  };

  test("is accepted when it reports restoring this entity", () => {
    expect(restoreReport(report, "A")).toMatchObject({ restoredAsOf: report.restoredAsOf, observations: 2, relations: 1 });
  });

  test("is refused when it is empty or about another entity", () => {
    expect(() => restoreReport({}, "A")).toThrow("cannot say it happened");
    expect(() => restoreReport({ ...report, entityName: "B" }, "A")).toThrow("cannot say it happened");
    expect(() => restoreReport({ ...report, observations: undefined }, "A")).toThrow("cannot say it happened");
  });
});

describe("a timeline event", () => {
  test("offers Restore unless it deleted the entity (no state to restore to)", () => {
    expect(restorable({ kinds: ["entity.created", "observation.added"] })).toBe(true);
    expect(restorable({ kinds: ["relation.deleted", "entity.deleted"] })).toBe(false);
  });

  test("reads without the principal and tool its row already shows", () => {
    const event = { principal: "key:writer", tool: "add_observations", summary: "key:writer via add_observations: added 'x' to A" };
    expect(eventSummary(event)).toBe("added 'x' to A");
    // Another principal or tool in the lead, or no lead: the summary is kept whole.
    expect(eventSummary({ ...event, principal: "key:reader" })).toBe(event.summary);
    expect(eventSummary({ ...event, tool: "merge_entities" })).toBe(event.summary);
    expect(eventSummary({ ...event, summary: "added 'x' to A" })).toBe("added 'x' to A");
  });
});
