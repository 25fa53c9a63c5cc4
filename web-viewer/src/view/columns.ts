// The board by state: live, expiring, stale (free to take) and blocked. Which column a claim is
// in is core's `column`, decided once for every board.
// Columns grow with their cards and the page scrolls (a column never scrolls inside itself); a
// column takes width in proportion to its cards, lays them out in as many rows as that width
// holds, and an empty one shrinks to its heading. Arrow keys move between cards and columns (one
// tab stop per column, roving focus), Enter or Space selects.

import type { BoardClaim } from '../core.js';
import { h } from '../dom.js';
import { renderCard, restyleCards } from './card.js';
import { ChunkedList } from './chunked.js';
import type { ViewContext } from './context.js';

export type ColumnId = BoardClaim['column'];

const COLUMNS: { id: ColumnId; title: string; hint: string }[] = [
  { id: 'live', title: 'Live', hint: 'held, lease running' },
  { id: 'expiring', title: 'Expiring', hint: 'lease about to run out' },
  { id: 'stale', title: 'Stale — free to take', hint: 'rail take TASK' },
  { id: 'blocked', title: 'Blocked', hint: 'waiting for other tasks' },
];

/** A card's height before any was measured, for the length of chunks not drawn yet. */
const CARD_ESTIMATE = 150;

interface Column {
  id: ColumnId;
  list: ChunkedList<BoardClaim>;
  count: HTMLElement;
  section: HTMLElement;
  /** The list of cards: the column's one tab stop. */
  body: HTMLElement;
  /** The card index that holds the column's tab stop. */
  active: number;
}

export class ColumnsView {
  private readonly columns: Column[];
  private ctx: ViewContext | null = null;

  constructor(root: HTMLElement) {
    root.replaceChildren();
    this.columns = COLUMNS.map(({ id, title, hint }, columnIndex) => {
      const count = h('span', { class: 'col-count' }, '0');
      const body = h('div', {
        class: 'col-body',
        attrs: { role: 'listbox', 'aria-label': `${title} claims`, tabindex: 0 },
      });
      const section = h(
        'section',
        { class: `column col-${id}`, attrs: { 'aria-label': title }, data: { column: id } },
        h('header', { class: 'col-head' }, h('h2', {}, title), count, h('span', { class: 'col-hint' }, hint)),
        body,
      );
      const column: Column = {
        id,
        count,
        section,
        body,
        active: 0,
        list: new ChunkedList<BoardClaim>({
          root: body,
          chunkClass: 'col-chunk',
          estimate: CARD_ESTIMATE,
          chunkSize: 16,
          eager: 96,
          key: (c) => c.id,
          render: (c, i) => this.card(column, c, i),
        }),
      };
      body.addEventListener('keydown', (e) => this.onKey(e, columnIndex));
      body.addEventListener('focus', (e) => {
        // Focus landing on the list itself moves on to its active card.
        if (e.target === body && column.list.length > 0) this.focusCard(columnIndex, column.active);
      });
      root.append(section);
      return column;
    });
  }

  private card(column: Column, claim: BoardClaim, index: number): HTMLElement {
    const card = renderCard(claim, this.ctx!);
    card.dataset.index = String(index);
    if (index === column.active) card.tabIndex = 0;
    return card;
  }

  update(ctx: ViewContext, claims: BoardClaim[], total: number): void {
    this.ctx = ctx;
    const groups = new Map<ColumnId, BoardClaim[]>(COLUMNS.map((c) => [c.id, []]));
    for (const claim of claims) groups.get(claim.column)!.push(claim);
    const totals = new Map<ColumnId, number>(COLUMNS.map((c) => [c.id, 0]));
    for (const claim of ctx.board.claims) totals.set(claim.column, totals.get(claim.column)! + 1);
    for (const column of this.columns) {
      const items = groups.get(column.id)!;
      column.active = Math.min(column.active, Math.max(0, items.length - 1));
      const all = totals.get(column.id)!;
      column.count.textContent = items.length === all || claims.length === total ? String(items.length) : `${items.length} of ${all}`;
      // Width in proportion to the cards; an empty column keeps only its heading.
      column.section.classList.toggle('is-empty', items.length === 0);
      column.section.style.flexGrow = String(items.length);
      column.body.tabIndex = items.length === 0 ? -1 : 0;
    }
    // Sized first, then filled: the list draws the chunks that land in view.
    for (const column of this.columns) column.list.setItems(groups.get(column.id)!);
  }

  /** Drops the cards while the lanes are shown (update draws them again). */
  clear(): void {
    for (const column of this.columns) column.list.clear();
  }

  /** Marks the selection and conflict partners on the cards in view, in place (re-rendering
   * would take focus away from the card being hovered or focused). */
  restyle(ctx: ViewContext): void {
    this.ctx = ctx;
    for (const column of this.columns) restyleCards(column.body, ctx);
  }

  /** Scrolls a claim into view and focuses it; false when the filter hides it. */
  reveal(id: number, focus: boolean): boolean {
    for (const [ci, column] of this.columns.entries()) {
      const index = column.list.indexOf(id);
      if (index < 0) continue;
      column.active = index;
      column.list.elementAt(index)?.scrollIntoView({ block: 'nearest' });
      if (focus) this.focusCard(ci, index);
      return true;
    }
    return false;
  }

  private focusCard(columnIndex: number, index: number): void {
    const column = this.columns[columnIndex];
    if (!column || column.list.length === 0) return;
    const i = Math.max(0, Math.min(index, column.list.length - 1));
    column.body.querySelector<HTMLElement>('.card[tabindex="0"]')?.setAttribute('tabindex', '-1');
    column.active = i;
    const el = column.list.elementAt(i);
    if (el) {
      el.tabIndex = 0;
      el.focus({ preventScroll: true });
      el.scrollIntoView({ block: 'nearest' });
    }
  }

  private onKey(e: KeyboardEvent, columnIndex: number): void {
    const column = this.columns[columnIndex]!;
    // A screenful of cards, counted on the active card's height.
    const cardHeight = column.list.elementAt(column.active)?.offsetHeight || CARD_ESTIMATE;
    const page = Math.max(1, Math.floor(innerHeight / cardHeight));
    const moves: Record<string, () => void> = {
      ArrowDown: () => this.focusCard(columnIndex, column.active + 1),
      ArrowUp: () => this.focusCard(columnIndex, column.active - 1),
      PageDown: () => this.focusCard(columnIndex, column.active + page),
      PageUp: () => this.focusCard(columnIndex, column.active - page),
      Home: () => this.focusCard(columnIndex, 0),
      End: () => this.focusCard(columnIndex, column.list.length - 1),
      ArrowRight: () => this.focusNeighbour(columnIndex, +1),
      ArrowLeft: () => this.focusNeighbour(columnIndex, -1),
      Enter: () => this.selectActive(column),
      ' ': () => this.selectActive(column),
    };
    const move = moves[e.key];
    if (!move || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();
    move();
  }

  private focusNeighbour(from: number, step: number): void {
    for (let i = from + step; i >= 0 && i < this.columns.length; i += step) {
      if (this.columns[i]!.list.length > 0) {
        this.focusCard(i, this.columns[i]!.active);
        return;
      }
    }
  }

  private selectActive(column: Column): void {
    const claim = column.list.itemAt(column.active);
    if (claim) this.ctx?.select(claim.id);
  }
}
