// The extension's settings, read in one place. Values are passed to core as the user wrote them
// (durations stay text: core parses them, and says so when one is wrong).

import * as vscode from 'vscode';

export interface RailConfig {
  /** `rail.session` from the user's own settings, or empty: never a workspace's. */
  session: string;
  /** `rail.lease`: lease for claims made here, or empty for the rail's default. */
  lease: string;
  /** `rail.expiringThreshold`: overrides rail.yaml's `expiring` for this window, or empty. */
  expiringThreshold: string;
  /** `rail.railDirectory`: where claims.md lives, or empty to find it like the CLI. */
  railDirectory: string;
  editWarnings: boolean;
  /** `rail.sharedFetchInterval`: seconds between fetches of a shared rail; 0: only on request. */
  sharedFetchInterval: number;
  /** `rail.path`: the `rail` binary to run, or empty for the bundled one (else PATH). */
  path: string;
}

/**
 * A setting as the user's own settings have it, whatever a workspace says. Who acts must never
 * come from a repository: its `.vscode/settings.json` is anyone's to commit, and `rail.session:
 * alice` there made bob's editor act as alice — her files lost their warnings, and *Release*
 * listed her live claims as his own. So it is read from the user's settings alone
 * (`globalValue`); a workspace or folder value is never looked at.
 */
function ownSetting(c: vscode.WorkspaceConfiguration, key: string): string {
  const value = c.inspect<string>(key)?.globalValue;
  return typeof value === 'string' ? value.trim() : '';
}

export function readConfig(): RailConfig {
  const c = vscode.workspace.getConfiguration('rail');
  return {
    session: ownSetting(c, 'session'),
    lease: c.get<string>('lease', '').trim(),
    expiringThreshold: c.get<string>('expiringThreshold', '').trim(),
    railDirectory: c.get<string>('railDirectory', '').trim(),
    editWarnings: c.get<boolean>('editWarnings', true),
    sharedFetchInterval: Math.max(0, c.get<number>('sharedFetchInterval', 60)),
    path: c.get<string>('path', '').trim(),
  };
}
