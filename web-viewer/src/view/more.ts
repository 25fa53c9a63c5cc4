// Long lists (diagnostics of a 10,000-line rail, hundreds of resources) render a page at a time
// with a "show more" button, so the DOM stays bounded however large the rail.

import { h } from '../dom.js';

export function pagedList<T>(
  root: HTMLElement,
  items: T[],
  render: (item: T) => HTMLElement,
  page = 200,
  listTag: 'ul' | 'ol' | 'tbody' = 'ul',
  listClass = 'plain',
): HTMLElement {
  const list = h(listTag, { class: listClass });
  let shown = 0;
  const more = h('button', { class: 'more', attrs: { type: 'button' } });
  const next = () => {
    const end = Math.min(items.length, shown + page);
    for (let i = shown; i < end; i++) list.append(render(items[i]!));
    shown = end;
    more.hidden = shown >= items.length;
    more.textContent = `Show ${Math.min(page, items.length - shown)} more (${items.length - shown} hidden)`;
  };
  more.addEventListener('click', next);
  next();
  root.append(list, more);
  return list;
}
