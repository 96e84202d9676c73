import { readableTime } from "./time.js";

/**
 * Building the page's elements. Every string from the workspace (names, types, observations, tags, principals) is
 * untrusted: it only ever becomes a text node, never markup.
 */
type Child = Node | string | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: { className?: string; title?: string; onClick?: () => void } = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (options.className) element.className = options.className;
  if (options.title) element.title = options.title;
  if (options.onClick) element.addEventListener("click", options.onClick);
  for (const child of children) {
    if (child === undefined || child === false) continue;
    element.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return element;
}

/** A button that looks like a link: what every clickable entity name in the lists is. */
export function linkButton(text: string, onClick: () => void): HTMLButtonElement {
  const button = el("button", { className: "link", onClick }, text);
  button.type = "button";
  return button;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`The page has no #${id}.`);
  return element as T;
}

/** Replaces a list's items. */
export function fill(list: HTMLElement, items: Node[], empty = "Nothing yet."): void {
  list.replaceChildren(...(items.length > 0 ? items : [el("li", { className: "muted" }, empty)]));
}

/** A dot in an entity type's colour (palette.ts). */
export function swatch(entityType: string, colour: string): HTMLElement {
  const dot = el("span", { className: "swatch", title: entityType });
  dot.style.backgroundColor = colour;
  return dot;
}

/** An ISO time as people read it (time.ts): local date and time, and how long ago; the exact time in its title. */
export function timeText(iso: string, className = "when"): HTMLElement {
  const element = el("time", { className, title: iso }, readableTime(iso, Date.now()));
  element.dateTime = iso;
  return element;
}

/** A button (type=button, so it never submits anything). */
export function button(text: string, className: string, onClick: () => void): HTMLButtonElement {
  const element = el("button", { className, onClick }, text);
  element.type = "button";
  return element;
}
