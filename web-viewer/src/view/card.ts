// One claim as a card: task, session, lease left, state, a preview of the purpose, and chips for
// its conflicts (each naming the claims on the other side), blocks, duplicates, resources and
// paths. A card grows with what it holds: chips wrap, and a long path or resource breaks inside
// its chip rather than being cut. Everything from the data is text, except the purpose, which
// goes through security.ts.

import type { BoardClaim, Conflict } from '../core.js';
import { type Child, h } from '../dom.js';
import { purposeFragment } from '../security.js';
import { CONFLICT_LABEL, STATE_LABEL, claimName, leaseLeft, type ViewContext } from './context.js';

/** One chip per conflict: what kind, on what, and with whom (task and session of each other
 * claim), so a card says who it collides with without opening it. */
function conflictChip(claim: BoardClaim, conflict: Conflict, ctx: ViewContext): HTMLElement {
  const others = conflict.claims
    .filter((id) => id !== claim.id)
    .map((id) => ctx.byId.get(id))
    .filter((c): c is BoardClaim => c !== undefined)
    .map((c) => `${claimName(c)} (${c.session})`);
  // A conflict names a few of its claims and counts the rest (this one among them when unnamed).
  const more = (conflict.claims_unlisted ?? 0) - (conflict.claims.includes(claim.id) ? 0 : 1);
  if (more > 0) others.push(`${more} more`);
  const kind = CONFLICT_LABEL[conflict.kind] ?? conflict.kind;
  const on = conflict.kind === 'resource-clash' && conflict.resource ? ` on ${conflict.resource}` : '';
  return h('span', { class: 'badge badge-conflict', title: conflict.message }, `⚠ ${kind}${on} with `, others.join(', '));
}

/** A long path or resource with a line-break opportunity after each `/` and `:` (not before a
 * short tail like `**`), so it wraps at its separators, and inside a part only where that part is
 * wider than the card. A short one (most) fits a line as it is. */
function breakable(text: string): Child[] {
  if (text.length <= 24) return [text];
  return text.split(/(?<=[/:])/).flatMap((part, i) => (i && part.length > 2 ? [h('wbr'), part] : [part]));
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

  const conflicts = (claim.conflicts ?? []).map((i) => ctx.board.conflicts[i]).filter((c): c is Conflict => c !== undefined);
  const foot = h(
    'div',
    { class: 'card-foot' },
    ...conflicts.map((c) => conflictChip(claim, c, ctx)),
    // A claim lists its first few conflicts and counts the rest.
    claim.conflicts_unlisted ? h('span', { class: 'badge badge-conflict' }, `⚠ ${claim.conflicts_unlisted} more conflicts`) : null,
    claim.blocked
      ? h('span', { class: 'badge badge-blocked', title: claim.reason }, 'waits for ', (claim.blocked_by ?? []).join(', '))
      : null,
    claim.holds ? null : h('span', { class: 'badge badge-unheld', title: 'a duplicate claim that lost to an earlier one' }, 'not held'),
    // A shared rail's claim is its machine's (core's words: this one, or another's).
    claim.machine_text
      ? h(
          'span',
          { class: `badge badge-machine${claim.elsewhere ? ' elsewhere' : ''}`, title: claim.machine_text },
          `machine: ${claim.machine_text}`,
        )
      : null,
    ...(claim.resources ?? []).map((r) => h('code', { class: 'badge badge-res' }, ...breakable(r))),
    ...(claim.paths ?? []).map((p) => h('code', { class: 'card-path' }, ...breakable(p))),
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
      h('span', { class: claim.task ? 'card-task' : 'card-task no-task' }, claimName(claim)),
      h('span', { class: `badge badge-state state-${claim.state}` }, STATE_LABEL[claim.state]),
    ),
    h(
      'div',
      { class: 'card-meta' },
      h('span', { class: 'card-session' }, claim.session),
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
