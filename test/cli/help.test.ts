import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLAGS, SUBCOMMANDS, VALUE_OPTIONS } from '../../src/cli/args.js';
import { COMMAND_HELP, GLOBAL_OPTIONS } from '../../src/cli/help-texts.js';
import { styleFor } from '../../src/cli/help.js';
import { CLI, ROOT, tempDir } from '../helpers/cli.js';

const home = tempDir('acp-broker-help-');
const env = { ...process.env, ACP_BROKER_HOME: home };
delete env.NO_COLOR;

function cli(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...env, ...extraEnv } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const TRUST_HELP = `usage: acp-broker trust [DIR]

let a project policy's allow rules count, for its content as it is now

Trusts DIR/.acp-broker/policy.yaml (DIR: this directory); any change untrusts it again.

Options:
  --help  show this help (also -h)

Examples:
  acp-broker trust .

Exit codes: 0 trusted; 1 no such file or an invalid policy
`;

describe('help', () => {
  it('`help CMD`, `CMD --help` and `CMD -h` print the command\'s help on stdout, exit 0', () => {
    for (const args of [['help', 'trust'], ['trust', '--help'], ['trust', '-h']]) {
      expect(cli(args)).toEqual({ code: 0, stdout: TRUST_HELP, stderr: '' });
    }
  });

  it('every subcommand has its own help: usage, options, examples, exit codes', () => {
    expect(Object.keys(COMMAND_HELP).sort()).toEqual([...SUBCOMMANDS].sort());
    for (const command of SUBCOMMANDS) {
      const r = cli(['help', command]);
      expect(r.code, command).toBe(0);
      expect(r.stdout, command).toMatch(new RegExp(`^usage: acp-broker ${command === 'run' ? '\\[run\\]' : command}`));
      expect(r.stdout, command).toMatch(/\nExamples:\n {2}[^\n]*acp-broker [^\n]+\n[\s\S]*\nExit codes: \S/);
    }
  });

  it('every option the parser knows is documented in some command\'s help', () => {
    const documented = new Set([...GLOBAL_OPTIONS, ...Object.values(COMMAND_HELP).flatMap((h) => h.options)].map((o) => o.flag));
    expect([...VALUE_OPTIONS, ...FLAGS].filter((o) => !documented.has(o))).toEqual([]);
  });

  it('the policy commands\' help says what lint warns about and how `extends` takes part', () => {
    const validate = cli(['validate', '--help']).stdout;
    expect(validate).toContain('\nLint warnings (exit 0), each with a fix: path patterns that never match (`**.env`, `$workspace/x`\n');
    expect(validate).toContain('A file is checked with the policies it `extends`;\nan error in any of them is an error.');
    expect(validate).toContain('\nExit codes: 0 no error (warnings allowed); 1 an error\n');
    const check = cli(['check', '--help']).stdout;
    expect(check).toContain('\nA policy is loaded with the policies it `extends`; their rules are named with a prefix (default:destructive).\n');
    expect(check).toContain('\ncheck does not lint: `acp-broker validate` warns about rules that can never match.\n');
    expect(cli(['policy', '--help']).stdout).toContain('under each file\nthe policies it `extends` with theirs, and whether the bundled default is in force;');
  });

  it('exec\'s help lists its options and every exit code', () => {
    const r = cli(['exec', '--help']);
    for (const option of ['--output-format FORMAT', '--report FILE', '--fail-on-deny', '--prompt TEXT', '--max-duration SECONDS', '--mcp-config FILE', '--prompt-file FILE', '--cwd DIR']) {
      expect(r.stdout).toContain(`\n  ${option} `);
    }
    expect(r.stdout).toContain('Exit codes: 0 the turn ended normally; 1 the turn failed; 2 usage or an invalid policy; 4 denied (with --fail-on-deny); 124 timed out (--max-duration); 127 the agent could not start\n');
  });

  it('`--help`, `-h` and `help` print the overview on stdout, exit 0', () => {
    const overview = cli(['--help']);
    expect(overview.code).toBe(0);
    expect(overview.stderr).toBe('');
    expect(overview.stdout.split('\n')[0]).toBe('acp-broker — decides what AI coding agents may do (Agent Client Protocol middleware)');
    for (const command of SUBCOMMANDS) expect(overview.stdout).toMatch(new RegExp(`\n {2}${command} +${COMMAND_HELP[command].summary.replace(/[().*"]/g, '.')}\n`));
    expect(cli(['-h'])).toEqual(overview);
    expect(cli(['help'])).toEqual(overview);
  });

  it('-V and --version print the package version', () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
    expect(cli(['-V'])).toEqual({ code: 0, stdout: `acp-broker ${version}\n`, stderr: '' });
    expect(cli(['--version'])).toEqual({ code: 0, stdout: `acp-broker ${version}\n`, stderr: '' });
  });

  it('a usage mistake: one line, then the command\'s synopsis, on stderr; exit 2', () => {
    expect(cli(['help', 'nosuch'])).toEqual({ code: 2, stdout: '', stderr: 'acp-broker: help: no command `nosuch`\nusage: acp-broker help [COMMAND]\n(`acp-broker help help` shows its options and examples)\n' });
    expect(cli(['trust', '--bogus'])).toEqual({ code: 2, stdout: '', stderr: 'acp-broker: unknown option --bogus\nusage: acp-broker trust [DIR]\n(`acp-broker help trust` shows its options and examples)\n' });
  });
});

