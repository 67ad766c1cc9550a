import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from './helpers.js';

// A statement of redirections alone runs no program in bash, but `$NULLCMD` in zsh (`cat` unless the
// environment says otherwise). Agents run their commands in the user's shell, zsh on many machines:
// such a line is unresolvable (deny rules still see its files). `$(< file)` alone is a read in both.

describe('redirections without a command', () => {
  it('runs $NULLCMD in real zsh (checked here), nothing in bash', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nullcmd-'));
    writeFileSync(join(dir, 'log.sh'), '#!/bin/sh\necho "$0 $*" >> ' + join(dir, 'ran') + '\n', { mode: 0o755 });
    writeFileSync(join(dir, 'ran'), '');
    execFileSync('zsh', ['-fc', `NULLCMD=${join(dir, 'log.sh')}; cd ${dir}; > out.txt </dev/null`]);
    expect(readFileSync(join(dir, 'ran'), 'utf8')).toContain('log.sh');
    // A process substitution is no `$(< file)`: zsh runs $READNULLCMD there too.
    writeFileSync(join(dir, 'ran'), '');
    writeFileSync(join(dir, 'in.txt'), 'x\n');
    execFileSync('zsh', ['-fc', `READNULLCMD=${join(dir, 'log.sh')}; cd ${dir}; cat <(< in.txt) >/dev/null`]);
    expect(readFileSync(join(dir, 'ran'), 'utf8')).toContain('log.sh');
    writeFileSync(join(dir, 'ran'), '');
    execFileSync('bash', ['-c', `NULLCMD=${join(dir, 'log.sh')}; cd ${dir}; > out.txt </dev/null`]);
    expect(readFileSync(join(dir, 'ran'), 'utf8')).toBe('');
  });

  it.each(['> out.txt', '2>/dev/null > out.txt', 'echo hi; >> log.txt', 'echo $(< .env 2>/dev/null)', '< in.txt', 'echo $(< .env; ls)', 'echo `< .env 2>&1`', 'echo $({ < .env; })', 'cat <(< .env)'])('%s is unresolvable, its files still reported', async (line) => {
    const analysis = await analyze(line);
    expect(analysis.unresolvable.join(' ')).toContain('$NULLCMD');
    expect(analysis.redirections.length).toBeGreaterThan(0);
  });

  it('`$(< file)` and `` `< file` `` alone are reads, and `: > file` runs the builtin: all resolved', async () => {
    for (const line of ['echo $(< .env)', 'echo `< .env`', 'echo "$(<.env)"']) {
      const read = await analyze(line);
      expect(read.unresolvable, line).toEqual([]);
      expect(read.redirections.map((r) => [r.access, r.path]), line).toEqual([['read', '/w/.env']]);
    }
    const truncate = await analyze(': > out.txt');
    expect(truncate.unresolvable).toEqual([]);
  });
});
