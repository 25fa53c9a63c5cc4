// Page shortcuts. They never fire while typing in a field, except Escape, which leaves it.

export interface Shortcuts {
  focusSearch(): void;
  escape(): void;
  toggleView(): void;
  toggleTheme(): void;
  openFiles(): void;
  paste(): void;
  reload(): void;
  help(): void;
  focusBoard(): void;
}

export const SHORTCUT_HELP: [string, string][] = [
  ['/', 'filter the claims'],
  ['Esc', 'clear the filter, close the details'],
  ['↑ ↓ ← →', 'move between cards and columns'],
  ['Enter', 'show the card’s details'],
  ['b', 'go to the board'],
  ['v', 'columns by state ↔ lanes by session'],
  ['t', 'theme: auto, dark, light'],
  ['o', 'open files'],
  ['p', 'paste text'],
  ['r', 'reload from the URL'],
  ['?', 'this help'],
];

/** The shortcuts that open or paste local files; a snapshot has none. */
export const LOCAL_INPUT_KEYS = ['o', 'p'];

function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.matches('input, textarea, select');
}

export function installShortcuts(s: Shortcuts): void {
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === 'Escape') {
      s.escape();
      return;
    }
    if (typing(e.target) || document.querySelector('dialog[open]')) return;
    const actions: Record<string, () => void> = {
      '/': s.focusSearch,
      v: s.toggleView,
      t: s.toggleTheme,
      o: s.openFiles,
      p: s.paste,
      r: s.reload,
      '?': s.help,
      b: s.focusBoard,
    };
    const action = actions[e.key];
    if (action) {
      e.preventDefault();
      action();
    }
  });
}
