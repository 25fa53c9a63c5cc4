// Bootstrap: decide where the rail comes from (a snapshot's data block, a host's postMessage,
// `?src=` URLs, or the reader's files), load rail-core, and hand the data to the app.
//
//   standalone snapshot  <script id="rail-data"> present       facts fixed, wasm inlined
//   embedded (VS Code)   ?embed=… / <meta name="rail-embed">     facts from the host
//   URL                  ?src=URL [&yaml=URL…] [&log=URL] [&config=URL] [&reload=S] [&now=T]
//   local                files, folder, drag-and-drop, paste, the example

import { App, type Loaded } from './app.js';
import { loadCore, type Facts, type WasmSource } from './core.js';
import { byId, fill, h } from './dom.js';
import { browserFacts } from './facts.js';
import { installShortcuts, LOCAL_INPUT_KEYS, SHORTCUT_HELP } from './keyboard.js';
import { fileList, mergeFiles, type RawFile } from './sources/classify.js';
import { installDrop } from './sources/drop.js';
import { embedMode, listenForHost, postToHost } from './sources/embed.js';
import { exampleRail } from './sources/example.js';
import { readInput } from './sources/files.js';
import { installPaste } from './sources/paste.js';
import { isSnapshot, snapshotData, snapshotWasm } from './sources/snapshot.js';
import { describe, fetchRail, urlSources, type UrlSources } from './sources/url.js';
import { initTheme } from './theme.js';

performance.mark('rail:start');
const params = new URLSearchParams(location.search);
const fixedNow = params.get('now');
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The wasm next to this script, unless the host points elsewhere with <meta name="rail-wasm">. */
function wasmSource(): WasmSource {
  if (isSnapshot()) return { kind: 'bytes', bytes: snapshotWasm() };
  const meta = document.querySelector<HTMLMetaElement>('meta[name="rail-wasm"]')?.content;
  return { kind: 'url', url: new URL(meta || 'rail_wasm_bg.wasm', meta ? location.href : import.meta.url) };
}

function setMode(text: string): void {
  byId('mode').textContent = text;
  document.documentElement.dataset.mode = text.split(' ')[0] ?? text;
}

