import { describe, expect, it } from 'vitest';
import { EXEC_EXIT } from '../../../src/exec/events.js';
import { EXIT_PRECEDENCE, finalExitCode } from '../../../src/exec/output/exit-code.js';

// exec's exit code from the run core's own code, the refused count and --fail-on-deny.
describe('exec exit codes', () => {
  const code = (runExitCode: number, refusedCount: number, failOnDeny: boolean) => finalExitCode({ runExitCode, refusedCount, failOnDeny });

  it('0: the turn ended normally, nothing refused (or refusals without --fail-on-deny)', () => {
    expect(code(EXEC_EXIT.success, 0, true)).toBe(0);
    expect(code(EXEC_EXIT.success, 3, false)).toBe(0);
  });

  it('4: --fail-on-deny and a request was denied or fell back', () => {
    expect(code(EXEC_EXIT.success, 1, true)).toBe(4);
  });

  it('1: the turn failed — stronger than a denial', () => {
    expect(code(EXEC_EXIT.turnFailed, 0, true)).toBe(1);
    expect(code(EXEC_EXIT.turnFailed, 2, true)).toBe(1);
  });

  it('124: timed out — stronger than a failed turn or a denial', () => {
    expect(code(EXEC_EXIT.timedOut, 5, true)).toBe(124);
  });

  it('127: the agent could not start', () => {
    expect(code(EXEC_EXIT.agentCannotStart, 1, true)).toBe(127);
  });

  it('2: usage or policy error — the strongest', () => {
    expect(code(EXEC_EXIT.usage, 1, true)).toBe(2);
  });

  it('a code the table does not know is kept, never turned into 4 or 0', () => {
    expect(code(3, 1, true)).toBe(3);
  });

  it('the precedence table is every EXEC_EXIT code once, strongest first', () => {
    expect(EXIT_PRECEDENCE).toEqual([2, 127, 124, 1, 4, 0]);
    expect([...EXIT_PRECEDENCE].sort()).toEqual(Object.values(EXEC_EXIT).sort());
  });
});
