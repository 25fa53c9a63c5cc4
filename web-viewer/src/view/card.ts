// One claim as a card of fixed height (the columns virtualize on it): task, session, lease left,
// state, a two-line purpose, and badges for conflicts, blocks and duplicates. Everything from
// the data is text, except the purpose, which goes through security.ts.

import type { BoardClaim } from '../core.js';
import { h } from '../dom.js';
import { purposeFragment } from '../security.js';
import { CONFLICT_LABEL, STATE_LABEL, claimName, leaseLeft, type ViewContext } from './context.js';

export const CARD_HEIGHT = 118;

function conflictBadge(claim: BoardClaim, ctx: ViewContext): HTMLElement | null {
  const conflicts = claim.conflicts ?? [];
  if (conflicts.length === 0) return null;
  const first = ctx.board.conflicts[conflicts[0]!];
  const others = new Set<string>();
  for (const i of conflicts) for (const s of ctx.board.conflicts[i]?.sessions ?? []) if (s !== claim.session) others.add(s);
  const label =
    conflicts.length === 1 && first
      ? `${CONFLICT_LABEL[first.kind] ?? first.kind}${others.size ? ` · ${[...others].join(', ')}` : ''}`
      : `${conflicts.length} conflicts`;
  const messages = conflicts.map((i) => ctx.board.conflicts[i]?.message ?? '').join('\n');
  return h('span', { class: 'badge badge-conflict', title: messages }, '⚠ ', label);
}

export function renderCard(claim: BoardClaim, ctx: ViewContext): HTMLElement {
  const classes = ['card', `state-${claim.state}`];
  if (claim.conflicts?.length) classes.push('has-conflict');
  if (claim.blocked) classes.push('is-blocked');
  if (!claim.holds) classes.push('not-held');
  if (ctx.selected === claim.id) classes.push('selected');
  if (ctx.partners.has(claim.id)) classes.push('partner');

  const purpose = h('div', { class: 'card-purpose' });
  if (claim.purpose_html) purpose.append(purposeFragment(claim.purpose_html, claim.purpose ?? ''));
  // Links inside a card stay clickable but out of the tab order: the card is one stop.
  for (const a of purpose.querySelectorAll('a')) a.setAttribute('tabindex', '-1');

  const paths = claim.paths?.length ? h('span', { class: 'card-paths', title: claim.paths.join('\n') }, claim.paths.join(', ')) : null;
  const foot = h(
    'div',
    { class: 'card-foot' },
    conflictBadge(claim, ctx),
    claim.blocked
      ? h('span', { class: 'badge badge-blocked', title: claim.reason }, 'waits for ', (claim.blocked_by ?? []).join(', '))
      : null,
    claim.holds ? null : h('span', { class: 'badge badge-unheld', title: 'a duplicate claim that lost to an earlier one' }, 'not held'),
    claim.resources?.length ? h('span', { class: 'badge badge-res', title: claim.resources.join('\n') }, claim.resources.join(', ')) : null,
    paths,
  );

  const card = h(
    'div',
    {
      class: classes.join(' '),
      attrs: { role: 'option', tabindex: -1, 'aria-selected': ctx.selected === claim.id ? 'true' : 'false' },
      data: { 'claim-id': claim.id },
      on: {
        click: (event) => {
          if ((event.target as Element).closest('a')) return;
          ctx.select(claim.id);
        },
        mouseenter: () => ctx.hover(claim.id),
        mouseleave: () => ctx.hover(null),
        focus: () => ctx.hover(claim.id),
        blur: () => ctx.hover(null),
      },
    },
    h(
      'div',
      { class: 'card-top' },
      h('span', { class: claim.task ? 'card-task' : 'card-task no-task', title: claimName(claim) }, claimName(claim)),
      h('span', { class: `badge badge-state state-${claim.state}` }, STATE_LABEL[claim.state]),
    ),
    h(
      'div',
      { class: 'card-meta' },
      h('span', { class: 'card-session', title: `session ${claim.session}` }, claim.session),
      h('span', { class: 'card-left', title: claim.reason }, leaseLeft(claim)),
    ),
    purpose,
    foot,
  );
  return card;
}

/** Updates selection and partner marks on rendered cards (and lane chips) under `root`. */
export function restyleCards(root: ParentNode, ctx: ViewContext): void {
  for (const el of root.querySelectorAll<HTMLElement>('[data-claim-id]')) {
    const id = Number(el.dataset.claimId);
    el.classList.toggle('selected', ctx.selected === id);
    el.classList.toggle('partner', ctx.partners.has(id));
    if (el.getAttribute('role') === 'option') el.setAttribute('aria-selected', ctx.selected === id ? 'true' : 'false');
  }
}
