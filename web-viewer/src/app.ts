// The page's state and how it flows: texts + facts → core's board → filter → views. The app keeps
// what was loaded and the reader's choices (filter, selection, view); every number, state and
// conflict it shows comes from the board.

import { computeBoard, whoHolds, type Board, type BoardClaim, type Facts, type RailTexts } from './core.js';
import { byId, debounce, fill, h } from './dom.js';
import { factsNote } from './facts.js';
import { ClaimIndex, isEmptyQuery, parseQuery, type Narrowing } from './filter.js';
import { fileList, withoutFile } from './sources/classify.js';
import { ColumnsView } from './view/columns.js';
import { partnersOf, localTime, type ViewContext } from './view/context.js';
import { renderConflicts } from './view/conflicts.js';
import { renderDetail } from './view/detail.js';
import { renderFlight } from './view/flight.js';
import { renderDiagnostics } from './view/diagnostics.js';
import { LanesView } from './view/lanes.js';
import { renderLog } from './view/log.js';
import { renderResources } from './view/resources.js';
import { renderBacklog } from './view/backlog.js';
import { renderSummary } from './view/summary.js';
import { TimelineView, WINDOWS } from './view/timeline.js';

export type Clock = 'live' | 'fixed';

export interface Loaded {
  texts: RailTexts;
  facts: Facts;
  /** What the header says the rail came from. */
  source: string;
  /** `live`: the page re-evaluates with the clock; `fixed`: facts.now stays (snapshot, ?now=, host). */
  clock: Clock;
  /** Files the reader may remove from the board (local files only). */
  removable: boolean;
}

export class App {
  private loaded: Loaded | null = null;
  private board: Board | null = null;
  private index: ClaimIndex | null = null;
  private byId = new Map<number, BoardClaim>();
  private shown: BoardClaim[] = [];
  private selected: number | null = null;
  private hovered: number | null = null;
  private view: 'columns' | 'lanes' = 'columns';
  private renders = 0;
  /** `path:` terms → claim ids core says cover them; recomputed only when the terms change. */
  private covering = new Map<string, ReadonlySet<number>>();
  private coveringKey = '';

  private readonly search = byId<HTMLInputElement>('search');
  private readonly sessionSelect = byId<HTMLSelectElement>('session-filter');
  private readonly onlyConflicts = byId('only-conflicts');
  private readonly onlyBlocked = byId('only-blocked');
  private readonly columnsRoot = byId('columns');
  private readonly lanesRoot = byId('lanes');
  private readonly detail = byId('detail');
  private readonly columns: ColumnsView;
  private readonly lanes: LanesView;
  private readonly timeline: TimelineView;
  private readonly tlWindow = byId<HTMLSelectElement>('tl-window');
  private readonly reveal: ViewContext['reveal'];

  constructor(opts: { reveal: ViewContext['reveal']; initialQuery: string }) {
    this.reveal = opts.reveal;
    this.columns = new ColumnsView(this.columnsRoot);
    this.lanes = new LanesView(this.lanesRoot, (session) => {
      this.sessionSelect.value = session;
      this.setView('columns');
      this.applyFilter();
    });
    this.timeline = new TimelineView(byId('timeline'), byId('tl-caption'), () => WINDOWS[this.tlWindow.value] ?? null);
    this.search.value = opts.initialQuery;
    // Typing re-filters after a pause; 10,000 claims filter in a few milliseconds, but `path:`
    // asks core, which reads the whole rail again.
    this.search.addEventListener(
      'input',
      debounce(() => this.applyFilter(), 120),
    );
    this.sessionSelect.addEventListener('change', () => this.applyFilter());
    for (const button of [this.onlyConflicts, this.onlyBlocked]) {
      button.addEventListener('click', () => {
        button.setAttribute('aria-pressed', String(button.getAttribute('aria-pressed') !== 'true'));
        this.applyFilter();
      });
    }
    this.tlWindow.addEventListener('change', () => this.renderTimeline());
  }

  get hasRail(): boolean {
    return this.loaded !== null;
  }

  get texts(): RailTexts | null {
    return this.loaded?.texts ?? null;
  }

  get clock(): Clock | null {
    return this.loaded?.clock ?? null;
  }

