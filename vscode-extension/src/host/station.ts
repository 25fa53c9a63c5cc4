// Close Station, the dialogue: ask `rail worktree remove` (core decides), show its refusal, and
// offer to force it only where core says force would do, and only after a modal confirmation
// that says what is lost. Nothing is forced without that yes.
//
// No `vscode` import: the command (commands.ts) passes the dialogs in, so the unit tests drive
// the whole exchange against the real binary with scripted answers.

import type { Blocker } from './core';
import type { Close } from './native';

/** The two questions the exchange may ask. */
export interface CloseDialogs {
  /** Shows the refusal. `forceable`: offer "Force Close…"; resolves true when it was picked. */
  refused(message: string, forceable: boolean): Promise<boolean>;
  /** The modal confirmation of a forced close; true only on an explicit yes. */
  confirmForce(question: string, detail: string): Promise<boolean>;
}

/** What runs `rail worktree remove` (NativeRail, bound to the session that closes it). */
export interface Closer {
  closeStation(station: string, force: boolean): Promise<Close>;
}

export interface CloseOptions {
  /** Force was already asked for (a hint's "Force Close…" button): go to the confirmation. */
  force?: boolean;
  /** The confirmation was already given (tests, keybindings): skip the modal. */
  confirmed?: boolean;
}

/** What forcing would throw away, in words, for the confirmation's detail. */
export function forceDetail(blockers: readonly Blocker[]): string {
  const lines: string[] = [];
  for (const b of blockers) {
    if (b.kind === 'dirty') {
      const shown = b.files.slice(0, 10).join('\n  ');
      const more = b.files.length > 10 ? `\n  … and ${b.files.length - 10} more` : '';
      lines.push(`Uncommitted changes in ${b.files.length} file${b.files.length === 1 ? '' : 's'} will be deleted:\n  ${shown}${more}`);
    } else if (b.kind === 'dirty-unknown') {
      lines.push('Rail could not tell whether it has uncommitted changes; any it has will be deleted.');
    } else if (b.kind === 'unmerged') {
      lines.push(`${b.commits} commit${b.commits === 1 ? ' is' : 's are'} not in ${b.base}: the branch is kept, with them.`);
    } else if (b.kind === 'no-base') {
      lines.push('Rail cannot tell whether its commits are merged: the branch is kept.');
    }
  }
  lines.push('Its claims are released. This is recorded in the log.');
  return lines.join('\n\n');
}

/**
 * Closes `station`: without force first. On a refusal core says force would override, offers
 * "Force Close…" (skipped with `opts.force`: the person already picked it) and forces only after
 * the modal yes; any other refusal is only shown. Returns the CLI's last answer.
 */
export async function closeStation(cli: Closer, station: string, dialogs: CloseDialogs, opts: CloseOptions = {}): Promise<Close> {
  const first = await cli.closeStation(station, false);
  if (first.ok) return first;
  if (!first.refusal.forceable) {
    await dialogs.refused(first.message, false);
    return first;
  }
  if (!opts.force && !(await dialogs.refused(first.message, true))) return first;
  if (!opts.confirmed) {
    const yes = await dialogs.confirmForce(`Force close the station ${station}?`, forceDetail(first.refusal.blockers));
    if (!yes) return first;
  }
  return cli.closeStation(station, true);
}
