import { EXEC_EXIT } from '../events.js';

export type ExecExitCode = (typeof EXEC_EXIT)[keyof typeof EXEC_EXIT];

/**
 * When several codes apply, the strongest wins. Every code above `denied` means the run itself did not
 * complete as asked, which has to be fixed before its decisions mean anything; `denied` means the
 * agent finished its turn but the policy refused something on the way (the report lists what).
 * Documented in docs/exec-json.md and the README.
 */
export const EXIT_PRECEDENCE: readonly ExecExitCode[] = [
  EXEC_EXIT.usage, EXEC_EXIT.agentCannotStart, EXEC_EXIT.timedOut, EXEC_EXIT.turnFailed, EXEC_EXIT.denied, EXEC_EXIT.success,
];

/**
 * `exec`'s exit code: the run core's own code, made `denied` by `--fail-on-deny` when a request was
 * refused or fell back and nothing stronger applies. A code the table does not know is kept as it is
 * (never turned into a success).
 */
export function finalExitCode(input: {
  readonly runExitCode: number;
  readonly refusedCount: number;
  readonly failOnDeny: boolean;
}): number {
  const applicable: number[] = [input.runExitCode];
  if (input.failOnDeny && input.refusedCount > 0) applicable.push(EXEC_EXIT.denied);
  const rank = (code: number) => {
    const at = (EXIT_PRECEDENCE as readonly number[]).indexOf(code);
    return at === -1 ? -1 : at; // unknown codes rank strongest: they are failures nobody modelled
  };
  return applicable.reduce((strongest, code) => (rank(code) < rank(strongest) ? code : strongest));
}