  load(loaded: Loaded): void {
    this.loaded = loaded;
    this.covering.clear();
    this.coveringKey = '';
    this.evaluate();
  }

  /** Evaluates again at a new time (the clock ticked) without touching the texts. */
  reevaluate(facts: Facts): void {
    if (!this.loaded) return;
    this.loaded = { ...this.loaded, facts };
    this.covering.clear();
    this.coveringKey = '';
    this.evaluate();
  }

  showError(message: string | null): void {
    const banner = byId('banner');
    banner.hidden = message === null;
    banner.textContent = message ?? '';
  }

  private evaluate(): void {
    const loaded = this.loaded!;
    performance.mark('rail:evaluate');
    let board: Board;
    try {
      board = computeBoard(loaded.texts, loaded.facts);
    } catch (e) {
      this.showError(e instanceof Error ? e.message : String(e));
      return;
    }
    performance.mark('rail:board');
    this.showError(null);
    this.board = board;
    this.index = new ClaimIndex(board);
    this.byId = new Map(board.claims.map((c) => [c.id, c]));
    if (this.selected !== null && !this.byId.has(this.selected)) this.selected = null;
    this.renderChrome();
    this.applyFilter();
  }

  /** Header, sources, summary, session list: what does not depend on the filter. */
  private renderChrome(): void {
    const board = this.board!;
    const loaded = this.loaded!;
    byId('empty').hidden = true;
    byId('waiting').hidden = true;
    byId('source').textContent = loaded.source;
    const now = byId('now');
    fill(
      now,
      'now ',
      h('time', { attrs: { datetime: board.now }, title: board.now }, localTime(board.now)),
      loaded.clock === 'live' ? ' (clock)' : ' (fixed)',
    );
    byId('facts-note').textContent = factsNote(loaded.facts);
    // A shared rail: whether its state is proven (core's words; a warning when unverified).
    const shared = byId('shared-note');
    shared.hidden = board.shared === undefined;
    shared.classList.toggle('warning', board.shared?.warning === true);
    shared.textContent = board.shared ? `${board.shared.warning ? '⚠ ' : ''}${board.shared.text}` : '';
    const files = fileList(loaded.texts);
    fill(
      byId('files'),
      ...files.map((path) =>
        h(
          'span',
          { class: 'file-chip' },
          h('code', {}, path),
          loaded.removable
            ? h(
                'button',
                {
                  class: 'icon',
                  attrs: { type: 'button', 'aria-label': `Remove ${path}` },
                  on: { click: () => this.load({ ...loaded, texts: withoutFile(loaded.texts, path) }) },
                },
                '×',
              )
            : null,
        ),
      ),
    );
    renderSummary(byId('summary'), board.summary, (query) => {
      this.search.value = query ?? '';
      this.sessionSelect.value = '';
      for (const b of [this.onlyConflicts, this.onlyBlocked]) b.setAttribute('aria-pressed', 'false');
      this.applyFilter();
    });
    const current = this.sessionSelect.value;
    fill(
      this.sessionSelect,
      h('option', { attrs: { value: '' } }, `All sessions (${board.sessions.length})`),
      ...board.sessions.map((s) => h('option', { attrs: { value: s.name } }, s.name)),
    );
    this.sessionSelect.value = board.sessions.some((s) => s.name === current) ? current : '';
  }

  applyFilter(): void {
    const board = this.board;
    const index = this.index;
    if (!board || !index || !this.loaded) return;
    const query = parseQuery(this.search.value);
    const narrow: Narrowing = {
      session: this.sessionSelect.value,
      conflictsOnly: this.onlyConflicts.getAttribute('aria-pressed') === 'true',
      blockedOnly: this.onlyBlocked.getAttribute('aria-pressed') === 'true',
    };
    const key = query.paths.join('\n');
    if (key !== this.coveringKey) {
      this.coveringKey = key;
      this.covering = new Map();
      if (query.paths.length) {
        try {
          // One path per call: asked alone, core names every claim a path touches (asked about
          // many, it names a share of the rail's claims for each).
          for (const path of query.paths) {
            for (const who of whoHolds(this.loaded.texts, this.loaded.facts, [path])) {
              this.covering.set(who.path, new Set(who.holders.map((holder) => holder.claim)));
            }
          }
        } catch {
          // A path core refuses (e.g. absolute) covers nothing; the text match still applies.
        }
      }
    }
    this.shown = index.filter(query, narrow, this.covering);
    const filtered = !isEmptyQuery(query) || narrow.session !== '' || narrow.conflictsOnly || narrow.blockedOnly;
    byId('match-count').textContent = filtered ? `${this.shown.length} of ${board.claims.length} claims` : `${board.claims.length} claims`;
    this.renderBoard();
  }