describe('colour: on a terminal only, never with NO_COLOR', () => {
  it('styleFor', () => {
    expect(styleFor({ isTTY: true }, {}).heading('Options:')).toBe('\u001b[1mOptions:\u001b[22m');
    expect(styleFor({ isTTY: true }, { NO_COLOR: '1' }).heading('Options:')).toBe('Options:');
    expect(styleFor({ isTTY: true }, { NO_COLOR: '' }).heading('Options:')).toBe('\u001b[1mOptions:\u001b[22m');
    expect(styleFor({ isTTY: false }, {}).heading('Options:')).toBe('Options:');
  });

  it('the built CLI under a real pseudo-terminal (script(1)), with and without NO_COLOR', () => {
    const underPty = (extra: string) => spawnSync('script', ['-qec', `${extra} ${process.execPath} ${CLI} help trust`, '/dev/null'], { encoding: 'utf8', env }).stdout;
    expect(underPty('')).toContain('\u001b[1mOptions:\u001b[22m');
    expect(underPty('NO_COLOR=1')).not.toContain('\u001b[');
    expect(cli(['help', 'trust']).stdout).not.toContain('\u001b[');
  });
});

describe('completion', () => {
  const script = join(home, 'acp-broker.bash');
  writeFileSync(script, cli(['completion', 'bash']).stdout);
  /** Runs the completion function under real bash for `words`, the cursor on the last word. */
  const complete = (words: string[], cwd = ROOT) => spawnSync('bash', ['-c', `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _acp_broker; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: 'utf8', cwd }).stdout.trim().split('\n');

  it('bash: `source <(acp-broker completion bash)` registers the function', () => {
    const r = spawnSync('bash', ['-c', `acp-broker() { ${process.execPath} ${CLI} "$@"; }; source <(acp-broker completion bash); complete -p acp-broker`], { encoding: 'utf8', env });
    expect([r.status, r.stdout, r.stderr]).toEqual([0, 'complete -F _acp_broker acp-broker\n', '']);
  });

  it('bash: subcommands, their options and actions, option values, files', () => {
    expect(complete(['acp-broker', ''])).toEqual([...SUBCOMMANDS]);
    expect(complete(['acp-broker', 'c'])).toEqual(['check', 'completion']);
    expect(complete(['acp-broker', 'check', '--k'])).toEqual(['--kind']);
    expect(complete(['acp-broker', 'check', '--kind', ''])).toEqual(['execute', 'read', 'edit', 'delete', 'move', 'fetch']);
    expect(complete(['acp-broker', 'check', '--agent', 'c'])).toEqual(['claude', 'codex']);
    expect(complete(['acp-broker', 'grants', ''])).toEqual(['list', 'revoke', 'clear']);
    expect(complete(['acp-broker', 'policy', ''])).toEqual(['show']);
    expect(complete(['acp-broker', 'help', 'tr'])).toEqual(['trust']);
    expect(complete(['acp-broker', 'validate', '--policy', 'policies/ci'])).toEqual(['policies/ci-strict.yaml']);
    expect(complete(['acp-broker', 'init', '--project', 'polic'])).toEqual(['policies']);
  });

  it('zsh: the script is valid zsh and registers its function', () => {
    const file = join(home, '_acp-broker');
    writeFileSync(file, cli(['completion', 'zsh']).stdout);
    expect(spawnSync('zsh', ['-n', file]).status).toBe(0);
    const r = spawnSync('zsh', ['-fc', `autoload -Uz compinit && compinit -u -d ${home}/zcompdump; source ${file}; print -r -- $_comps[acp-broker]`], { encoding: 'utf8' });
    expect(r.stdout).toBe('_acp_broker\n');
  });

  it('zsh: completing in a real interactive zsh (zpty) fills in subcommands, options and actions', () => {
    const file = join(home, '_acp-broker.zsh');
    writeFileSync(file, cli(['completion', 'zsh']).stdout);
    const driver = join(home, 'drive.zsh');
    // Each line is typed with a TAB, then run: a stub acp-broker prints the words it got.
    const typed = ['acp-broker che', 'acp-broker check --ki', 'acp-broker grants re', 'acp-broker policy '];
    writeFileSync(driver, [
      'zmodload zsh/zpty',
      "zpty -b z 'zsh -f -i'",
      `zpty -w z 'PS1=""; autoload -Uz compinit; compinit -u -d ${home}/zcd-pty; source ${file}; setopt nobeep; acp-broker() { print -r -- "ARGS<$*>"; }'`,
      ...typed.flatMap((line) => [`zpty -w -n z $'${line}\\t'`, 'sleep 1', "zpty -w -n z $'\\n'"]),
      'sleep 1',
      'all=""',
      'while zpty -r -t z chunk; do all+=$chunk; done',
      'zpty -d z',
      'print -r -- "$all"',
    ].join('\n'));
    const out = spawnSync('zsh', ['-f', driver], { encoding: 'utf8', timeout: 30_000 }).stdout.replace(/\r/g, '');
    expect([...out.matchAll(/ARGS<([^>$]*)>/g)].map((m) => m[1])).toEqual(['check', 'check --kind', 'grants revoke', 'policy show']);
  }, 40_000);

  // fish comes from Debian (.ci/run installs it, as bash and zsh).
  it('fish: the script is valid fish', () => {
    const file = join(home, 'acp-broker.fish');
    writeFileSync(file, cli(['completion', 'fish']).stdout);
    expect(spawnSync('fish', ['--no-execute', file]).status).toBe(0);
  });

  it('fish: one `complete` line per subcommand and option', () => {
    const lines = cli(['completion', 'fish']).stdout.trim().split('\n').filter((l) => !l.startsWith('#'));
    expect(lines.every((l) => l.startsWith('complete -c acp-broker '))).toBe(true);
    expect(lines).toContain("complete -c acp-broker -n '__fish_seen_subcommand_from check' -l kind -x -a 'execute read edit delete move fetch' -d 'the kind of call (default execute after --)'");
    expect(lines).toContain("complete -c acp-broker -n '__fish_seen_subcommand_from validate' -l policy -r -F -d 'a policy file (repeatable; they combine, strictest wins); default the user policy, else the bundled default'");
  });

  it('an unknown shell is a usage mistake', () => {
    expect(cli(['completion', 'tcsh'])).toMatchObject({ code: 2, stdout: '' });
    expect(cli(['completion', 'tcsh']).stderr.split('\n')[0]).toBe('acp-broker: completion: no script for `tcsh` (bash, zsh or fish)');
  });
});
