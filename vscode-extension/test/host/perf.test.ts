// Measurements on a rail of 1,000 claims, inside the real extension host: activation, the first
// board, refreshes (read the files + git facts + core's board + the views told to redraw), the
// Board tree, decorations, and a claim end to end (command → `rail` child → refreshed board).
// Written to metrics.json beside the workspace, and by the e2e run to artifacts/vscode/. What is
// asserted is what the extension shows on a big rail, never how fast: figures are reported
// (bench/README.md), a timed assertion would only measure the machine it ran on.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';

import type { RailApi } from '../../src/api';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

function round(x: number): number {
  return Math.round(x * 10) / 10;
}

suite('Rail measurements (1,000 claims)', () => {
  test('activation, first board, refresh, tree, decorations', async () => {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '';
    const ext = vscode.extensions.getExtension<RailApi>('rail.rail-vscode');
    assert.ok(ext);
    const api = await ext.activate();
    await api.ready;
    const board = api.snapshot()?.board;
    assert.equal(board?.summary.claims, 1000);
    const { activationMs, firstBoardMs } = api.stats();

    const refreshes: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await api.refresh();
      refreshes.push(performance.now() - t);
    }
    const inside = api.stats().refreshMs.slice(-20);

    const trees: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const rows = await api.tree('board');
      trees.push(performance.now() - t);
      assert.ok(rows.length > 0);
    }

    // The Explorer asks for the visible files' decorations together; they go to core as one batch.
    const t = performance.now();
    await Promise.all(Array.from({ length: 50 }, (_, i) => api.decoration(vscode.Uri.file(path.join(folder, `src/mod${i}/file.ts`)))));
    const decorationsMs = performance.now() - t;
    const t1 = performance.now();
    await api.decoration(vscode.Uri.file(path.join(folder, 'src/mod999/alone.ts')));
    const decorationOneMs = performance.now() - t1;

    // One claim from the extension, end to end: the command, the `rail` child (lock, plan, write,
    // on the 1,000-claim rail), and the board read again and shown. spawnMs is the child alone.
    const claims: number[] = [];
    const afterWrite: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t2 = performance.now();
      const r = await vscode.commands.executeCommand<{ ok: boolean }>('rail.claimTask', { task: `perf-claim-${i}` });
      claims.push(performance.now() - t2);
      assert.equal(r?.ok, true, JSON.stringify(r));
      assert.ok(
        api.snapshot()?.board.claims.some((c) => c.task === `perf-claim-${i}`),
        'on the refreshed board',
      );
      afterWrite.push(api.stats().refreshMs.at(-1) ?? NaN); // the refresh that read the CLI's write
    }
    const spawns = api.stats().spawnMs.slice(-5);
    assert.equal(spawns.length, 5);

    const metrics = {
      claims: 1000,
      activationMs: round(activationMs),
      firstBoardMs: round(firstBoardMs ?? NaN),
      refreshMedianMs: round(median(refreshes)),
      refreshMaxMs: round(Math.max(...refreshes)),
      refreshInsideMedianMs: round(median(inside)),
      boardTreeFullyExpandedMedianMs: round(median(trees)),
      decorations50FilesOneBatchMs: round(decorationsMs),
      decorationOneFileMs: round(decorationOneMs),
      refreshAfterWriteMedianMs: round(median(afterWrite)),
      claimEndToEndMedianMs: round(median(claims)),
      claimEndToEndMaxMs: round(Math.max(...claims)),
      railChildMedianMs: round(median(spawns)),
      loadAverage1m: round(os.loadavg()[0] ?? NaN),
    };
    fs.writeFileSync(path.join(path.dirname(folder), 'metrics.json'), JSON.stringify(metrics, null, 2));
    console.log(`rail metrics: ${JSON.stringify(metrics)}`);
  });
});
