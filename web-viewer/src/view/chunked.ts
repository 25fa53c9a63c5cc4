// A list the page scrolls, drawn in chunks: every row has its natural height (a card grows with
// its paths, resources and conflicts; nothing is cut to fit a fixed height), and only the chunks
// near the viewport hold elements, so a column of 10,000 claims costs about as much as one of 50.
// A chunk out of view keeps its last measured height (an estimate before it was ever drawn), so
// the page's length stays put while it scrolls. Short lists are drawn whole, with no observer.
//
// A column that scrolled inside itself (the virtual list this replaces) hid the claims below its
// fold even on a 3,200 px screen.

export interface ChunkedListOptions<T> {
  /** The element the chunks go into; the list owns its children. */
  root: HTMLElement;
  /** The class of each chunk (a chunk lays out its own rows: a grid of cards, a stack of lanes). */
  chunkClass: string;
  key(item: T): number;
  render(item: T, index: number): HTMLElement;
  /** Height per item, in px, assumed until a chunk has been measured. */
  estimate: number;
  /** Items per chunk; divisible by the usual number of cards per row keeps rows full. */
  chunkSize: number;
  /** Lists of up to this many items are drawn whole. */
  eager: number;
}
/** How far beyond the viewport chunks are drawn, in px. */
const MARGIN = 400;

export class ChunkedList<T> {
  private items: T[] = [];
  private chunks: HTMLElement[] = [];
  private readonly drawn = new Set<number>();
  private readonly size: number;
  private perItem: number;
  private readonly observer: IntersectionObserver;

  constructor(private readonly opts: ChunkedListOptions<T>) {
    this.size = opts.chunkSize;
    this.perItem = opts.estimate;
    this.observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          const index = Number((entry.target as HTMLElement).dataset.chunk);
          if (entry.isIntersecting) this.draw(index);
          else this.empty(index);
        }
      },
      { rootMargin: `${MARGIN}px 0px` },
    );
  }

  get length(): number {
    return this.items.length;
  }

  itemAt(index: number): T | undefined {
    return this.items[index];
  }

  indexOf(key: number): number {
    return this.items.findIndex((item) => this.opts.key(item) === key);
  }

  setItems(items: T[]): void {
    this.observer.disconnect();
    this.items = items;
    this.drawn.clear();
    this.chunks = [];
    for (let start = 0; start < items.length; start += this.size) {
      const chunk = document.createElement('div');
      chunk.className = this.opts.chunkClass;
      chunk.dataset.chunk = String(this.chunks.length);
      chunk.style.height = `${Math.min(this.size, items.length - start) * this.perItem}px`;
      this.chunks.push(chunk);
    }
    this.opts.root.replaceChildren(...this.chunks);
    if (items.length <= this.opts.eager) {
      for (const i of this.chunks.keys()) this.draw(i);
      return;
    }
    this.drawInView();
    for (const chunk of this.chunks) this.observer.observe(chunk);
  }

  /** Drops every element (a view the reader switched away from); setItems draws again. */
  clear(): void {
    this.setItems([]);
  }

  /** The row's element, drawing its chunk if it was not; null past the end. */
  elementAt(index: number): HTMLElement | null {
    if (index < 0 || index >= this.items.length) return null;
    const chunk = Math.floor(index / this.size);
    this.draw(chunk);
    return (this.chunks[chunk]?.children[index - chunk * this.size] as HTMLElement | undefined) ?? null;
  }

  /** Draws, now, the chunks the viewport shows, so the first paint (and whoever reads the DOM
   * right after an update) sees them without waiting for the observer. A hidden list has no
   * layout; the observer draws it once it shows. */
  private drawInView(): void {
    if (this.opts.root.getClientRects().length === 0) return;
    for (const [i, chunk] of this.chunks.entries()) {
      const rect = chunk.getBoundingClientRect();
      if (rect.top > innerHeight + MARGIN) break;
      if (rect.bottom >= -MARGIN) this.draw(i);
    }
  }

  private draw(index: number): void {
    const chunk = this.chunks[index];
    if (!chunk || this.drawn.has(index)) return;
    const start = index * this.size;
    const rows: HTMLElement[] = [];
    for (let i = start; i < Math.min(this.items.length, start + this.size); i++) rows.push(this.opts.render(this.items[i]!, i));
    chunk.replaceChildren(...rows);
    chunk.style.height = '';
    this.drawn.add(index);
  }

  /** Empties a chunk that left the viewport, keeping its height; never the one holding focus. */
  private empty(index: number): void {
    const chunk = this.chunks[index];
    if (!chunk || !this.drawn.has(index) || chunk.contains(document.activeElement)) return;
    const height = chunk.offsetHeight;
    const count = chunk.childElementCount;
    if (height > 0 && count > 0) this.perItem = height / count;
    chunk.style.height = `${height}px`;
    chunk.replaceChildren();
    this.drawn.delete(index);
  }
}
