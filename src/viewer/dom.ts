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

/** A stable colour per entity type, so a type keeps its colour across reloads. */
export function colourOf(entityType: string): string {
  let hash = 0;
  for (let i = 0; i < entityType.length; i++) hash = (hash * 31 + entityType.charCodeAt(i)) | 0;
  return `hsl(${Math.abs(hash) % 360}, 62%, 48%)`;
}

/** A dot in the colour of an entity type. */
export function swatch(entityType: string): HTMLElement {
  const dot = el("span", { className: "swatch", title: entityType });
  dot.style.backgroundColor = colourOf(entityType);
  return dot;
}
