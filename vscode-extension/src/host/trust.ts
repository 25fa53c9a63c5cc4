// Restricted Mode: in a workspace VS Code does not trust, the extension reads the rail's files
// and shows the board, and runs no program — neither the `rail` binary nor git. A repository's
// own configuration can make git run programs (`core.fsmonitor` on `git diff`, `gpg.program` with
// `log.showSignature`), and a workspace's settings could point `rail.path` anywhere. The two
// places that start processes (git.ts, repo.ts for git; native.ts for rail) ask here first.
//
// No `vscode` import: ctx.ts sets it from `vscode.workspace.isTrusted` (and again when trust is
// granted); outside VS Code (unit and conformance tests) processes are allowed.

let allowed = true;

/** Whether this host may start processes (false in an untrusted workspace). */
export function processesAllowed(): boolean {
  return allowed;
}

export function allowProcesses(yes: boolean): void {
  allowed = yes;
}

/** Refused in Restricted Mode. */
export class RestrictedMode extends Error {
  constructor(what: string) {
    super(`${what} does not run in Restricted Mode: trust this workspace to let Rail run git and the rail CLI`);
  }
}