  private context(): ViewContext {
    const focus = this.hovered ?? this.selected;
    return {
      board: this.board!,
      byId: this.byId,
      selected: this.selected,
      partners: partnersOf(this.board!, focus === null ? undefined : this.byId.get(focus)),
      select: (id, reveal) => this.select(id, reveal ?? false),
      hover: (id) => this.hover(id),
      reveal: this.reveal,
    };
  }

  private renderBoard(): void {
    const ctx = this.context();
    const shownIds = new Set(this.shown.map((c) => c.id));
    if (this.view === 'columns') this.columns.update(ctx, this.shown, ctx.board.claims.length);
    else this.lanes.update(ctx, this.shown);
    this.timeline.update(ctx, this.shown);
    renderConflicts(byId('conflicts-panel').querySelector('.panel-body')!, ctx, shownIds);
    renderFlight(byId('flight-panel').querySelector('.panel-body')!, ctx);
    renderResources(byId('resources-panel').querySelector('.panel-body')!, ctx, shownIds);
    renderBacklog(byId('backlog-panel').querySelector('.panel-body')!, ctx);
    renderDiagnostics(byId('diagnostics-panel').querySelector('.panel-body')!, ctx);
    renderLog(byId('log-panel').querySelector('.panel-body')!, ctx);
    renderDetail(this.detail, ctx, () => this.select(null, false));
    this.renders++;
    performance.mark('rail:rendered');
    // Tests and the measure script wait on this; it changes on every render.
    document.documentElement.dataset.renders = String(this.renders);
  }

  private renderTimeline(): void {
    if (this.board) this.timeline.update(this.context(), this.shown);
  }

  private restyle(): void {
    const ctx = this.context();
    this.columns.restyle(ctx);
    this.lanes.restyle(ctx);
    this.timeline.restyle(ctx);
  }

  select(id: number | null, reveal: boolean): void {
    this.selected = id;
    const ctx = this.context();
    renderDetail(this.detail, ctx, () => this.select(null, false));
    this.restyle();
    if (id !== null && reveal) {
      if (this.view === 'columns') this.columns.reveal(id, true);
      this.timeline.reveal(id);
    }
  }

  private hover(id: number | null): void {
    if (this.hovered === id) return;
    this.hovered = id;
    this.restyle();
  }

  setView(view: 'columns' | 'lanes'): void {
    this.view = view;
    this.columnsRoot.hidden = view !== 'columns';
    this.lanesRoot.hidden = view !== 'lanes';
    const toggle = byId('view-toggle');
    toggle.setAttribute('aria-pressed', String(view === 'lanes'));
    toggle.textContent = view === 'lanes' ? 'Columns by state' : 'Lanes by session';
    document.documentElement.dataset.view = view;
    // The hidden view keeps no elements: a large rail's DOM stays one view's worth.
    if (view === 'lanes') this.columns.clear();
    else this.lanes.clear();
    if (this.board) this.renderBoard();
  }

  toggleView(): void {
    this.setView(this.view === 'columns' ? 'lanes' : 'columns');
  }

  /** Escape: close the details first, then clear the filter. */
  escape(): void {
    if (document.querySelector('dialog[open]')) return;
    if (document.activeElement === this.search) {
      if (this.search.value) {
        this.search.value = '';
        this.applyFilter();
      } else this.search.blur();
      return;
    }
    if (this.selected !== null) {
      const id = this.selected;
      this.select(null, false);
      this.columns.reveal(id, true);
    }
  }

  focusBoard(): void {
    if (this.view === 'columns') this.columnsRoot.querySelector<HTMLElement>('.col-body[tabindex="0"]')?.focus();
    else this.lanesRoot.querySelector<HTMLElement>('button')?.focus();
  }
}
