// Building DOM from data without ever parsing it as HTML: text goes through text nodes, names of
// tags and attributes come only from this code. The single exception (a claim's purpose, already
// rendered and sanitized by core) lives in security.ts.

export type Child = Node | string | number | null | undefined | false;

export interface Props {
  class?: string;
  /** Attributes whose names are written in this code; values may be data (set as text). */
  attrs?: Record<string, string | number | boolean | undefined>;
  data?: Record<string, string | number>;
  title?: string;
  on?: { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
}

function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

function applyProps(el: Element, props: Props | undefined): void {
  if (!props) return;
  if (props.class) el.setAttribute('class', props.class);
  if (props.title !== undefined) el.setAttribute('title', props.title);
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const [name, value] of Object.entries(props.data ?? {})) {
    el.setAttribute(`data-${name}`, String(value));
  }
}

/** An HTML element with properties and children (strings become text nodes). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props?: Props, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  applyProps(el, props);
  for (const [type, handler] of Object.entries(props?.on ?? {})) {
    el.addEventListener(type, handler as EventListener);
  }
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element; attribute values are numbers or text set with setAttribute, never markup. */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number> = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  append(el, children);
  return el;
}

/** Replaces an element's children. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** Looks up an element the page shell must contain; a missing one is a build bug. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`rail web board: #${id} is missing from the page`);
  return el as T;
}

/** Runs `fn` once the caller has been quiet for `ms` (typing into the filter). */
export function debounce<A extends unknown[]>(fn: (...args: A) => void, ms: number): (...args: A) => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (...args: A) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}
