// The recent log (newest first, as core returns it) and the released claim files.

import type { LogEntry } from '../core.js';
import { h } from '../dom.js';
import { localTime, type ViewContext } from './context.js';

export function renderLog(root: HTMLElement, ctx: ViewContext): void {
  root.replaceChildren();
  const { log, released } = ctx.board;
  if (log.length === 0) root.append(h('p', { class: 'muted' }, 'No log entries (open claims.log to see them).'));
  else
    root.append(
      h(
        'table',
        { class: 'log' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { attrs: { scope: 'col' } }, 'time'),
            h('th', { attrs: { scope: 'col' } }, 'event'),
            h('th', { attrs: { scope: 'col' } }, 'task'),
            h('th', { attrs: { scope: 'col' } }, 'session'),
            h('th', { attrs: { scope: 'col' } }, 'details'),
          ),
        ),
        h(
          'tbody',
          {},
          ...log.map((e: LogEntry) =>
            h(
              'tr',
              { class: `ev-${e.event}` },
              h('td', {}, h('time', { attrs: { datetime: e.time }, title: e.time }, localTime(e.time))),
              h('td', {}, h('span', { class: 'event' }, e.event)),
              h('td', {}, e.task ?? '—'),
              h('td', {}, e.session ?? '—'),
              h(
                'td',
                { class: 'details' },
                Object.entries(e.details)
                  .map(([k, v]) => `${k}: ${v}`)
                  .join(' · '),
              ),
            ),
          ),
        ),
      ),
    );
  if (released.length) {
    root.append(
      h('h3', {}, `Released (${released.length})`),
      h(
        'ul',
        { class: 'plain released' },
        ...released
          .slice(0, 100)
          .map((r) =>
            h(
              'li',
              {},
              h('strong', {}, r.task ?? '(no task)'),
              ` · ${r.session} · released ${localTime(r.released_at)}`,
              r.touched.length ? h('div', { class: 'muted' }, `touched ${r.touched.join(', ')}`) : null,
            ),
          ),
      ),
    );
  }
}
