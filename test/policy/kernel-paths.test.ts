import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractFacts } from '../../src/facts/extract.js';
import { lexicalOnly, resolveGlobPath, resolvePath } from '../../src/facts/paths.js';
import { realpathCanonicalizer, resolvePhysically } from '../../src/platform/canonicalize.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { loadPolicyText } from '../../src/policy/load.js';
import type { PolicySet } from '../../src/policy/types.js';
import type { ShellAnalyzer } from '../../src/shell/types.js';
import { shell } from '../helpers/harness.js';

/**
 * A real directory tree with symlinks:
 *   realhome/.ssh/            home reached as homelink → realhome
 *   realws/                   workspace reached as wslink → realws
 *   realws/link → outside/ssh         (absolute)
 *   realws/rel → ../outside/ssh       (relative to the link's directory)
 *   realws/chain1 → chain2 → link     (chained)
 *   realws/k → realhome/.ssh/authorized_keys   (dangling)
 *   realws/loop1 ⇄ loop2
 *   realetc/ reached as etclink
 */
let root: string;
const at = (...parts: string[]) => join(root, ...parts);

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'kernel-paths-')));
  for (const dir of ['realhome/.ssh', 'realws/src', 'realws/.git/hooks', 'outside/ssh', 'realetc']) mkdirSync(at(dir), { recursive: true });
  writeFileSync(at('realws/src/a.ts'), '');
  writeFileSync(at('realws/.env'), '');
  writeFileSync(at('realhome/.ssh/config'), '');
  symlinkSync(at('realhome'), at('homelink'));
  symlinkSync(at('realws'), at('wslink'));
  symlinkSync(at('realetc'), at('etclink'));
  symlinkSync(at('outside/ssh'), at('realws/link'));
  symlinkSync('../outside/ssh', at('realws/rel'));
  symlinkSync('link', at('realws/chain2'));
  symlinkSync('chain2', at('realws/chain1'));
  symlinkSync(at('realhome/.ssh/authorized_keys'), at('realws/k'));
  symlinkSync('loop2', at('realws/loop1'));
  symlinkSync('loop1', at('realws/loop2'));
  symlinkSync(at('realhome/.ssh'), at('realws/keys'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('physical resolution like the kernel', () => {
  it('resolves a symlink before a `..` after it', () => {
    expect(resolvePhysically(`${root}/realws/link/../x`)).toBe(at('outside/x'));
    expect(resolvePhysically(`${root}/wslink/link/../x`)).toBe(at('outside/x'));
    expect(resolvePhysically(`${root}/realws/link/../../realws/src/../.env`)).toBe(at('realws/.env'));
    expect(lexicalOnly(`${root}/realws/link/../x`)).toBe(at('realws/x'));
  });

  it('follows relative and chained links', () => {
    expect(resolvePhysically(at('realws/rel/id_rsa'))).toBe(at('outside/ssh/id_rsa'));
    expect(resolvePhysically(`${root}/realws/chain1/../y`)).toBe(at('outside/y'));
  });

  it('follows a dangling final link to where a write lands', () => {
    expect(resolvePhysically(at('realws/k'))).toBe(at('realhome/.ssh/authorized_keys'));
  });

  it('keeps a missing tail lexically', () => {
    expect(resolvePhysically(`${root}/realws/new/dir/../f`)).toBe(at('realws/new/f'));
    expect(resolvePhysically(at('wslink/new/f'))).toBe(at('realws/new/f'));
  });

  it('keeps the tail lexically from a file used as a directory (the kernel fails there: ENOTDIR)', () => {
    expect(resolvePhysically(at('realws/src/a.ts/x/../y'))).toBe(at('realws/src/a.ts/y'));
    expect(resolvePhysically(at('wslink/.env/link/z'))).toBe(at('realws/.env/link/z'));
  });

  it('fails closed on a loop', () => {
    expect(resolvePhysically(at('realws/loop1'))).toEqual({ unresolvable: expect.stringContaining('too many levels') });
    expect(resolvePhysically(at('realws/loop1/x'))).toEqual({ unresolvable: expect.any(String) });
  });

  it.runIf(process.platform === 'linux')('a /proc link (another process\'s view) is unresolvable', () => {
    expect(resolvePhysically('/proc/self/cwd/x')).toEqual({ unresolvable: expect.any(String) });
    expect(resolvePhysically('/dev/fd/1')).toEqual({ unresolvable: expect.any(String) });
    expect(resolvePhysically('/proc/cpuinfo')).toBe('/proc/cpuinfo');
  });

  it('resolves relative paths against the cwd before following links', () => {
    const canonicalize = realpathCanonicalizer();
    expect(resolvePath('link/../x', at('wslink'), at('homelink'), canonicalize)).toBe(at('outside/x'));
    expect(resolvePath('~/.ssh/id', '/', at('homelink'), canonicalize)).toBe(at('realhome/.ssh/id'));
  });

  it('a glob keeps its pattern and lists where its current matches really are', () => {
    const canonicalize = realpathCanonicalizer();
    expect(resolveGlobPath('[k]', at('wslink'), '/h', canonicalize)).toEqual({ pattern: `${at('realws')}/[k]`, expansions: [at('realhome/.ssh/authorized_keys')], expanded: true });
    expect(resolveGlobPath('.en[v]', at('wslink'), '/h', canonicalize)).toEqual({ pattern: `${at('realws')}/.en[v]`, expansions: [at('realws/.env')], expanded: true });
    expect(resolveGlobPath('*', at('wslink/src'), '/h', canonicalize)).toEqual({ pattern: `${at('realws/src')}/*`, expansions: [at('realws/src/a.ts')], expanded: true });
    expect(resolveGlobPath('*/../x', at('wslink'), '/h', canonicalize)).toEqual({ unresolvable: expect.any(String) });
  });
});

const POLICY = (etc: string) => `
version: 1
default: ask
rules:
  - id: secrets
    decision: deny
    match: { paths: ["~/.ssh/**", "**/.env"] }
  - id: system
    decision: deny
    match: { access: [write, delete], paths: ["${etc}/**", "**/.git/hooks/**"] }
  - id: workspace
    decision: allow
    match: { paths: ["\${workspace}/**"] }
  - id: echo
    decision: allow
    match: { command: ["echo"] }
`;

function policy(text: string): PolicySet {
  const loaded = loadPolicyText(text, 'p.yaml', 'user');
  if (!loaded.policy) throw new Error(JSON.stringify(loaded.diagnostics));
  return { files: [loaded.policy] };
}

/** `globTarget`: stands in for the shell analysis marking a redirect target as a glob (another module's work). */
async function decide(command: string, options: { globTarget?: string } = {}) {
  const canonicalize = realpathCanonicalizer();
  const home = at('homelink');
  const workspace = at('wslink');
  const real = await shell();
  const analyzer: ShellAnalyzer = options.globTarget === undefined ? real : {
    analyze: (line, context) => {
      const analysis = real.analyze(line, context);
      return { ...analysis, redirections: [{ path: `${workspace}/${options.globTarget}`, access: 'write', operator: '>>', glob: true }] };
    },
  };
  const facts = extractFacts({ toolCallId: 't', kind: 'execute', rawInput: { command } }, { workspace, home, agent: undefined, shell: analyzer, canonicalize, fileExists: () => false });
  return { facts, evaluation: evaluate(policy(POLICY(at('etclink'))), facts, { home, canonicalize }) };
}

async function decideEdit(path: string) {
  const canonicalize = realpathCanonicalizer();
  const home = at('homelink');
  const facts = extractFacts({ toolCallId: 't', kind: 'edit', rawInput: { file_path: path } }, { workspace: at('wslink'), home, agent: undefined, shell: await shell(), canonicalize, fileExists: () => false });
  return evaluate(policy(POLICY(at('etclink'))), facts, { home, canonicalize });
}

describe('shell redirects through symlinks, with a symlinked home and workspace', () => {
  it('`link/..` in a redirect target is judged where the kernel writes', async () => {
    const { facts } = await decide('echo x > chain1/../authorized_keys');
    expect(facts.paths.map((p) => p.path)).toEqual([at('outside/authorized_keys')]);
  });

  it('after `cd link`, `..` in a target is the link target\'s parent; `cd link/..` itself is logical (bash -L)', async () => {
    expect((await decide('cd link && echo x > ../y')).facts.paths.map((p) => p.path)).toEqual([at('outside/y')]);
    expect((await decide('cd link/.. && echo x > y')).facts.paths.map((p) => p.path)).toEqual([at('realws/y')]);
  });

  it('a dangling link to ~/.ssh/authorized_keys is denied by the `~/.ssh/**` rule', async () => {
    const { facts, evaluation } = await decide('echo x >> k');
    expect(facts.paths.map((p) => p.path)).toEqual([at('realhome/.ssh/authorized_keys')]);
    expect(evaluation.decision).toBe('deny');
  });

  it('a link loop is unresolvable, never allowed', async () => {
    const { evaluation } = await decide('echo x > loop1');
    expect(evaluation.decision).toBe('ask');
    expect(evaluation.source).toEqual({ type: 'unresolvable' });
  });

  it('the workspace and home patterns match canonical paths', async () => {
    expect((await decide('echo x > src/out.txt')).evaluation.decision).toBe('allow');
    expect((await decide('echo x > keys/id')).evaluation.decision).toBe('deny');
    expect((await decideEdit(at('homelink/.ssh/config'))).decision).toBe('deny');
    expect((await decideEdit(at('realhome/.ssh/config'))).decision).toBe('deny');
    expect((await decideEdit(at('realws/src/b.ts'))).decision).toBe('allow');
  });

  it('an absolute pattern through a symlink (`/etc` is `/private/etc` on macOS) matches the canonical path', async () => {
    expect((await decideEdit(at('realetc/hosts'))).decision).toBe('deny');
    expect((await decideEdit(at('etclink/hosts'))).decision).toBe('deny');
  });

  it('a glob that matches a symlink is judged at the link target too', async () => {
    expect((await decide('echo x >> [k]', { globTarget: '[k]' })).evaluation.decision).toBe('deny');
    expect((await decide('echo x >> ke[y]s/config', { globTarget: 'ke[y]s/config' })).evaluation.decision).toBe('deny');
    expect((await decide('echo x >> .en[v]', { globTarget: '.en[v]' })).evaluation.decision).toBe('deny');
    expect((await decide('echo x >> .git/hook[s]/pre-commit', { globTarget: '.git/hook[s]/pre-commit' })).evaluation.decision).toBe('deny');
    expect((await decide('echo x >> src/*.ts', { globTarget: 'src/*.ts' })).evaluation.decision).toBe('allow');
  });

  it('a link below the workspace never widens an allow rule, and still narrows to a deny rule', async () => {
    const rules = policy(`
version: 1
default: ask
rules:
  - { id: out, decision: allow, match: { paths: ["\${workspace}/link/**"] } }
  - { id: secret, decision: deny, match: { paths: ["\${workspace}/link/secret/**"] } }
  - { id: echo, decision: allow, match: { command: ["echo"] } }
`);
    const canonicalize = realpathCanonicalizer();
    const judge = async (command: string) => {
      const facts = extractFacts({ toolCallId: 't', kind: 'execute', rawInput: { command } }, { workspace: at('wslink'), home: '/h', agent: undefined, shell: await shell(), canonicalize, fileExists: () => false });
      return evaluate(rules, facts, { home: '/h', canonicalize }).decision;
    };
    // `link` may be the agent's own link to anywhere: writing through it is not "in the workspace".
    expect(await judge('echo x > link/y')).toBe('ask');
    expect(await judge('echo x > link/secret/z')).toBe('deny');
  });

  it('without a canonicaliser for patterns, the canonical home is not matched (what the anchors fix)', async () => {
    const canonicalize = realpathCanonicalizer();
    const home = at('homelink');
    const facts = extractFacts({ toolCallId: 't', kind: 'edit', rawInput: { file_path: at('homelink/.ssh/config') } }, { workspace: at('wslink'), home, agent: undefined, shell: await shell(), canonicalize, fileExists: () => false });
    expect(evaluate(policy(POLICY(at('etclink'))), facts, { home }).decision).not.toBe('deny');
  });
});
