// What core found wrong in the files, as `file:line:col: severity[code]: message` (the same
// shape `rail validate` prints), errors first.

import type { Located } from '../core.js';
import { h } from '../dom.js';
import type { ViewContext } from './context.js';
import { location } from './detail.js';
import { pagedList } from './more.js';

const ORDER: Record<string, number> = { error: 0, warning: 1, info: 2 };

export function renderDiagnostics(root: HTMLElement, ctx: ViewContext): void {
  root.replaceChildren();
  const items = [...ctx.board.diagnostics].sort((a, b) => (ORDER[a.severity] ?? 3) - (ORDER[b.severity] ?? 3));
  if (items.length === 0) {
    root.append(h('p', { class: 'muted' }, 'No problems found in the files.'));
    return;
  }
  pagedList(root, items, (d: Located) =>
    h(
      'li',
      { class: `diag sev-${d.severity}`, data: { code: d.code } },
      location(ctx, d.file, d.line, d.column, `${d.file}:${d.line}:${d.column}`),
      ': ',
      h('span', { class: `sev sev-${d.severity}` }, d.severity),
      h('span', { class: 'code' }, `[${d.code}]`),
      ': ',
      h('span', { class: 'msg' }, d.message),
    ),
  );
}
