// The page inside a host (the VS Code board webview, or any page that frames it). The host sends
// `{type: 'rail', texts, facts}` with window.postMessage whenever the rail or the facts change;
// the page answers `{type: 'rail-ready', version: 1}` once it listens, and `{type: 'rail-reveal',
// file, line, column}` when the user asks to see a location. Contract: web-viewer/README.md.

import type { Facts, RailTexts } from '../core.js';
import { isRecord, toRailInput } from '../input-shape.js';

export const EMBED_PROTOCOL_VERSION = 1;

/** Loaded with `?embed=vscode`, `<meta name="rail-embed" content="vscode">` or a global
 * `window.RAIL_EMBED` the host sets before the page's script runs. */
export function embedMode(params: URLSearchParams): string | null {
  const fromQuery = params.get('embed');
  if (fromQuery) return fromQuery;
  const meta = document.querySelector<HTMLMetaElement>('meta[name="rail-embed"]');
  if (meta?.content) return meta.content;
  const global = (window as { RAIL_EMBED?: unknown }).RAIL_EMBED;
  return typeof global === 'string' && global ? global : null;
}

interface VsCodeApi {
  postMessage(message: unknown): void;
}

let vscode: VsCodeApi | null | undefined;

/** VS Code allows acquireVsCodeApi() once per page; keep what it returned. */
function hostChannel(): VsCodeApi | null {
  if (vscode !== undefined) return vscode;
  const acquire = (window as { acquireVsCodeApi?: () => VsCodeApi }).acquireVsCodeApi;
  vscode = null;
  if (typeof acquire === 'function') {
    try {
      vscode = acquire();
    } catch {
      vscode = null;
    }
  }
  return vscode;
}

/** Sends a message up to the host: VS Code's API when present, else the parent frame. */
export function postToHost(message: Record<string, unknown>): void {
  const api = hostChannel();
  if (api) api.postMessage(message);
  else if (window.parent !== window) window.parent.postMessage(message, '*');
}

export interface EmbedData {
  texts: RailTexts;
  facts: Facts;
  source: string | null;
}

/** Is this message from the page's host? The parent frame when there is one; VS Code deletes
 * `window.parent` inside webviews and posts from the webview's own origin, so without a parent
 * the origin decides. This window's own messages count too. */
function fromHost(event: MessageEvent<unknown>): boolean {
  if (event.source === window || event.source === null) return true;
  const parent = (window as { parent?: Window }).parent;
  if (parent !== undefined && parent !== window) return event.source === parent;
  return event.origin === window.origin;
}

/** Listens for the host's data. Only messages from the host (see `fromHost`) are read; anything
 * else, or anything of the wrong shape, is ignored or reported, never evaluated. */
export function listenForHost(onData: (data: EmbedData) => void, onError: (message: string) => void): void {
  window.addEventListener('message', (event: MessageEvent<unknown>) => {
    if (!fromHost(event)) return;
    const data = event.data;
    if (!isRecord(data) || data.type !== 'rail') return;
    try {
      const input = toRailInput(data);
      onData({ ...input, source: typeof data.source === 'string' ? data.source : null });
    } catch (e) {
      onError(`host message: ${e instanceof Error ? e.message : String(e)}`);
    }
  });
  postToHost({ type: 'rail-ready', version: EMBED_PROTOCOL_VERSION });
}
