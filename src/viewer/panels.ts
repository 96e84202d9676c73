import { focus } from "./details.js";
import { byId, el, fill, linkButton, timeText } from "./dom.js";
import { definedTags, fillFilters } from "./filters.js";
import { typeCounts } from "./palette.js";
import { api, type ChangeEvent, entities, type EntityView, typeSwatch, view } from "./state.js";

/** The side panels: recent changes, defined tags, duplicates, the legend and the hubs. */

export async function loadChanges(): Promise<void> {
  if (!view.tools.has("get_changes")) return;
  const { events } = await api.call<{ events: ChangeEvent[] }>("get_changes", { limit: 25 });
  fill(
    byId("changes"),
    events.map((event) => {
      const name = event.changes.find((change) => change.entityName !== undefined)?.entityName;
      return el(
        "li",
        {},
        el("span", { className: "muted" }, timeText(event.at), ` · ${event.principal} · `),
        name !== undefined ? linkButton(event.summary, () => void focus({ name, entityType: "" })) : event.summary,
      );
    }),
  );
}

export async function loadTags(): Promise<void> {
  if (!view.tools.has("get_all_tags")) return;
  const { tags } = await api.call<{ tags: { name: string }[] }>("get_all_tags");
  for (const tag of tags) definedTags.add(tag.name);
  fillFilters();
}

export async function loadDuplicates(): Promise<void> {
  if (!view.tools.has("detect_duplicate_entities")) return;
  byId("duplicates-section").hidden = false;
  const { pairs } = await api.call<{ pairs: { a: EntityView; b: EntityView; score: number; reasons: string[] }[] }>(
    "detect_duplicate_entities",
    {},
  );
  fill(
    byId("duplicates"),
    pairs.map((pair) =>
      el(
        "li",
        { title: pair.reasons.join("; ") },
        linkButton(pair.a.name, () => void focus(pair.a)),
        " ≈ ",
        linkButton(pair.b.name, () => void focus(pair.b)),
        el("span", { className: "muted" }, ` (${pair.score.toFixed(2)})`),
      ),
    ),
    "None found.",
  );
}

/** The colour of each entity type, with how many entities of it the page holds. */
export function showLegend(): void {
  const types = [...typeCounts(entities.values())].filter(([type]) => type !== "").sort((a, b) => b[1] - a[1]);
  fill(
    byId("legend"),
    types.slice(0, 12).map(([type, count]) => el("li", {}, typeSwatch(type), type, el("span", { className: "muted" }, ` ${count}`))),
  );
}

export function showHubs(hubs: { name: string; degree: number }[]): void {
  fill(
    byId("hubs"),
    hubs.slice(0, 10).map((hub) =>
      el(
        "li",
        {},
        linkButton(hub.name, () => void focus({ name: hub.name, entityType: "" })),
        el("span", { className: "muted" }, ` ${hub.degree}`),
      ),
    ),
  );
}
