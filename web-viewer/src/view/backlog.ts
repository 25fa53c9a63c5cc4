// The backlog: `- [ ] task` lines of claims.md with core's status for each (ready to start,
// blocked on unreleased tasks, busy: its paths or resources held by another session's claim,
// claimed, done). Ready tasks first: they are what an agent can pick.

import type { PlannedView } from '../core.js';
import { h } from '../dom.js';
import type { ViewContext } from './context.js';
import { location } from './detail.js';
import { pagedList } from './more.js';

const ORDER: Record<PlannedView['status'], number> = { ready: 0, busy: 1, blocked: 2, claimed: 3, done: 4 };

export function renderBacklog(root: HTMLElement, ctx: ViewContext): void {
  root.replaceChildren();
  const planned = ctx.board.planned;
  if (planned.length === 0) {
    root.append(h('p', { class: 'muted' }, 'No backlog: list tasks in claims.md as `- [ ] task | after: other`.'));
    return;
  }
  const ordered = [...planned].sort((a, b) => ORDER[a.status] - ORDER[b.status]);
  pagedList(root, ordered, (p: PlannedView) =>
    h(
      'li',
      { class: `planned status-${p.status}`, data: { task: p.task } },
      h('div', { class: 'res-name' }, h('span', { class: `badge badge-planned status-${p.status}` }, p.status), ' ', h('code', {}, p.task)),
      p.held_by ? h('div', { class: 'muted' }, `held by ${p.held_by}`) : null,
      p.waiting_for.length > 0 ? h('div', { class: 'muted' }, `waits for ${p.waiting_for.map((w) => w.task).join(', ')}`) : null,
      p.busy_with.length > 0
        ? h(
            'div',
            { class: 'muted' },
            `its paths or resources are held by ${p.busy_with.map((w) => `${w.held_by ?? 'someone'} (${w.task})`).join(', ')}`,
          )
        : null,
      p.paths.length > 0 ? h('div', { class: 'muted mono' }, p.paths.join(', ')) : null,
      p.purpose ? h('div', {}, p.purpose) : null,
      location(ctx, p.file, p.line, 1),
    ),
  );
}
