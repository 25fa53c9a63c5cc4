// The standalone snapshot (`rail board --html FILE`): one file whose data block
// `<script type="application/json" id="rail-data">` the CLI fills with `{"texts", "facts"}`, and
// whose wasm is inlined as base64 in `<script type="application/wasm+base64" id="rail-wasm">`.
// Data blocks are never executed, so the page's CSP hash covers only the app's own script.

import type { Facts, RailTexts } from '../core.js';
import { toRailInput } from '../input-shape.js';

/** The placeholder the CLI replaces. Written in two parts so this script never contains it and
 * a replace-all in the CLI cannot touch the code. */
const PLACEHOLDER = ['__RAIL', 'DATA__'].join('_');

export function isSnapshot(): boolean {
  return document.getElementById('rail-data') !== null;
}

export type SnapshotData = { kind: 'data'; texts: RailTexts; facts: Facts } | { kind: 'empty' };

export function snapshotData(): SnapshotData {
  const text = document.getElementById('rail-data')?.textContent?.trim() ?? '';
  if (text === '' || text === PLACEHOLDER) return { kind: 'empty' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`snapshot data is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  return { kind: 'data', ...toRailInput(parsed) };
}

/** The inlined wasm module's bytes. */
export function snapshotWasm(): Uint8Array {
  const base64 = document.getElementById('rail-wasm')?.textContent?.replace(/\s+/g, '') ?? '';
  if (!base64) throw new Error('this snapshot has no inlined wasm module');
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
