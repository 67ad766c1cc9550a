import { describe, expect, it } from 'vitest';
import type { Grant, GrantItem, GrantScope, GrantSubject } from '../../src/grants/grant.js';
import { describeGrant, describeSubject } from '../../src/grants/describe.js';
import { grantCoversItem, sameSubjectAndScope, subjectOfItem } from '../../src/grants/grant.js';
import type { SimpleCommand } from '../../src/shell/types.js';

const PROJECT = '/home/dev/project-x';
const NOW = new Date('2025-06-01T12:00:00Z');
const ctx = { workspace: PROJECT, now: NOW };

function grant(subject: GrantSubject, extra: Partial<Grant> = {}): Grant {
  return {
    id: 'g1',
    decision: 'allow',
    subject,
    scope: { type: 'project', dir: PROJECT },
    createdAt: '2025-06-01T00:00:00.000Z',
    source: 'client',
    label: 'test',
    ...extra,
  };
}

function command(line: string, extra: Partial<SimpleCommand> = {}): GrantItem {
  const argv = line.split(' ');
  return {
    type: 'command',
    command: { argv, program: argv[0]!, cwd: PROJECT, assignments: [], wrappers: [], text: line, ...extra },
  };
}

const npmTest = grant({ type: 'command', argv: ['npm', 'test'], prefix: false });
const gitPushPrefix = grant({ type: 'command', argv: ['git', 'push'], prefix: true });

describe('grantCoversItem: commands', () => {
  it.each([
    ['npm test', true],
    ['npm test --watch', false],
    ['npm run test', false],
    ['npm', false],
    ['npx test', false],
  ])('exact `npm test` grant vs `%s` → %s', (line, covered) => {
    expect(grantCoversItem(npmTest, command(line), ctx)).toBe(covered);
  });

  it.each([
    ['git push', true],
    ['git push origin main', true],
    ['git push --force', true],
    ['git pull', false],
    ['git', false],
    ['gitx push', false],
  ])('prefix `git push` grant vs `%s` → %s', (line, covered) => {
    expect(grantCoversItem(gitPushPrefix, command(line), ctx)).toBe(covered);
  });

  it('does not stretch to commands with env assignments or run as another user', () => {
    expect(grantCoversItem(npmTest, command('npm test', { assignments: ['NODE_OPTIONS=--require=x.js'] }), ctx)).toBe(false);
    expect(grantCoversItem(npmTest, command('npm test', { wrappers: ['sudo'] }), ctx)).toBe(false);
    expect(grantCoversItem(npmTest, command('npm test', { wrappers: ['xargs'] }), ctx)).toBe(false);
    expect(grantCoversItem(npmTest, command('npm test', { wrappers: ['timeout'] }), ctx)).toBe(true);
  });

  it('a deny grant still covers the command behind assignments, wrappers or another cwd', () => {
    const denyRm = grant({ type: 'command', argv: ['rm', '-rf', 'build'], prefix: false }, { decision: 'deny' });
    expect(grantCoversItem(denyRm, command('rm -rf build', { wrappers: ['sudo'], assignments: ['X=1'], cwd: '/' }), ctx)).toBe(true);
    expect(grantCoversItem(denyRm, command('rm -rf dist'), ctx)).toBe(false);
  });

  it('a project command grant covers commands run inside the project only', () => {
    expect(grantCoversItem(npmTest, command('npm test', { cwd: `${PROJECT}/packages/a` }), ctx)).toBe(true);
    expect(grantCoversItem(npmTest, command('npm test', { cwd: '/tmp' }), ctx)).toBe(false);
  });

  it('an empty argv grant covers nothing', () => {
    const empty = grant({ type: 'command', argv: [], prefix: true });
    expect(grantCoversItem(empty, command('ls'), ctx)).toBe(false);
  });
});

