// Drag-and-drop anywhere on the page, with an overlay while files are over it.

import { byId } from '../dom.js';
import type { RawFile } from './classify.js';
import { readDrop } from './files.js';

export function installDrop(onFiles: (files: RawFile[]) => void, onError: (message: string) => void): void {
  const overlay = byId('drop-overlay');
  let depth = 0;
  const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes('Files');
  document.addEventListener('dragenter', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth++;
    overlay.hidden = false;
  });
  document.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
  });
  document.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) overlay.hidden = true;
  });
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    depth = 0;
    overlay.hidden = true;
    if (!e.dataTransfer) return;
    readDrop(e.dataTransfer).then(
      (files) =>
        files.length ? onFiles(files) : onError('Nothing to show: drop claims.md, claim files (.yaml), claims.log or rail.yaml.'),
      (err: unknown) => onError(err instanceof Error ? err.message : String(err)),
    );
  });
}
