// The lease timeline: every claim a bar from its lease start to its lease end (core's
// `lease_start`/`lease_end`), a thin line before it from the claim time when a renewal or commit
// moved the start, and "now" marked across all rows, so how long each lease has left reads at a
// glance. Each row names its claim in full (`task · session`): the label column is as wide as the
// longest name, and where that would take more than two fifths of the width (a phone) the name
// goes on a line of its own above the bar. Rows are virtualized (only those in view are drawn);
// the axis stays on top.

import type { BoardClaim } from '../core.js';
import { fill, h, svg } from '../dom.js';
import { restyleCards } from './card.js';
import { STATE_LABEL, type ViewContext } from './context.js';

const ROW = 22;
/** A row with its name on a line above the bar. */
const STACKED_ROW = 36;
/** Width of a label character, in px (11.5 px monospace), when the page cannot measure it. */
const CHAR = 7;
const AXIS = 34;
const OVERSCAN = 6;
const MINUTE = 60_000;
const STEPS_MIN = [1, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10080, 43200];
export const WINDOWS: Record<string, number | null> = { fit: null, '6h': 6 * 60, '24h': 24 * 60, '7d': 7 * 1440 };

interface Row {
  claim: BoardClaim;
  start: number;
  end: number;
  claimed: number | null;
}

const hhmm = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const day = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });

function ms(iso: string | undefined): number | null {
  if (iso === undefined) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
}

