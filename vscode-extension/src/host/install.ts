// "Rail: Install CLI for Terminals and Agents": puts the extension's `rail` where a terminal,
// an agent's hooks and git hooks find it. No `vscode` import: the unit tests drive it.
//
// A copy, not a symlink: the extension's folder is named after its version and goes away when it
// updates, which would leave a symlink dangling; a copy keeps working (and the command, run
// again, brings it up to date). Written next to the target and renamed over it, so a terminal
// never runs half a binary.

import * as fs from 'node:fs';
import * as path from 'node:path';

import { binaryName } from './native';

export interface InstallPlace {
  dir: string;
  file: string;
}

/** Where the CLI goes: `~/.local/bin` on Linux and macOS, `%LOCALAPPDATA%\Programs\Rail` on Windows. */
export function installPlace(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, home: string): InstallPlace {
  const join = platform === 'win32' ? path.win32.join : path.posix.join;
  const dir =
    platform === 'win32' ? join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'Programs', 'Rail') : join(home, '.local', 'bin');
  return { dir, file: join(dir, binaryName(platform)) };
}

/** Is `dir` one of PATH's entries? (Windows: `Path`, `;`, case-insensitive.) */
export function onPath(dir: string, platform: NodeJS.Platform, env: NodeJS.ProcessEnv): boolean {
  const value = platform === 'win32' ? (env.Path ?? env.PATH ?? '') : (env.PATH ?? '');
  const sep = platform === 'win32' ? ';' : ':';
  const norm = (p: string): string => {
    const trimmed = p.replace(/[\\/]+$/, '');
    return platform === 'win32' ? trimmed.toLowerCase().replace(/\//g, '\\') : trimmed;
  };
  return value.split(sep).some((entry) => entry !== '' && norm(entry) === norm(dir));
}

/** Exactly what to do so that `dir` is on PATH in new terminals. */
export function pathAdvice(dir: string, platform: NodeJS.Platform): string {
  if (platform === 'win32') {
    return (
      `${dir} is not on your PATH. Add it for your user in PowerShell, then open a new terminal:\n` +
      `[Environment]::SetEnvironmentVariable('Path', [Environment]::GetEnvironmentVariable('Path', 'User') + ';${dir}', 'User')`
    );
  }
  return (
    `${dir} is not on your PATH. Add this line to ~/.profile (or your shell's rc file), then open a new terminal:\n` +
    `export PATH="${dir}:$PATH"`
  );
}

export type InstallOutcome =
  /** Copied (or replaced an older copy of ours). */
  | { kind: 'installed'; file: string; replaced: boolean }
  /** The same bytes are there already. */
  | { kind: 'current'; file: string }
  /** Something else is there: not touched without `replace`. */
  | { kind: 'occupied'; file: string };

function sameBytes(a: string, b: string): boolean {
  try {
    const sa = fs.statSync(a);
    const sb = fs.statSync(b);
    return sa.size === sb.size && fs.readFileSync(a).equals(fs.readFileSync(b));
  } catch {
    return false;
  }
}

/**
 * Copies `source` to `place.file`. A different file already there is left alone unless
 * `replace` (the command asks first): nothing the user put there is lost without saying so.
 */
export function installCli(source: string, place: InstallPlace, replace: boolean): InstallOutcome {
  const exists = fs.existsSync(place.file);
  if (exists && sameBytes(source, place.file)) return { kind: 'current', file: place.file };
  if (exists && !replace) return { kind: 'occupied', file: place.file };
  fs.mkdirSync(place.dir, { recursive: true });
  const tmp = path.join(place.dir, `.${path.basename(place.file)}.rail-install-${process.pid}`);
  try {
    fs.copyFileSync(source, tmp);
    fs.chmodSync(tmp, 0o755);
    fs.renameSync(tmp, place.file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  return { kind: 'installed', file: place.file, replaced: exists };
}