async function main(): Promise<void> {
  const toggleTheme = initTheme(params.get('theme'), byId('theme-toggle'));
  const embed = embedMode(params);
  // A snapshot is one fixed rail, written by `rail board --html`: it offers no way to open or
  // paste other files (buttons, shortcuts, drop, Ctrl+V), which read as if it could.
  const snapshot = isSnapshot();
  document.documentElement.classList.toggle('snapshot', snapshot);
  const app = new App({
    initialQuery: params.get('q') ?? '',
    reveal: embed ? (file, line, column) => postToHost({ type: 'rail-reveal', file, line, column }) : null,
  });
  if (params.get('view') === 'lanes') app.setView('lanes');
  const shortcuts = SHORTCUT_HELP.filter(([key]) => !(snapshot && LOCAL_INPUT_KEYS.includes(key)));
  fill(byId('help-list'), ...shortcuts.flatMap(([key, what]) => [h('dt', {}, h('kbd', {}, key)), h('dd', {}, what)]));

  try {
    await loadCore(wasmSource());
    performance.mark('rail:core');
  } catch (e) {
    app.showError(`rail-core (WebAssembly) could not start: ${message(e)}`);
    return;
  }

  // Local files merge into the local files already shown; they replace a rail that came from
  // elsewhere (URL, host, snapshot, example), and stop a URL's auto-reload from coming back.
  let origin: 'none' | 'local' | 'url' | 'other' = 'none';
  let urls: UrlSources | null = null;
  const loadLocal = (files: RawFile[]) => {
    const { texts, ignored } = mergeFiles(origin === 'local' ? (app.texts ?? {}) : {}, files);
    origin = 'local';
    app.load({
      texts,
      facts: browserFacts(fixedNow),
      source: fileList(texts).join(', '),
      clock: fixedNow ? 'fixed' : 'live',
      removable: true,
    });
    if (ignored.length) app.showError(`Not rail files, ignored: ${ignored.join(', ')}`);
  };

  const fileInput = byId<HTMLInputElement>('file-input');
  const folderInput = byId<HTMLInputElement>('folder-input');
  for (const input of snapshot ? [] : [fileInput, folderInput]) {
    input.addEventListener('change', () => {
      if (!input.files?.length) return;
      readInput(input.files).then(
        (files) =>
          files.length ? loadLocal(files) : app.showError('No rail files there (claims.md, claims/*.yaml, claims.log, rail.yaml).'),
        (e: unknown) => app.showError(message(e)),
      );
      input.value = '';
    });
  }
  const paste = snapshot ? null : installPaste((files) => loadLocal(files));
  if (!snapshot) {
    byId('open-files').addEventListener('click', () => fileInput.click());
    byId('open-folder').addEventListener('click', () => folderInput.click());
    byId('paste').addEventListener('click', () => paste?.open());
    installDrop(loadLocal, (m) => app.showError(m));
  }
  byId('example').addEventListener('click', () => {
    origin = 'other';
    app.load({ texts: exampleRail(new Date()), facts: browserFacts(null), source: 'example rail', clock: 'live', removable: false });
  });
  byId('view-toggle').addEventListener('click', () => app.toggleView());
  const helpDialog = byId<HTMLDialogElement>('help-dialog');
  byId('help').addEventListener('click', () => helpDialog.showModal());
  byId('help-close').addEventListener('click', () => helpDialog.close());

  const reloadUrls = async () => {
    if (!urls || origin !== 'url') return;
    try {
      const texts = await fetchRail(urls);
      performance.mark('rail:fetched');
      app.load({ texts, facts: browserFacts(fixedNow), source: describe(urls), clock: fixedNow ? 'fixed' : 'live', removable: false });
    } catch (e) {
      app.showError(message(e));
    }
  };

  installShortcuts({
    focusSearch: () => byId('search').focus(),
    escape: () => app.escape(),
    toggleView: () => app.toggleView(),
    toggleTheme,
    openFiles: () => {
      if (!snapshot) fileInput.click();
    },
    paste: () => paste?.open(),
    reload: () => void reloadUrls(),
    help: () => helpDialog.showModal(),
    focusBoard: () => app.focusBoard(),
  });

  // The clock moves leases on: evaluate again every 30 s while the page is visible.
  setInterval(() => {
    if (app.clock === 'live' && document.visibilityState === 'visible') {
      const facts: Facts = browserFacts(null);
      app.reevaluate(facts);
    }
  }, 30_000);

  // Every input is wired: tests and hosts may now drop, pick, paste or post.
  document.documentElement.dataset.ready = 'true';

  if (snapshot) {
    setMode('snapshot (standalone file)');
    const data = snapshotData();
    if (data.kind === 'empty') {
      byId('empty').hidden = false;
      app.showError('This snapshot holds no data: the page was opened before `rail board --html` filled it.');
      return;
    }
    app.load({
      texts: data.texts,
      facts: data.facts,
      source: `snapshot of ${data.texts.claims?.path ?? 'the rail'} at ${data.facts.now}`,
      clock: 'fixed',
      removable: false,
    });
    return;
  }

  if (embed) {
    setMode(`embedded (${embed})`);
    document.documentElement.classList.add('embedded');
    byId('waiting').hidden = false;
    listenForHost(
      (data) => {
        const loaded: Loaded = {
          texts: data.texts,
          facts: data.facts,
          source: data.source ?? fileList(data.texts).join(', '),
          clock: 'fixed',
          removable: false,
        };
        app.load(loaded);
      },
      (m) => app.showError(m),
    );
    return;
  }

  try {
    urls = urlSources(params);
  } catch (e) {
    app.showError(message(e));
  }
  if (urls) {
    origin = 'url';
    setMode('from URL');
    const reload = byId('reload');
    reload.hidden = false;
    reload.addEventListener('click', () => void reloadUrls());
    await reloadUrls();
    if (urls.reloadSecs) setInterval(() => document.visibilityState === 'visible' && void reloadUrls(), urls.reloadSecs * 1000);
    return;
  }

  setMode('local files');
  byId('empty').hidden = false;
}

main().catch((e: unknown) => {
  const banner = document.getElementById('banner');
  if (banner) {
    banner.hidden = false;
    banner.textContent = `The board failed to start: ${message(e)}`;
  }
});
