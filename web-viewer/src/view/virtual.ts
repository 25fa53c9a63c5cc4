// A list that keeps only the rows in view (plus a margin) in the DOM, so a column of 10,000
// claims costs as much as a column of 20. Rows have one fixed height; they are keyed, so a row
// that stays in view keeps its element (and keyboard focus) while the list scrolls.

export interface VirtualListOptions<T> {
  /** The scrolling element; the list adds its spacer and window inside it. */
  scroller: HTMLElement;
  rowHeight: number;
  key(item: T): number;
  render(item: T, index: number): HTMLElement;
  /** Rows rendered above and below the visible ones. */
  overscan?: number;
}

export class VirtualList<T> {
  private items: T[] = [];
  private readonly spacer: HTMLElement;
  private readonly window: HTMLElement;
  private rendered = new Map<number, HTMLElement>();
  private first = 0;
  private last = -1;
  private frame = 0;

  constructor(private readonly opts: VirtualListOptions<T>) {
    this.spacer = document.createElement('div');
    this.spacer.className = 'v-spacer';
    this.window = document.createElement('div');
    this.window.className = 'v-window';
    this.spacer.append(this.window);
    opts.scroller.append(this.spacer);
    opts.scroller.addEventListener('scroll', () => this.schedule(), { passive: true });
    new ResizeObserver(() => this.schedule()).observe(opts.scroller);
  }

  get length(): number {
    return this.items.length;
  }

  itemAt(index: number): T | undefined {
    return this.items[index];
  }

  setItems(items: T[]): void {
    this.items = items;
    this.spacer.style.height = `${items.length * this.opts.rowHeight}px`;
    // Everything may have changed: drop the rows and draw again.
    this.rendered.clear();
    this.window.replaceChildren();
    this.first = 0;
    this.last = -1;
    this.update();
  }

  /** Redraws rows in view (after a selection or highlight change). */
  refresh(): void {
    this.rendered.clear();
    this.window.replaceChildren();
    this.last = -1;
    this.update();
  }

  /** The row's element once it is in view. */
  scrollToIndex(index: number): HTMLElement | null {
    const { scroller, rowHeight } = this.opts;
    const top = index * rowHeight;
    if (top < scroller.scrollTop) scroller.scrollTop = top;
    else if (top + rowHeight > scroller.scrollTop + scroller.clientHeight) {
      scroller.scrollTop = top + rowHeight - scroller.clientHeight;
    }
    this.update();
    const item = this.items[index];
    return item === undefined ? null : (this.rendered.get(this.opts.key(item)) ?? null);
  }

  indexOf(key: number): number {
    return this.items.findIndex((item) => this.opts.key(item) === key);
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.update();
    });
  }

  private update(): void {
    const { scroller, rowHeight } = this.opts;
    const overscan = this.opts.overscan ?? 4;
    // Before the first layout clientHeight is 0; draw a screenful so the first paint is not empty.
    const height = scroller.clientHeight || 800;
    const first = Math.max(0, Math.floor(scroller.scrollTop / rowHeight) - overscan);
    const last = Math.min(this.items.length - 1, Math.ceil((scroller.scrollTop + height) / rowHeight) + overscan);
    if (first === this.first && last === this.last) return;
    this.first = first;
    this.last = last;
    const next = new Map<number, HTMLElement>();
    const rows: HTMLElement[] = [];
    for (let i = first; i <= last; i++) {
      const item = this.items[i]!;
      const key = this.opts.key(item);
      const row = this.rendered.get(key) ?? this.opts.render(item, i);
      row.style.transform = `translateY(${i * rowHeight}px)`;
      next.set(key, row);
      rows.push(row);
    }
    // Drop rows that left, then insert new ones around those that stay, so the DOM stays in
    // list order (reading and tab order) and a kept row is never moved (it keeps its focus).
    for (const [key, row] of this.rendered) if (!next.has(key)) row.remove();
    let cursor = this.window.firstChild;
    for (const row of rows) {
      if (row === cursor) cursor = cursor.nextSibling;
      else this.window.insertBefore(row, cursor);
    }
    this.rendered = next;
  }
}