describe('grantCoversItem: paths, urls, tools', () => {
  const readEnv = grant({ type: 'path', path: `${PROJECT}/.env`, access: 'read' });

  it('covers the exact path with the same access only', () => {
    expect(grantCoversItem(readEnv, { type: 'path', path: `${PROJECT}/.env`, access: 'read' }, ctx)).toBe(true);
    expect(grantCoversItem(readEnv, { type: 'path', path: `${PROJECT}/.env`, access: 'write' }, ctx)).toBe(false);
    expect(grantCoversItem(readEnv, { type: 'path', path: `${PROJECT}/.env`, access: 'delete' }, ctx)).toBe(false);
    expect(grantCoversItem(readEnv, { type: 'path', path: `${PROJECT}/.env.local`, access: 'read' }, ctx)).toBe(false);
    expect(grantCoversItem(readEnv, { type: 'path', path: PROJECT, access: 'read' }, ctx)).toBe(false);
  });

  it('does not let a path grant cover a command or a url', () => {
    expect(grantCoversItem(readEnv, command(`cat ${PROJECT}/.env`), ctx)).toBe(false);
    expect(grantCoversItem(readEnv, { type: 'url', url: `file://${PROJECT}/.env` }, ctx)).toBe(false);
  });

  it.each([
    ['https://example.com/a?b=c', true],
    ['http://EXAMPLE.com', true],
    ['https://user@example.com/', true],
    ['https://example.com:8443/', false],
    ['https://api.example.com/', false],
    ['https://example.com.evil.net/', false],
    ['https://example.com@evil.net/', false],
    ['ftp://example.com/', false],
    ['not a url', false],
  ])('url host grant for example.com vs %s → %s', (url, covered) => {
    const fetchExample = grant({ type: 'url', host: 'example.com' });
    expect(grantCoversItem(fetchExample, { type: 'url', url }, ctx)).toBe(covered);
  });

  it('tool grants cover calls without items, by kind and optionally tool', () => {
    const anyThink = grant({ type: 'tool', kind: 'think' });
    const todo = grant({ type: 'tool', kind: 'other', tool: 'TodoWrite' });
    expect(grantCoversItem(anyThink, { type: 'none', kind: 'think', tool: 'x' }, ctx)).toBe(true);
    expect(grantCoversItem(anyThink, { type: 'none', kind: 'fetch', tool: undefined }, ctx)).toBe(false);
    expect(grantCoversItem(todo, { type: 'none', kind: 'other', tool: 'TodoWrite' }, ctx)).toBe(true);
    expect(grantCoversItem(todo, { type: 'none', kind: 'other', tool: 'Other' }, ctx)).toBe(false);
    expect(grantCoversItem(todo, { type: 'none', kind: 'other', tool: undefined }, ctx)).toBe(false);
  });

  it('an allow grant never covers switching mode; a deny grant may', () => {
    const subject: GrantSubject = { type: 'tool', kind: 'switch_mode' };
    const item: GrantItem = { type: 'none', kind: 'switch_mode', tool: undefined };
    expect(grantCoversItem(grant(subject), item, ctx)).toBe(false);
    expect(grantCoversItem(grant(subject, { decision: 'deny' }), item, ctx)).toBe(true);
  });
});

describe('grantCoversItem: scope, expiry, agent', () => {
  const item = command('npm test', { cwd: '/' });
  const globalNpmTest = grant({ type: 'command', argv: ['npm', 'test'], prefix: false }, { scope: { type: 'global' } });
  const at = (workspace: string) => ({ workspace, now: NOW });
  const inProject = (cwd: string) => command('npm test', { cwd });

  it('a project grant covers its directory and its subdirectories', () => {
    expect(grantCoversItem(npmTest, inProject(PROJECT), at(PROJECT))).toBe(true);
    expect(grantCoversItem(npmTest, inProject(`${PROJECT}/sub`), at(`${PROJECT}/sub`))).toBe(true);
    expect(grantCoversItem(npmTest, inProject(PROJECT), at(`${PROJECT}/`))).toBe(true);
  });

  it('a project grant does not cover another project, even one sharing a name prefix', () => {
    expect(grantCoversItem(npmTest, inProject('/home/dev/project-y'), at('/home/dev/project-y'))).toBe(false);
    expect(grantCoversItem(npmTest, inProject(`${PROJECT}-fork`), at(`${PROJECT}-fork`))).toBe(false);
    expect(grantCoversItem(npmTest, inProject('/home/dev'), at('/home/dev'))).toBe(false);
    expect(grantCoversItem(npmTest, inProject(PROJECT), at(`${PROJECT}/../project-y`))).toBe(false);
  });

  it('a global grant covers every workspace', () => {
    expect(grantCoversItem(globalNpmTest, item, at('/anywhere/else'))).toBe(true);
    expect(grantCoversItem(globalNpmTest, item, at(PROJECT))).toBe(true);
  });

  it('an expired grant covers nothing', () => {
    const expiring = grant(npmTest.subject, { expiresAt: '2025-06-01T13:00:00.000Z' });
    const command = inProject(PROJECT);
    expect(grantCoversItem(expiring, command, { workspace: PROJECT, now: new Date('2025-06-01T12:59:59Z') })).toBe(true);
    expect(grantCoversItem(expiring, command, { workspace: PROJECT, now: new Date('2025-06-01T13:00:00Z') })).toBe(false);
    expect(grantCoversItem(grant(npmTest.subject, { expiresAt: 'garbage' }), command, ctx)).toBe(false);
  });

  it('a grant bound to an agent covers only that agent', () => {
    const claudeOnly = grant(npmTest.subject, { agent: 'claude-code' });
    expect(grantCoversItem(claudeOnly, inProject(PROJECT), { ...ctx, agent: 'claude-code' })).toBe(true);
    expect(grantCoversItem(claudeOnly, inProject(PROJECT), { ...ctx, agent: 'gemini' })).toBe(false);
    expect(grantCoversItem(claudeOnly, inProject(PROJECT), ctx)).toBe(false);
  });
});

