/** A few DOM helpers: elements built with properties and children, never from HTML text (no markup injection). */
type Child = Node | string | null | undefined | false;
type Props = Record<string, string | number | boolean | EventListener | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = String(v);
    else if (k === 'text') el.textContent = String(v);
    else if (k in el && typeof v !== 'string') (el as unknown as Record<string, unknown>)[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

export function append(el: Element, children: (Child | Child[])[]): void {
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c);
  }
}

/** Replaces an element's children. */
export function fill(el: Element, ...children: (Child | Child[])[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A section with a heading (h2) that names it for assistive technology. */
export function section(id: string, title: string, ...children: (Child | Child[])[]): HTMLElement {
  const heading = h('h2', { id: `${id}-title`, text: title });
  return h('section', { id, class: 'panel', 'aria-labelledby': `${id}-title` }, heading, ...children);
}

/** A status line that screen readers announce when it changes. */
export function statusLine(cls = 'status'): HTMLElement {
  return h('p', { class: cls, role: 'status', 'aria-live': 'polite' });
}

/** An error as the API worded it (role alert). */
export function errorBox(message: string): HTMLElement {
  return h('p', { class: 'error', role: 'alert', text: message });
}

/** Runs `fn` at most once per `ms`, after the last call (the builder's live updates). */
export function debounce<A extends unknown[]>(fn: (...a: A) => void, ms: number): (...a: A) => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (...a: A) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...a), ms);
  };
}

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}
