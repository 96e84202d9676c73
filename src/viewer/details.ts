import { button, byId, el, linkButton, timeText } from "./dom.js";
import { merge } from "./graph.js";
import { syncNodeList } from "./nodeList.js";
import type { EntityDetails, FactValidity, GraphSlice } from "./shapes.js";
import { addEntity, api, entities, type EntityView, typeSwatch, view } from "./state.js";

/** One entity: its panel (details, relations, history), selecting it, and expanding its neighbourhood. */

const asOf = () => (view.asOf !== undefined ? { asOf: view.asOf } : {});

/** Expands an entity's neighbourhood (app_expand), at the time the graph shows. */
export async function expand(name: string): Promise<void> {
  const slice = await api.call<GraphSlice>("app_expand", { entityName: name, ...asOf() });
  merge(slice.entities, slice.relations);
}

/** Selects an entity, adding it to the graph first when the viewer did not hold it (part of a large workspace). */
export async function focus(entity: EntityView): Promise<void> {
  if (!entities.has(entity.name)) merge([entity], []);
  const node = view.cy?.getElementById(entity.name);
  if (node && node.nonempty()) {
    view.cy?.elements().unselect();
    node.select();
    view.cy?.animate({ center: { eles: node }, duration: 0 });
    syncNodeList();
  }
  await showDetails(entity.name);
}

/** One entity's details panel, from one app_entity_details call, at the time the graph shows. */
export async function showDetails(name: string): Promise<void> {
  const panel = byId("details");
  panel.hidden = false;
  byId("app").classList.remove("no-details");
  // Reading the same entity again (the toggle, the time) keeps its panel until the new read replaces it in one step.
  if (view.selected !== name || panel.childElementCount === 0) {
    panel.replaceChildren(el("h3", {}, name), el("p", { className: "muted" }, "Loading…"));
  }
  view.selected = name;
  // Read each time the panel opens, so it shows the facts true now (or at asOf) whatever put the entity in the graph.
  // "Show superseded" reads everything no longer true too, marked; that read is not kept for the graph.
  const details = await api.call<EntityDetails>("app_entity_details", {
    entityName: name,
    ...asOf(),
    ...(view.showSuperseded ? { includeSuperseded: true } : {}),
  });
  if (view.selected !== name) return;
  panel.replaceChildren(...detailsContent(name, details, { expand: true }));
}

/**
 * The details of an entity as elements: the panel's content in the graph, and the state of a timeline's event. Every
 * string stays a text node (dom.ts).
 */
export function detailsContent(name: string, details: EntityDetails, options: { expand: boolean }): HTMLElement[] {
  const entity = details.entity;
  if (!entity) {
    const when = details.asOf !== undefined ? " at that time" : "";
    return [el("h3", {}, name), el("p", { className: "muted" }, `This entity does not exist${when}.`)];
  }
  if (!view.showSuperseded && details.asOf === undefined)
    addEntity({ name: entity.name, entityType: entity.entityType, ...(entity.tags ? { tags: entity.tags } : {}) });
  const newest = details.recent[0];
  const createdAt = details.created?.at ?? entity.createdAt;
  const updatedAt = newest?.at ?? entity.updatedAt;
  const content: HTMLElement[] = [el("h3", {}, entity.name), el("p", {}, typeSwatch(entity.entityType), entity.entityType)];
  if (details.asOf !== undefined) content.push(el("p", { className: "muted as-of" }, "As it was at ", timeText(details.asOf)));
  content.push(
    el("div", {}, tagList(entity.tags ?? [])),
    el(
      "p",
      { className: "muted provenance" },
      `Created by ${details.created?.principal ?? entity.createdBy ?? "unknown"}`,
      createdAt !== undefined && el("span", {}, " ", timeText(createdAt)),
      `. Last changed by ${entity.updatedBy ?? newest?.principal ?? "unknown"}`,
      updatedAt !== undefined && el("span", {}, " ", timeText(updatedAt)),
      ".",
    ),
  );
  if (options.expand) content.push(button("Expand neighbourhood", "expand", () => void expand(name).catch(failedQuietly)));
  content.push(
    el("h2", {}, `Observations (${entity.observations.length})`),
    el(
      "ul",
      { className: "observations" },
      ...entity.observations.map((text) =>
        observationItem(text, entity.observationValidity?.[text], tagList(entity.observationTags?.[text] ?? [])),
      ),
    ),
    el("h2", {}, `Relations (${details.relations.length})`),
    el(
      "ul",
      {},
      ...details.relations.map((r) => {
        const other = r.from === name ? r.to : r.from;
        return el(
          "li",
          { className: "relation" },
          r.from === name ? "→ " : "← ",
          el("span", { className: "muted" }, r.relationType, " "),
          options.expand ? linkButton(other, () => void focus({ name: other, entityType: "" })) : other,
          r.status ? el("span", { className: "muted status" }, ` (${r.status})`) : undefined,
        );
      }),
    ),
    el("h2", {}, "History"),
    el(
      "ul",
      {},
      ...details.recent.map((event) =>
        el("li", {}, el("span", { className: "muted" }, timeText(event.at), ` ${event.principal}: `), event.summary),
      ),
    ),
  );
  return content;
}

/** An expansion that fails says why in #error (set by the entry's handler, main.ts and appMain.ts). */
let failedQuietly: (error: unknown) => void = () => undefined;
export function onActionError(handler: (error: unknown) => void): void {
  failedQuietly = handler;
}

/**
 * One observation: its text, struck through when it is not true now (superseded, ended, not yet valid), with its status
 * and what replaced it.
 */
function observationItem(text: string, validity: FactValidity | undefined, tags: HTMLElement | undefined): HTMLElement {
  const status = validity?.status;
  if (!status) return el("li", { className: "observation" }, el("span", { className: "text" }, text), tags);
  const note = validity.supersededBy !== undefined ? `${status}, by: ${validity.supersededBy}` : status;
  return el(
    "li",
    { className: `observation ${status}` },
    el("s", { className: "text" }, text),
    el("span", { className: "muted status" }, ` (${note})`),
    tags,
  );
}

function tagList(tags: string[]): HTMLElement | undefined {
  if (tags.length === 0) return undefined;
  return el("span", { className: "tags" }, ...tags.map((tag) => el("span", { className: "tag" }, tag)));
}
