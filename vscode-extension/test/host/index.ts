// The entry point VS Code runs inside its extension host (`extensionTestsPath`): mocha over the
// suites next to this file, results also written as JSON beside the workspace so the outer test
// (test/e2e) can print and check them. A workspace with a `.rail-perf` file runs the
// measurements instead of the functional suite.

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import Mocha from 'mocha';

interface Outcome {
  title: string;
  ok: boolean;
  error?: string;
  ms?: number;
}

export function run(): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '';
  const perf = fs.existsSync(path.join(folder, '.rail-perf'));
  const resultsFile = path.join(path.dirname(folder), `host-results-${perf ? 'perf' : 'suite'}.json`);
  const mocha = new Mocha({ ui: 'tdd', timeout: 120_000, color: false, reporter: 'spec' });
  mocha.addFile(path.join(__dirname, perf ? 'perf.test.js' : 'rail.test.js'));
  const outcomes: Outcome[] = [];
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      fs.writeFileSync(resultsFile, JSON.stringify({ failures, outcomes }, null, 2));
      if (failures > 0) reject(new Error(`${failures} tests failed`));
      else resolve();
    });
    runner.on('pass', (t) => outcomes.push({ title: t.fullTitle(), ok: true, ms: t.duration ?? 0 }));
    runner.on('fail', (t, err: Error) => outcomes.push({ title: t.fullTitle(), ok: false, error: err.stack ?? err.message }));
  });
}
