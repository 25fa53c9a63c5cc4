// Shared resources (ports, simulators, a checkout's test lock) and who holds them; a clash
// (core's `clash`: two holding sessions, one of them exclusive) is marked.

import type { ResourceUse } from '../core.js';
import { h } from '../dom.js';
import type { ViewContext } from './context.js';
import { pagedList } from './more.js';

export function renderResources(root: HTMLElement, ctx: ViewContext, shown: ReadonlySet<number>): void {
  root.replaceChildren();
  const resources = ctx.board.resources.filter((r) => r.holders.some((holder) => shown.has(holder.claim)));
  if (resources.length === 0) {
    root.append(h('p', { class: 'muted' }, 'No resources claimed.'));
    return;
  }
  // Clashes first: they are what needs attention.
  const ordered = [...resources].sort((a, b) => Number(b.clash) - Number(a.clash));
  pagedList(root, ordered, (r: ResourceUse) =>
    h(
      'li',
      { class: r.clash ? 'resource clash' : 'resource', data: { resource: r.name } },
      h(
        'div',
        { class: 'res-name' },
        r.clash ? h('span', { class: 'badge badge-conflict' }, '⚠ clash') : null,
        ' ',
        h('code', {}, r.name),
        r.kind ? h('span', { class: 'muted' }, ` ${r.kind}`) : null,
      ),
      h(
        'ul',
        { class: 'plain holders' },
        ...r.holders.map((holder) =>
          h(
            'li',
            { class: `holder state-${holder.state}` },
            h('button', { class: 'link', attrs: { type: 'button' }, on: { click: () => ctx.select(holder.claim, true) } }, holder.session),
            holder.task ? ` · ${holder.task}` : '',
            holder.shared ? h('span', { class: 'badge' }, 'shared') : h('span', { class: 'badge' }, 'exclusive'),
            h('span', { class: `badge badge-state state-${holder.state}` }, holder.state),
          ),
        ),
      ),
    ),
  );
}
