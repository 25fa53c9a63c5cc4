// The board by session: one lane per session (core's `sessions`, in its order) with its branch,
// worktree, last commit and lease counts, and its claims as chips that wrap (a task's name is
// never cut). Lanes grow with their chips and the page scrolls; only lanes near the viewport are
// drawn, and each shows at most CHIPS claims, so a session with 5,000 claims costs one lane;
// "+N more" narrows the board to that session instead.

import type { BoardClaim, SessionView } from '../core.js';
import { h } from '../dom.js';
import { restyleCards } from './card.js';
import { localTime, leaseLeft, type ViewContext } from './context.js';
import { ChunkedList } from './chunked.js';

/** A lane's height before any was measured. */
const LANE_ESTIMATE = 112;
const CHIPS = 40;

interface Lane {
  session: SessionView;
  index: number;
  claims: BoardClaim[];
}

export class LanesView {
  private readonly list: ChunkedList<Lane>;
  private ctx: ViewContext | null = null;

  constructor(
    private readonly root: HTMLElement,
    private readonly onlySession: (session: string) => void,
  ) {
    root.replaceChildren();
    const body = h('div', { class: 'lanes-body', attrs: { role: 'list', 'aria-label': 'Sessions' } });
    root.append(body);
    this.list = new ChunkedList<Lane>({
      root: body,
      chunkClass: 'lane-chunk',
      estimate: LANE_ESTIMATE,
      chunkSize: 4,
      eager: 24,
      key: (lane) => lane.index,
      render: (lane) => this.lane(lane),
    });
  }

  update(ctx: ViewContext, claims: BoardClaim[]): void {
    this.ctx = ctx;
    const shown = new Set(claims.map((c) => c.id));
    const lanes: Lane[] = [];
    for (const [index, session] of ctx.board.sessions.entries()) {
      const own = session.claims
        .filter((id) => shown.has(id))
        .map((id) => ctx.byId.get(id))
        .filter((c): c is BoardClaim => !!c);
      if (own.length > 0) lanes.push({ session, index, claims: own });
    }
    this.list.setItems(lanes);
  }

  /** Drops the lanes while the columns are shown (update draws them again). */
  clear(): void {
    this.list.clear();
  }

  restyle(ctx: ViewContext): void {
    this.ctx = ctx;
    restyleCards(this.root, ctx);
  }

  private lane({ session, claims }: Lane): HTMLElement {
    const ctx = this.ctx!;
    const chips = claims.slice(0, CHIPS).map((claim) => {
      const classes = ['chip', `state-${claim.state}`];
      if (claim.conflicts?.length) classes.push('has-conflict');
      if (claim.blocked) classes.push('is-blocked');
      if (ctx.selected === claim.id) classes.push('selected');
      if (ctx.partners.has(claim.id)) classes.push('partner');
      return h(
        'button',
        {
          class: classes.join(' '),
          attrs: { type: 'button' },
          data: { 'claim-id': claim.id },
          title: `${claim.task ?? claim.file} — ${claim.reason}`,
          on: {
            click: () => ctx.select(claim.id),
            mouseenter: () => ctx.hover(claim.id),
            mouseleave: () => ctx.hover(null),
          },
        },
        h('span', { class: 'chip-task' }, claim.task ?? '(no task)'),
        h(
          'span',
          { class: 'chip-left' },
          claim.conflicts?.length ? h('span', { class: 'chip-flag' }, '⚠ conflict · ') : null,
          claim.blocked ? 'blocked' : leaseLeft(claim),
        ),
      );
    });
    const more = claims.length - CHIPS;
    const facts = [
      session.branch !== session.name ? `branch ${session.branch}` : null,
      session.worktree ? `worktree ${session.worktree}` : null,
      session.last_commit_at ? `last commit ${localTime(session.last_commit_at)}` : null,
    ].filter((f): f is string => f !== null);
    const lane = h(
      'div',
      { class: 'lane', attrs: { role: 'listitem' }, data: { session: session.name } },
      h(
        'div',
        { class: 'lane-head' },
        h('h3', { class: 'lane-name' }, session.name),
        h(
          'span',
          { class: 'lane-counts' },
          h('span', { class: 'count state-live' }, `${session.live} live`),
          h('span', { class: 'count state-expiring' }, `${session.expiring} expiring`),
          h('span', { class: 'count state-stale' }, `${session.stale} stale`),
        ),
        // Guard status, in core's words.
        session.unguarded
          ? h(
              'span',
              {
                class: 'lane-guard unguarded',
                attrs: {
                  title: session.hook
                    ? `Rail hook of ${session.hook.agent} last seen ${session.hook.seen_at}, before this session's claims`
                    : 'No Rail hook was seen for this session: its agent may work unguarded',
                },
              },
              `⚠ ${session.guard_text}`,
            )
          : session.hook
            ? h(
                'span',
                {
                  class: 'lane-guard guarded',
                  attrs: {
                    title: `Rail hook of ${session.hook.agent}${session.hook.version ? ` ${session.hook.version}` : ''} last seen ${session.hook.seen_at}`,
                  },
                },
                session.guard_text,
              )
            : null,
        h('span', { class: 'lane-facts' }, facts.join(' · ')),
      ),
      h(
        'div',
        { class: 'lane-chips' },
        ...chips,
        more > 0
          ? h(
              'button',
              { class: 'chip more', attrs: { type: 'button' }, on: { click: () => this.onlySession(session.name) } },
              `+${more} more`,
            )
          : null,
      ),
    );
    return lane;
  }
}