/** "UTC+01:00", for the caption: the axis shows the reader's local time. */
function zoneName(at: number): string {
  const offset = -new Date(at).getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** Only for a name wider than the whole timeline; the bar's tooltip keeps it whole. */
function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** How a row names its claim. */
function label(claim: BoardClaim): string {
  return `${claim.task ?? '(no task)'} · ${claim.session}`;
}

export class TimelineView {
  private rows: Row[] = [];
  private lo = 0;
  private hi = 1;
  private now = 0;
  private width = 800;
  private first = 0;
  private last = -1;
  private frame = 0;
  private ctx: ViewContext | null = null;
  private readonly axis: SVGSVGElement;
  private readonly scroller: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly nowLine: HTMLElement;
  private readonly rowsSvg: SVGSVGElement;

  constructor(
    root: HTMLElement,
    private readonly caption: HTMLElement,
    private windowMinutes: () => number | null,
  ) {
    this.axis = svg('svg', { class: 'tl-axis', height: AXIS, 'aria-hidden': 'true' });
    this.rowsSvg = svg('svg', { class: 'tl-rows', role: 'img' });
    this.nowLine = h('div', { class: 'tl-nowline tl-now', attrs: { 'aria-hidden': 'true' } });
    this.spacer = h('div', { class: 'tl-spacer' }, this.nowLine, this.rowsSvg);
    this.scroller = h('div', { class: 'tl-scroll' }, this.spacer);
    fill(root, this.axis, this.scroller);
    this.scroller.addEventListener('scroll', () => this.schedule(), { passive: true });
    new ResizeObserver(() => {
      const w = this.scroller.clientWidth;
      if (w > 0 && w !== this.width) {
        this.width = w;
        this.draw();
      }
    }).observe(this.scroller);
    this.rowsSvg.addEventListener('click', (e) => {
      const id = this.idAt(e.target);
      if (id !== null) this.ctx?.select(id, true);
    });
    this.rowsSvg.addEventListener('mouseover', (e) => this.ctx?.hover(this.idAt(e.target)));
    this.rowsSvg.addEventListener('mouseleave', () => this.ctx?.hover(null));
  }

  private idAt(target: EventTarget | null): number | null {
    const row = target instanceof Element ? target.closest<SVGGElement>('[data-claim-id]') : null;
    return row ? Number(row.dataset.claimId) : null;
  }

  /** The longest `task · session` label (monospace: the widest), and its width as drawn. */
  private longest = '';
  private longestPx = 0;

  private get stacked(): boolean {
    return this.longestPx + 16 > this.width * 0.4;
  }

  private get row(): number {
    return this.stacked ? STACKED_ROW : ROW;
  }

  private get labelWidth(): number {
    if (this.stacked) return 8;
    return Math.ceil(Math.max(this.longestPx + 16, Math.min(160, this.width * 0.24)));
  }

  /** Measures the longest label once per update (a hidden timeline falls back to an estimate). */
  private measureLongest(): void {
    const probe = svg('text', { class: 'tl-label', x: 0, y: 0 }, this.longest);
    this.rowsSvg.append(probe);
    this.longestPx = probe.getComputedTextLength() || this.longest.length * CHAR;
    probe.remove();
  }

  private x(t: number): number {
    const left = this.labelWidth;
    const span = this.width - left - 14;
    return left + ((t - this.lo) / (this.hi - this.lo)) * span;
  }

  update(ctx: ViewContext, claims: BoardClaim[]): void {
    this.ctx = ctx;
    this.now = Date.parse(ctx.board.now);
    const rows: Row[] = [];
    for (const claim of claims) {
      const start = ms(claim.lease_start) ?? ms(claim.claimed_at);
      const end = ms(claim.lease_end);
      if (start === null || end === null) continue;
      const claimed = ms(claim.claimed_at);
      rows.push({ claim, start, end, claimed: claimed !== null && claimed < start ? claimed : null });
    }
    rows.sort((a, b) => a.start - b.start || a.end - b.end || a.claim.id - b.claim.id);
    this.rows = rows;
    this.longest = '';
    for (const r of rows) {
      const name = label(r.claim);
      if (name.length > this.longest.length) this.longest = name;
    }
    this.measureLongest();

    const windowMin = this.windowMinutes();
    if (windowMin !== null) {
      // A fixed window, with now at three quarters: most of it is the past that led here.
      this.lo = this.now - windowMin * MINUTE * 0.75;
      this.hi = this.now + windowMin * MINUTE * 0.25;
    } else {
      let lo = this.now;
      let hi = this.now;
      for (const r of rows) {
        lo = Math.min(lo, r.claimed ?? r.start);
        hi = Math.max(hi, r.end);
      }
      const pad = Math.max((hi - lo) * 0.04, 5 * MINUTE);
      this.lo = lo - pad;
      this.hi = hi + pad;
    }
    const without = claims.length - rows.length;
    this.caption.textContent = [
      `${rows.length} ${rows.length === 1 ? 'bar' : 'bars'}`,
      without > 0 ? `${without} without a known claim time` : null,
      `times in your zone (${zoneName(this.now)})`,
    ]
      .filter(Boolean)
      .join(' · ');
    this.rowsSvg.setAttribute(
      'aria-label',
      `Lease timeline of ${rows.length} claims; now is ${hhmm.format(this.now)}. The claims are listed on the board above.`,
    );
    if (this.scroller.clientWidth > 0) this.width = this.scroller.clientWidth;
    this.draw();
  }

  restyle(ctx: ViewContext): void {
    this.ctx = ctx;
    restyleCards(this.rowsSvg, ctx);
  }

  /** Scrolls the timeline to a claim's bar. */
  reveal(id: number): void {
    const index = this.rows.findIndex((r) => r.claim.id === id);
    if (index < 0) return;
    const top = index * this.row;
    if (top < this.scroller.scrollTop || top + this.row > this.scroller.scrollTop + this.scroller.clientHeight) {
      this.scroller.scrollTop = Math.max(0, top - this.scroller.clientHeight / 2);
    }
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.drawRows(false);
    });
  }

  private draw(): void {
    // The row height depends on the width (stacked or not): the window of 14 rows follows it.
    this.spacer.style.height = `${this.rows.length * this.row}px`;
    this.scroller.style.height = `${Math.min(this.rows.length, 14) * this.row + 2}px`;
    this.drawAxis();
    const nowX = this.x(this.now);
    this.nowLine.style.left = `${nowX}px`;
    this.nowLine.hidden = this.now < this.lo || this.now > this.hi;
    this.drawRows(true);
  }

  private drawAxis(): void {
    const left = this.labelWidth;
    const span = this.hi - this.lo;
    const room = Math.max(1, (this.width - left - 14) / 84);
    const stepMin = STEPS_MIN.find((s) => span / (s * MINUTE) <= room) ?? STEPS_MIN[STEPS_MIN.length - 1]!;
    const step = stepMin * MINUTE;
    // Ticks fall on round local times (every 15 minutes past the hour, midnight for days).
    const tz = -new Date(this.lo).getTimezoneOffset() * MINUTE;
    const items: SVGElement[] = [svg('line', { class: 'tl-axis-line', x1: left, x2: this.width - 14, y1: AXIS - 1, y2: AXIS - 1 })];
    let lastDay = '';
    for (let t = Math.ceil((this.lo + tz) / step) * step - tz; t <= this.hi; t += step) {
      const x = this.x(t);
      const label = stepMin < 1440 ? hhmm.format(t) : day.format(t);
      const d = day.format(t);
      items.push(svg('line', { class: 'tl-tick', x1: x, x2: x, y1: AXIS - 6, y2: AXIS - 1 }));
      items.push(svg('text', { class: 'tl-tick-label', x, y: 12, 'text-anchor': 'middle' }, label));
      if (stepMin < 1440 && d !== lastDay) {
        items.push(svg('text', { class: 'tl-day-label', x, y: 24, 'text-anchor': 'middle' }, d));
        lastDay = d;
      }
    }
    if (this.now >= this.lo && this.now <= this.hi) {
      const x = this.x(this.now);
      items.push(
        svg(
          'g',
          { class: 'tl-now tl-now-marker' },
          svg('line', { x1: x, x2: x, y1: 14, y2: AXIS }),
          svg('text', { x: x + 4, y: 24, class: 'tl-now-label' }, `now ${hhmm.format(this.now)}`),
        ),
      );
    }
    if (!this.stacked) items.push(svg('text', { class: 'tl-head-label', x: 8, y: 24 }, 'task · session'));
    this.axis.setAttribute('width', String(this.width));
    this.axis.setAttribute('viewBox', `0 0 ${this.width} ${AXIS}`);
    this.axis.replaceChildren(...items);
  }

  private drawRows(force: boolean): void {
    const row = this.row;
    const height = this.scroller.clientHeight || 14 * row;
    const first = Math.max(0, Math.floor(this.scroller.scrollTop / row) - OVERSCAN);
    const last = Math.min(this.rows.length - 1, Math.ceil((this.scroller.scrollTop + height) / row) + OVERSCAN);
    if (!force && first === this.first && last === this.last) return;
    this.first = first;
    this.last = last;
    const ctx = this.ctx;
    const left = this.labelWidth;
    const right = this.width - 14;
    const stacked = this.stacked;
    // Beside the bar every name fits (the label column is as wide as the longest); stacked, one
    // wider than the whole timeline is cut, its bar's tooltip keeping it whole.
    const room = this.width - 12;
    const maxChars =
      stacked && this.longestPx > room ? Math.floor((this.longest.length * room) / this.longestPx) : Number.POSITIVE_INFINITY;
    // Stacked: the name on top, the bar below it; else the name left of the bar.
    const barY = stacked ? 19 : 5;
    const groups: SVGElement[] = [];
    for (let i = first; i <= last; i++) {
      const { claim, start, end, claimed } = this.rows[i]!;
      const classes = ['tl-row', `state-${claim.state}`];
      if (claim.conflicts?.length) classes.push('has-conflict');
      if (claim.blocked) classes.push('is-blocked');
      if (ctx?.selected === claim.id) classes.push('selected');
      if (ctx?.partners.has(claim.id)) classes.push('partner');
      const x1 = Math.max(left, Math.min(right, this.x(start)));
      const x2 = Math.max(left, Math.min(right, this.x(end)));
      const name = label(claim);
      const parts: SVGElement[] = [
        svg('rect', { class: 'tl-hit', x: 0, y: 0, width: this.width, height: row }),
        svg('text', { class: 'tl-label', x: 8, y: stacked ? 13 : 15 }, truncate(name, maxChars)),
      ];
      if (claimed !== null) {
        const hx = Math.max(left, Math.min(right, this.x(claimed)));
        parts.push(svg('line', { class: 'tl-history', x1: hx, x2: x1, y1: barY + 6, y2: barY + 6 }));
        parts.push(svg('circle', { class: 'tl-history', cx: hx, cy: barY + 6, r: 2.5 }));
      }
      parts.push(
        svg(
          'rect',
          { class: 'tl-bar', x: x1, y: barY, width: Math.max(2, x2 - x1), height: 12, rx: 3 },
          svg('title', {}, `${name}\n${STATE_LABEL[claim.state]}: ${claim.reason}`),
        ),
      );
      groups.push(svg('g', { class: classes.join(' '), transform: `translate(0 ${i * row})`, 'data-claim-id': claim.id }, ...parts));
    }
    this.rowsSvg.setAttribute('width', String(this.width));
    this.rowsSvg.setAttribute('height', String(Math.max(0, this.rows.length * row)));
    this.rowsSvg.replaceChildren(...groups);
  }
}
