// Work in flight ("Behind!"): each session's files changed and not merged — uncommitted in its
// station or in a shared checkout, committed on its branch and not in the base — as core groups
// them (`behind::views`). Live work is what a claim or another agent's write must not land on;
// a stale or ended session's is named so it can be rescued.

import type { FlightView } from '../core.js';
import { h } from '../dom.js';
import type { ViewContext } from './context.js';
import { pagedList } from './more.js';

export function renderFlight(root: HTMLElement, ctx: ViewContext): void {
  root.replaceChildren();
  const groups = ctx.board.in_flight;
  if (groups.length === 0) {
    root.append(h('p', { class: 'muted' }, 'No work in flight known (files changed and not merged).'));
    return;
  }
  pagedList(root, groups, (g: FlightView) =>
    h(
      'li',
      { class: `flight standing-${g.standing}`, data: { session: g.session } },
      h(
        'div',
        { class: 'flight-head' },
        h('strong', {}, g.session),
        ' ',
        h('span', { class: 'muted' }, g.place),
        g.standing === 'live' ? null : h('span', { class: 'badge badge-state state-stale' }, `${g.standing}: not blocking, rescue it`),
      ),
      h(
        'ul',
        { class: 'plain flight-files' },
        ...g.files.map((f) =>
          h(
            'li',
            { class: `flight-file kind-${f.kind}` },
            h('code', {}, f.path),
            h('span', { class: 'muted' }, ` ${f.kind_text}, ${f.age_text}`),
          ),
        ),
        g.files_unlisted > 0 ? h('li', { class: 'muted' }, `and ${g.files_unlisted} more`) : null,
      ),
    ),
  );
}
