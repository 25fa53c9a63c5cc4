// The counts core summarized, as buttons that narrow the board to what they count.

import type { Summary } from '../core.js';
import { h } from '../dom.js';

// `overlaps_unlisted` is no button: the conflicts panel says it (present only when not 0).
const ITEMS: { key: Exclude<keyof Summary, 'overlaps_unlisted'>; label: string; query: string | null }[] = [
  { key: 'claims', label: 'claims', query: null },
  { key: 'live', label: 'live', query: 'is:live' },
  { key: 'expiring', label: 'expiring', query: 'is:expiring' },
  { key: 'stale', label: 'stale', query: 'is:stale' },
  { key: 'blocked', label: 'blocked', query: 'is:blocked' },
  { key: 'conflicts', label: 'conflicts', query: 'is:conflict' },
  { key: 'errors', label: 'errors', query: null },
  { key: 'warnings', label: 'warnings', query: null },
];

export function renderSummary(root: HTMLElement, summary: Summary, onQuery: (query: string | null) => void): void {
  root.replaceChildren(
    ...ITEMS.map(({ key, label, query }) => {
      const value = summary[key];
      const cls = `stat stat-${key}${value > 0 ? ' nonzero' : ''}`;
      const content = [h('span', { class: 'stat-value' }, String(value)), h('span', { class: 'stat-label' }, label)];
      if (key === 'errors' || key === 'warnings') {
        return h('a', { class: cls, attrs: { href: '#diagnostics-panel' }, data: { stat: key } }, ...content);
      }
      return h(
        'button',
        {
          class: cls,
          attrs: { type: 'button' },
          data: { stat: key },
          title: query ? `Show ${query}` : 'Show all',
          on: { click: () => onQuery(query) },
        },
        ...content,
      );
    }),
  );
}
