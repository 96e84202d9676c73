import { detailsContent } from "./details.js";
import { button, byId, el, fill, timeText } from "./dom.js";
import { eventSummary, restorable, restoreReport } from "./outcomes.js";
import type { EntityDetails, Timeline, TimelineEvent } from "./shapes.js";
import { api, say, showError, view } from "./state.js";
import { readableTime } from "./time.js";

/**
 * The timeline (docs/apps.md): one entity's history, newest first (show_entity_timeline). A person views the entity as it
 * was after an event (app_entity_details asOf), and restores that state after confirming (restore_entity; rollBack when
 * the entity exists now).
 */

let timeline: Timeline;

export function startTimeline(opened: Timeline): void {
  timeline = opened;
  view.tools = new Set(opened.tools);
  document.body.dataset.app = "timeline";
  byId("timeline-screen").hidden = false;
  render();
  document.body.dataset.state = "ready";
  performance.mark("viewer-interactive");
}

function render(): void {
  byId("timeline-title").textContent = timeline.entityName;
  byId("summary").textContent = `${timeline.entityName}: ${timeline.events.length} event${timeline.events.length === 1 ? "" : "s"}${
    timeline.exists ? "" : " · deleted now"
  }`;
  fill(byId("events"), timeline.events.map(eventItem), "No history.");
  const more = byId("events-more");
  more.replaceChildren();
  if (timeline.cursor !== undefined) more.append(button("Older events", "older", () => void older().catch(showError)));
}

async function older(): Promise<void> {
  const page = await api.call<Timeline>("show_entity_timeline", { entityName: timeline.entityName, cursor: timeline.cursor });
  timeline = { ...timeline, events: [...timeline.events, ...page.events], ...(page.cursor !== undefined ? { cursor: page.cursor } : {}) };
  if (page.cursor === undefined) delete timeline.cursor;
  render();
}

function eventItem(event: TimelineEvent): HTMLElement {
  const item = el(
    "li",
    { className: "event" },
    timeText(event.at),
    " ",
    el("span", { className: "who" }, event.principal),
    el("span", { className: "muted" }, ` · ${event.tool} · `),
    // The row shows who and through which tool already; the summary starts with them too (history.ts), once is enough.
    el("span", { className: "summary" }, eventSummary(event)),
  );
  item.dataset.at = event.at;
  const actions = el("span", { className: "actions" });
  if (view.tools.has("app_entity_details")) actions.append(button("View", "view", () => void viewAt(event).catch(showError)));
  // After an entity.deleted event there is no entity to restore to: that state is offered by the event before it.
  if (view.tools.has("restore_entity") && restorable(event)) {
    // Restoring asks first: the confirm button appears beside it, with what it will do.
    const ask = el("span", { className: "ask" });
    actions.append(
      button("Restore…", "restore", () => {
        const verb = timeline.exists ? "Roll back" : "Restore";
        ask.replaceChildren(
          ` ${verb} ${timeline.entityName} to its state at this time? `,
          button("Yes, restore", "confirm-restore", () => void restore(event, ask).catch(showError)),
          " ",
          button("Cancel", "cancel", () => ask.replaceChildren()),
        );
      }),
      ask,
    );
  }
  item.append(" ", actions);
  return item;
}

async function viewAt(event: TimelineEvent): Promise<void> {
  const state = byId("state");
  state.replaceChildren(el("p", { className: "muted" }, "Loading…"));
  const details = await api.call<EntityDetails>("app_entity_details", { entityName: timeline.entityName, asOf: event.at });
  state.replaceChildren(...detailsContent(timeline.entityName, { ...details, asOf: details.asOf ?? event.at }, { expand: false }));
}

async function restore(event: TimelineEvent, ask: HTMLElement): Promise<void> {
  const answer = await api.call<unknown>("restore_entity", {
    entityName: timeline.entityName,
    asOf: event.at,
    ...(timeline.exists ? { rollBack: true } : {}),
  });
  const result = restoreReport(answer, timeline.entityName);
  ask.replaceChildren();
  say(
    `${timeline.entityName} restored as it was at ${readableTime(result.restoredAsOf, Date.now())}: ${result.observations} observation(s), ` +
      `${result.relations} relation(s).`,
  );
  // The restore is an event itself: read the timeline again, newest first.
  if (view.tools.has("show_entity_timeline")) {
    timeline = await api.call<Timeline>("show_entity_timeline", { entityName: timeline.entityName });
    render();
  } else timeline = { ...timeline, exists: true };
}
