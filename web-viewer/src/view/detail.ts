// Everything about the selected claim: why it is in its state (core's reason), its lease times,
// where it is written, what it claims, what it waits for, and each conflict with a way to jump to
// the other claim.

import type { BoardClaim } from '../core.js';
import { fill, h, type Child } from '../dom.js';
import { purposeFragment } from '../security.js';
import { CONFLICT_LABEL, STATE_LABEL, claimName, duration, leaseLeft, localTime, type ViewContext } from './context.js';

function row(label: string, ...value: Child[]): HTMLElement[] {
  return [h('dt', {}, label), h('dd', {}, ...value)];
}

function time(iso: string | undefined): HTMLElement {
  return h('time', { attrs: { datetime: iso ?? undefined }, title: iso ?? '' }, localTime(iso));
}

function list(items: string[] | undefined, cls: string): HTMLElement {
  return items?.length
    ? h('ul', { class: `plain ${cls}` }, ...items.map((i) => h('li', {}, h('code', {}, i))))
    : h('span', { class: 'muted' }, 'none');
}

export function location(ctx: ViewContext, file: string, line: number, column = 1, label = `${file}:${line}`): HTMLElement {
  if (!ctx.reveal) return h('code', { class: 'loc' }, label);
  const reveal = ctx.reveal;
  return h(
    'button',
    {
      class: 'link loc',
      attrs: { type: 'button' },
      title: `Open ${file} at line ${line}`,
      on: { click: () => reveal(file, line, column) },
    },
    label,
  );
}

export function claimButton(ctx: ViewContext, id: number): HTMLElement {
  const claim = ctx.byId.get(id);
  const label = claim ? `${claimName(claim)} (${claim.session})` : `claim ${id}`;
  return h(
    'button',
    { class: 'link', attrs: { type: 'button' }, data: { 'claim-ref': id }, on: { click: () => ctx.select(id, true) } },
    label,
  );
}

export function renderDetail(root: HTMLElement, ctx: ViewContext, onClose: () => void): void {
  const claim: BoardClaim | undefined = ctx.selected === null ? undefined : ctx.byId.get(ctx.selected);
  root.hidden = !claim;
  if (!claim) {
    root.replaceChildren();
    return;
  }
  const conflicts = (claim.conflicts ?? []).map((i) => ctx.board.conflicts[i]).filter((c) => c !== undefined);
  const total = conflicts.length + (claim.conflicts_unlisted ?? 0);
  const purpose = h('div', { class: 'purpose' });
  if (claim.purpose_html) purpose.append(purposeFragment(claim.purpose_html, claim.purpose ?? ''));

  fill(
    root,
    h(
      'header',
      { class: 'detail-head' },
      h('h2', { attrs: { id: 'detail-title' } }, claimName(claim)),
      h('button', { class: 'icon', attrs: { type: 'button', 'aria-label': 'Close details (Esc)' }, on: { click: onClose } }, '×'),
    ),
    h(
      'p',
      { class: `detail-state state-${claim.state}` },
      h('span', { class: `badge badge-state state-${claim.state}` }, STATE_LABEL[claim.state]),
      ' ',
      claim.reason,
    ),
    claim.blocked ? h('p', { class: 'detail-blocked' }, 'Blocked: waits for ', (claim.blocked_by ?? []).join(', ')) : null,
    claim.holds ? null : h('p', { class: 'detail-unheld' }, 'Does not hold the task: a duplicate claim that lost to an earlier one.'),
    claim.purpose_html ? purpose : null,
    h(
      'dl',
      { class: 'facts' },
      ...row('session', claim.session),
      ...(claim.branch !== claim.session ? row('branch', claim.branch) : []),
      ...row('lease', leaseLeft(claim), ` (lease ${duration(claim.lease_secs)})`),
      ...row('lease runs', time(claim.lease_start), ' → ', time(claim.lease_end)),
      ...row('claimed', time(claim.claimed_at), claim.age_text ? ` (${claim.age_text} ago)` : ''),
      ...(claim.renewed_at ? row('renewed', time(claim.renewed_at)) : []),
      ...(claim.last_commit_at ? row('last commit', time(claim.last_commit_at)) : []),
      ...row('written in', location(ctx, claim.file, claim.line), claim.also ? ' + ' : '', claim.also ? location(ctx, claim.also, 1) : ''),
      ...(claim.pid ? row('process', claim.pid) : []),
      ...(claim.machine_text ? row('machine', claim.machine_text) : []),
      ...row('paths', list(claim.paths, 'paths')),
      ...row('resources', list(claim.resources, 'resources')),
      ...(claim.after?.length ? row('after', list(claim.after, 'after')) : []),
    ),
    conflicts.length
      ? h(
          'section',
          { class: 'detail-conflicts' },
          h('h3', {}, `⚠ ${total} ${total === 1 ? 'conflict' : 'conflicts'}`),
          h(
            'ul',
            { class: 'plain' },
            ...conflicts.map((c) =>
              h(
                'li',
                { class: 'conflict' },
                h('span', { class: 'badge badge-conflict' }, CONFLICT_LABEL[c.kind] ?? c.kind),
                ' ',
                c.message,
                h(
                  'div',
                  { class: 'with' },
                  'with ',
                  ...c.claims.filter((id) => id !== claim.id).flatMap((id, i) => [i ? ', ' : '', claimButton(ctx, id)]),
                  c.claims_unlisted ? ` and ${c.claims_unlisted} more` : '',
                ),
                c.overlaps.length
                  ? h(
                      'ul',
                      { class: 'plain overlaps' },
                      ...c.overlaps.map((o) =>
                        h('li', {}, h('code', {}, o.left), ' ∩ ', h('code', {}, o.right), ' e.g. ', h('code', {}, o.example)),
                      ),
                    )
                  : null,
              ),
            ),
            claim.conflicts_unlisted ? h('li', { class: 'muted' }, `and ${claim.conflicts_unlisted} more`) : null,
          ),
        )
      : null,
  );
}