describe('labels', () => {
  const project: GrantScope = { type: 'project', dir: PROJECT };

  it.each<[GrantSubject, GrantScope, string]>([
    [{ type: 'command', argv: ['npm', 'test'], prefix: false }, project, '`npm test` in project-x'],
    [{ type: 'command', argv: ['git', 'push'], prefix: true }, project, '`git push` with any arguments in project-x'],
    [{ type: 'command', argv: ['git', 'commit', '-m', "it's done"], prefix: false }, project, "`git commit -m 'it'\\''s done'` in project-x"],
    [{ type: 'path', path: '/etc/hosts', access: 'write' }, project, 'writes to /etc/hosts in project-x'],
    [{ type: 'path', path: `${PROJECT}/src/a.ts`, access: 'read' }, project, 'reads src/a.ts in project-x'],
    [{ type: 'path', path: `${PROJECT}/tmp`, access: 'delete' }, { type: 'global' }, `deletes ${PROJECT}/tmp in every project`],
    [{ type: 'url', host: 'example.com' }, { type: 'global' }, 'fetches from example.com in every project'],
    [{ type: 'tool', kind: 'other', tool: 'TodoWrite' }, project, 'other calls by `TodoWrite` in project-x'],
  ])('%j %j → %s', (subject, scope, label) => {
    expect(describeGrant({ subject, scope })).toBe(label);
  });

  it('makes hidden characters visible', () => {
    const label = describeSubject({ type: 'command', argv: ['echo', 'a\u202eb\nc'], prefix: false });
    expect(label).toBe("`echo 'a\\u{202e}b\\u{a}c'`");
  });
});

describe('sameSubjectAndScope and subjectOfItem', () => {
  it('compares subjects structurally and scopes by directory', () => {
    const a = { subject: { type: 'command', argv: ['npm', 'test'], prefix: false } as GrantSubject, scope: { type: 'project', dir: PROJECT } as GrantScope };
    expect(sameSubjectAndScope(a, { ...a, subject: { type: 'command', argv: ['npm', 'test'], prefix: false } })).toBe(true);
    expect(sameSubjectAndScope(a, { ...a, scope: { type: 'project', dir: `${PROJECT}/` } })).toBe(true);
    expect(sameSubjectAndScope(a, { ...a, subject: { type: 'command', argv: ['npm', 'test'], prefix: true } })).toBe(false);
    expect(sameSubjectAndScope(a, { ...a, scope: { type: 'global' } })).toBe(false);
    expect(sameSubjectAndScope(a, { ...a, subject: { type: 'path', path: '/x', access: 'read' } })).toBe(false);
  });

  it('builds the narrowest subject for an item, and it covers that item', () => {
    const items: GrantItem[] = [
      command('npm test'),
      { type: 'path', path: `${PROJECT}/a`, access: 'write' },
      { type: 'url', url: 'https://Example.com/x' },
      { type: 'none', kind: 'think', tool: undefined },
    ];
    for (const item of items) {
      const subject = subjectOfItem(item);
      expect(subject).toBeDefined();
      expect(grantCoversItem(grant(subject!), item, ctx)).toBe(true);
    }
    expect(subjectOfItem({ type: 'url', url: 'https://Example.com/x' })).toEqual({ type: 'url', host: 'example.com' });
    expect(subjectOfItem({ type: 'url', url: 'mailto:a@b.c' })).toBeUndefined();
  });
});
