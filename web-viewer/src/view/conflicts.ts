// Every conflict core found (duplicate tasks, overlapping paths, resource clashes) and every
// blocked task, each with the claims involved as buttons that select them.

import type { Board } from '../core.js';
import { h } from '../dom.js';
import { CONFLICT_LABEL, type ViewContext } from './context.js';
import { claimButton } from './detail.js';
import { pagedList } from './more.js';

export function renderConflicts(root: HTMLElement, ctx: ViewContext, shown: ReadonlySet<number>): void {
  const board: Board = ctx.board;
  root.replaceChildren();
  // Only conflicts that involve a claim the filter shows: one it lists, or one a shown claim
  // lists (a conflict names a few of its claims and counts the rest).
  const listedByShown = new Set<number>();
  for (const id of shown) for (const i of ctx.byId.get(id)?.conflicts ?? []) listedByShown.add(i);
  const conflicts = board.conflicts.filter((c, i) => listedByShown.has(i) || c.claims.some((id) => shown.has(id)));
  const blocked = board.blocked.filter((b) => shown.has(b.claim));
  if (conflicts.length === 0 && blocked.length === 0) {
    root.append(h('p', { class: 'muted' }, board.conflicts.length ? 'No conflicts among the claims shown.' : 'No conflicts.'));
    return;
  }
  if (conflicts.length) {
    pagedList(root, conflicts, (c) =>
      h(
        'li',
        { class: `conflict kind-${c.kind}` },
        h('span', { class: 'badge badge-conflict' }, CONFLICT_LABEL[c.kind] ?? c.kind),
        ' ',
        h('span', { class: 'msg' }, c.message),
        h(
          'div',
          { class: 'with' },
          ...c.claims.flatMap((id, i) => [i ? ' ↔ ' : '', claimButton(ctx, id)]),
          c.claims_unlisted ? ` and ${c.claims_unlisted} more` : '',
        ),
      ),
    );
    // Overlapping pattern pairs past core's cap, counted (their claims are in the conflicts above).
    const unlisted = board.summary.overlaps_unlisted ?? 0;
    if (unlisted) root.append(h('p', { class: 'muted' }, `and ${unlisted} more path overlaps between patterns that have conflicts above`));
  }
  if (blocked.length) {
    root.append(h('h3', {}, `${blocked.length} blocked`));
    pagedList(root, blocked, (b) => h('li', { class: 'blocked' }, claimButton(ctx, b.claim), ' ', h('span', { class: 'msg' }, b.message)));
  }
}
