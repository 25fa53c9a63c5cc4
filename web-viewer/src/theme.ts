// Light and dark: the system's choice by default (prefers-color-scheme, or VS Code's theme when
// embedded), overridden by the toggle or `?theme=`. The choice is remembered where storage is
// allowed (not in every webview or file:// page, hence the try).

export type ThemeChoice = 'auto' | 'light' | 'dark';
const KEY = 'rail-board-theme';
const NEXT: Record<ThemeChoice, ThemeChoice> = { auto: 'dark', dark: 'light', light: 'auto' };

function stored(): ThemeChoice {
  try {
    const value = localStorage.getItem(KEY);
    return value === 'light' || value === 'dark' ? value : 'auto';
  } catch {
    return 'auto';
  }
}

function apply(choice: ThemeChoice, button: HTMLElement): void {
  if (choice === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
  button.textContent = `Theme: ${choice}`;
  button.setAttribute('aria-label', `Theme: ${choice} (t to change)`);
}

export function initTheme(param: string | null, button: HTMLElement): () => void {
  let choice: ThemeChoice = param === 'light' || param === 'dark' || param === 'auto' ? param : stored();
  apply(choice, button);
  const toggle = () => {
    choice = NEXT[choice];
    apply(choice, button);
    try {
      localStorage.setItem(KEY, choice);
    } catch {
      // Storage refused (sandboxed webview, file://): the choice lasts for this page.
    }
  };
  button.addEventListener('click', toggle);
  return toggle;
}
