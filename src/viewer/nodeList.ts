import { el } from "./dom.js";
import { view } from "./state.js";

/**
 * #graph-nodes: the drawn nodes as a visually hidden list, for screen readers (a canvas says nothing) and the browser
 * tests, with the marks as classes: hit, path, focus (selected). Rebuilt on every change to the drawing.
 */
export function syncNodeList(): void {
  const list = document.getElementById("graph-nodes");
  if (!list || !view.cy) return;
  const items: HTMLElement[] = [];
  view.cy.nodes().forEach((node) => {
    if (node.hasClass("hidden")) return;
    const name = node.id();
    const marks = [node.hasClass("hit") && "hit", node.hasClass("path") && "path", node.selected() && "focus"].filter(Boolean);
    const item = el("li", { className: marks.join(" ") }, name);
    item.dataset.name = name;
    items.push(item);
  });
  list.replaceChildren(...items);
}
