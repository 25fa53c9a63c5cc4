// Text pasted by the user: into the paste dialog (choosing which file it is), or straight onto
// the page with Ctrl+V, where a text with an `owner:` line is taken as a claim file and anything
// else as claims.md.

import { byId } from '../dom.js';
import type { RawFile } from './classify.js';

export function guessPasted(text: string): RawFile {
  if (/^owner:\s*\S/m.test(text) && !/\|/.test(text.split('\n')[0] ?? '')) return { name: 'claims/pasted.yaml', text };
  return { name: 'claims.md', text };
}

export function installPaste(onFiles: (files: RawFile[]) => void): { open(): void } {
  const dialog = byId<HTMLDialogElement>('paste-dialog');
  const role = byId<HTMLSelectElement>('paste-role');
  const name = byId<HTMLInputElement>('paste-name');
  const nameLabel = byId('paste-name-label');
  const text = byId<HTMLTextAreaElement>('paste-text');
  role.addEventListener('change', () => {
    nameLabel.hidden = role.value !== 'claim-file';
  });
  byId('paste-cancel').addEventListener('click', () => dialog.close());
  byId('paste-ok').addEventListener('click', () => {
    const fileName = role.value === 'claim-file' ? `claims/${(name.value.trim() || 'pasted.yaml').replace(/[\\/]/g, '%2F')}` : role.value;
    dialog.close();
    onFiles([{ name: fileName, text: text.value }]);
  });
  document.addEventListener('paste', (e) => {
    const target = e.target;
    if (target instanceof HTMLElement && (target.matches('input, textarea, select') || target.isContentEditable)) return;
    if (document.querySelector('dialog[open]')) return;
    const pasted = e.clipboardData?.getData('text/plain') ?? '';
    if (!pasted.trim()) return;
    e.preventDefault();
    onFiles([guessPasted(pasted)]);
  });
  return {
    open() {
      dialog.showModal();
      text.focus();
    },
  };
}
