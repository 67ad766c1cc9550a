import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { looksRandom, maskEveryPattern, maskText, maskValue } from '../../src/audit/mask.js';
import { CONTEXT_RULES, TOKEN_RULES } from '../../src/audit/secret-rules.js';
import { fileAuditSink } from '../../src/audit/sink.js';
import { CLAUDE_OPTIONS, harness, policyFrom } from '../helpers/harness.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const chars = (alphabet: string, min: number, max = min) =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((list) => list.join(''));
const upper = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const hex = '0123456789abcdef';
const PASSWORD = `${ALNUM}!#%^*_+=-.~`;

/** A secret and a string that holds it the way it reaches an agent's tool call. */
interface Placed { readonly secret: string; readonly text: string }
const bare = (secret: fc.Arbitrary<string>) => secret.map((s): Placed => ({ secret: s, text: s }));
const inContext = (secret: fc.Arbitrary<string>, wrap: (s: string) => string) => secret.map((s): Placed => ({ secret: s, text: wrap(s) }));

/** One generator per shape: the token rules (gitleaks' ids) and the shapes that are secret by where they stand. */
const SECRETS: Record<string, fc.Arbitrary<Placed>> = {
  'aws-access-token': bare(chars(upper, 16).map((s) => `AKIA${s}`)),
  'github-pat': bare(chars(ALNUM, 36).map((s) => `ghp_${s}`)),
  'github-fine-grained-pat': bare(chars(`${ALNUM}_`, 82).map((s) => `github_pat_${s}`)),
  'gitlab-token': bare(chars(`${ALNUM}-_`, 20).map((s) => `glpat-${s}`)),
  'slack-token': bare(chars(`${ALNUM}-`, 24, 40).map((s) => `xoxb-${s}`)),
  'stripe-access-token': bare(chars(ALNUM, 24).map((s) => `sk_live_${s}`)),
  'anthropic-key': bare(chars(`${ALNUM}_-`, 40, 90).map((s) => `sk-ant-api03-${s}`)),
  'npm-access-token': bare(chars(ALNUM, 36).map((s) => `npm_${s}`)),
  'pypi-upload-token': bare(chars(`${ALNUM}-_`, 50, 80).map((s) => `pypi-AgEIcHlwaS5vcmc${s}`)),
  'gcp-api-key': bare(chars(`${ALNUM}_-`, 35).map((s) => `AIza${s}`)),
  jwt: bare(fc.tuple(chars(ALNUM, 20, 40), chars(ALNUM, 20, 60), chars(`${ALNUM}_-`, 20, 43)).map(([a, b, c]) => `eyJ${a}.eyJ${b}.${c}`)),
  'sendgrid-api-token': bare(fc.tuple(chars(ALNUM, 22), chars(ALNUM, 43)).map(([a, b]) => `SG.${a}.${b}`)),
  'digitalocean-token': bare(chars(hex, 64).map((s) => `dop_v1_${s}`)),
  'huggingface-access-token': bare(chars('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', 34).map((s) => `hf_${s}`)),
  'hashicorp-vault-token': bare(chars(`${ALNUM}_-`, 90, 100).map((s) => `hvs.${s}`)),
  'linear-api-key': bare(chars(ALNUM, 40).map((s) => `lin_api_${s}`)),
  'docker-personal-access-token': bare(chars(`${ALNUM}_-`, 27).map((s) => `dckr_pat_${s}`)),
  'private-key': bare(chars(`${ALNUM}+/`, 64, 200).map((s) => `-----BEGIN OPENSSH PRIVATE KEY-----\n${s}\n-----END OPENSSH PRIVATE KEY-----`)),
  'authorization-basic': inContext(chars(`${ALNUM}+/`, 12, 40), (s) => `curl -H 'Authorization: Basic ${s}' https://api.example.com`),
  'authorization-bearer': inContext(chars(`${ALNUM}._-`, 12, 40), (s) => `Authorization: Bearer ${s}`),
  'x-api-key': inContext(chars(ALNUM, 12, 40), (s) => `curl -H "X-Api-Key: ${s}" https://api.example.com/v1`),
  'curl-user': inContext(chars(PASSWORD, 8, 24), (s) => `curl -u admin:${s} https://registry.example.com`),
  'url-password': inContext(chars(PASSWORD, 8, 24), (s) => `git clone https://deploy:${s}@git.example.com/org/repo.git`),
  'npm-auth-token': inContext(chars(ALNUM, 20, 40), (s) => `echo //registry.npmjs.org/:_authToken=${s} >> ~/.npmrc`),
  'aws-secret-access-key': inContext(chars(`${ALNUM}+/`, 40), (s) => `aws_secret_access_key = ${s}`),
  'mysql-pwd': inContext(chars(PASSWORD, 8, 24), (s) => `MYSQL_PWD=${s} mysql -u root app`),
  'password-option': inContext(chars(PASSWORD, 8, 24), (s) => `psql --password=${s} -h db`),
  'env-assignment': inContext(chars(ALNUM, 16, 40), (s) => `GITHUB_TOKEN=${s} gh pr list`),
};
const anySecret = fc.oneof(...Object.values(SECRETS));

describe('secret shapes', () => {
  it.each(Object.entries(SECRETS))('masks %s', (_name, arbitrary) => {
    fc.assert(fc.property(arbitrary, ({ secret, text }) => {
      expect(maskText(text)).not.toContain(secret);
    }), { numRuns: 200 });
  });

  it('keeps what names the secret readable', () => {
    expect(maskText('curl -u admin:hunter22 https://x')).toBe('curl -u admin:*** https://x');
    expect(maskText('git clone https://deploy:hunter22@git.example.com/r.git')).toBe('git clone https://deploy:***@git.example.com/r.git');
    expect(maskText('Authorization: Basic dXNlcjpwYXNz')).toBe('Authorization: Basic ***');
    expect(maskText('MYSQL_PWD=s3cr3t mysql')).toBe('MYSQL_PWD=*** mysql');
    expect(maskText('pay with sk_live_abcdefghij0123456789')).toBe('pay with ***');
  });

  it('leaves ordinary lines alone', () => {
    for (const line of ['npm test', 'git log --author=alice -5', 'grep -rn "token" src', 'ls -la ~/.ssh', 'cat package.json | jq .scripts',
      'git commit -m "fix the key lookup"', 'PWD=/w make', 'tsc --noEmit', 'docker build -t app:latest .']) {
      expect(maskText(line)).toBe(line);
    }
  });

  it('the keyword gate never skips a string that a rule would change', () => {
    const keywords = [...new Set([...TOKEN_RULES, ...CONTEXT_RULES].flatMap((rule) => rule.keywords))];
    const fragments = [...keywords, ...keywords.map((k) => k.toUpperCase()), ' ', '=', ':', '"', "'", '\n', '/', '@', '-', '_', '.'];
    fc.assert(fc.property(fc.array(fc.oneof(fc.constantFrom(...fragments), fc.string({ maxLength: 6 }), anySecret.map((s) => s.text)), { maxLength: 10 }), (parts) => {
      const text = parts.join('');
      fc.pre(text.length < 2000);
      expect(maskText(text)).toBe(maskEveryPattern(text));
    }), { numRuns: 5_000 });
  });

  it('every match of a rule holds one of its keywords', () => {
    for (const [name, arbitrary] of Object.entries(SECRETS)) {
      for (const { text } of fc.sample(arbitrary, 20)) {
        for (const rule of [...TOKEN_RULES, ...CONTEXT_RULES]) {
          for (const match of text.matchAll(new RegExp(rule.pattern.source, rule.pattern.flags))) {
            const lower = match[0].toLowerCase();
            expect(rule.keywords.some((k) => lower.includes(k)), `${rule.id} on ${name}: ${match[0]}`).toBe(true);
          }
        }
      }
    }
  });
});

describe('structured values', () => {
  it('masks every value under a sensitive key, objects included, and the value of a sensitive {name, value} pair', () => {
    expect(maskValue({ credentials: { user: 'bob', pass: 'x' }, env: [{ name: 'API_TOKEN', value: 'abc' }, { name: 'HOME', value: '/h' }] }))
      .toEqual({ credentials: '***', env: [{ name: 'API_TOKEN', value: '***' }, { name: 'HOME', value: '/h' }] });
    expect(maskValue({ headers: [{ key: 'X-Auth', value: 'zzz' }] })).toEqual({ headers: [{ key: 'X-Auth', value: '***' }] });
  });

  it('masks values of keys that may be sensitive when they look random, not when they read like words', () => {
    expect(maskValue({ signingKey: 'q8Zt1vR0pL5mW2xY9cB3nK7d' })).toEqual({ signingKey: '***' });
    expect(maskValue({ keyboard: 'us-international-layout' })).toEqual({ keyboard: 'us-international-layout' });
    expect(looksRandom('aaaaaaaaaaaaaaaaaaaa')).toBe(false);
    expect(looksRandom('/home/dev/project/src/index.ts')).toBe(false);
  });
});

const POLICY = `
version: 1
default: ask
rules:
  - id: tests
    decision: allow
    match: { kind: execute, command: ["npm test"] }
`;

/** Where in a request an agent could carry a string: every field the broker reads or relays. */
const PLACES: readonly ((text: string) => { toolCall: Record<string, unknown>; meta?: Record<string, unknown> })[] = [
  (text) => ({ toolCall: { kind: 'execute', title: text, rawInput: { command: 'npm test' } } }),
  (text) => ({ toolCall: { kind: 'execute', rawInput: { command: text } } }),
  (text) => ({ toolCall: { kind: 'execute', rawInput: { command: `bash -c "${text.replace(/["\\$`]/g, '\\$&')}"` } } }),
  (text) => ({ toolCall: { kind: 'execute', rawInput: { command: `eval '${text.replace(/'/g, "'\\''")}'` } } }),
  (text) => ({ toolCall: { kind: 'execute', rawInput: { command: 'npm test', env: [{ name: 'X', value: text }] } } }),
  (text) => ({ toolCall: { kind: 'fetch', rawInput: { url: `https://x.example/?q=${encodeURIComponent('a')}`, prompt: text } } }),
  (text) => ({ toolCall: { kind: 'edit', locations: [{ path: '/home/dev/project/a.ts' }], content: [{ type: 'diff', path: '/home/dev/project/a.ts', oldText: '', newText: text }] } }),
  (text) => ({ toolCall: { kind: 'other', rawInput: { deeply: { nested: [{ note: text }] } } } }),
  (text) => ({ toolCall: { kind: 'execute', rawInput: { command: 'npm test' }, _meta: { note: text } } }),
];

describe('the audit file never holds a secret', () => {
  it('any generated secret, placed in any request field, is absent from the file on disk', async () => {
    const policy = await policyFrom(POLICY);
    const file = join(mkdtempSync(join(tmpdir(), 'acp-broker-secrets-')), 'audit.jsonl');
    const sink = fileAuditSink(file, () => {}, 60_000);
    const h = await harness(policy, { auditSink: sink, nonInteractive: true });
    h.client({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } });
    h.agent({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentInfo: { name: 'test-agent', version: '1' } } });
    h.client({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } });
    h.agent({ jsonrpc: '2.0', id: 1, result: { sessionId: 's' } });
    const secrets: string[] = [];
    let id = 100;
    fc.assert(fc.property(anySecret, fc.integer({ min: 0, max: PLACES.length - 1 }), fc.boolean(), ({ secret, text }, place, unprompted) => {
      secrets.push(secret);
      const { toolCall } = PLACES[place]!(text);
      const toolCallId = `c${++id}`;
      if (unprompted) {
        // A tool call that runs without asking: its title reaches the `unprompted` event.
        h.agent({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'tool_call', toolCallId, status: 'in_progress', kind: 'execute', title: text } } });
        h.agent({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'tool_call_update', toolCallId, status: 'completed' } } });
      } else {
        h.agent({ jsonrpc: '2.0', id, method: 'session/request_permission', params: { sessionId: 's', toolCall: { toolCallId, ...toolCall }, options: CLAUDE_OPTIONS } });
      }
    }), { numRuns: 400 });
    await sink.close();
    const written = readFileSync(file, 'utf8');
    expect(written.split('\n').filter(Boolean).length).toBeGreaterThan(300);
    const leaked = secrets.filter((secret) => written.includes(secret) || written.includes(JSON.stringify(secret).slice(1, -1)));
    expect(leaked).toEqual([]);
  });
});

describe('the fields that leaked before, one by one', () => {
  async function session() {
    const h = await harness(await policyFrom(POLICY), { nonInteractive: true });
    h.client({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } });
    h.agent({ jsonrpc: '2.0', id: 1, result: { sessionId: 's' } });
    return h;
  }
  const request = (h: Awaited<ReturnType<typeof session>>, toolCall: Record<string, unknown>) =>
    h.agent({ jsonrpc: '2.0', id: 7, method: 'session/request_permission', params: { sessionId: 's', toolCall: { toolCallId: 't', ...toolCall }, options: CLAUDE_OPTIONS } });
  const SECRET = 'sk-ant-api03-Zq8vR1tLp0mW2xY9cB3nK7dJ4hG6fS5a';

  it('the unresolvable reasons, which quote the line', async () => {
    const h = await session();
    request(h, { kind: 'execute', rawInput: { command: `eval "curl -H 'Authorization: Bearer ${SECRET}' x"` } });
    const event = h.audit.at(-1)!;
    expect(event.unresolvable?.length).toBeGreaterThan(0);
    expect(JSON.stringify(event)).not.toContain(SECRET);
  });

  it('the title of an unprompted tool call', async () => {
    const h = await session();
    h.agent({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'tool_call', toolCallId: 'u', status: 'in_progress', kind: 'execute', title: `deploy --token ${SECRET}` } } });
    h.agent({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'tool_call_update', toolCallId: 'u', status: 'completed' } } });
    expect(h.audit.at(-1)).toMatchObject({ event: 'unprompted', title: 'deploy --token ***' });
  });

  it('{ name, value } env lists and values under object-valued sensitive keys', async () => {
    const h = await session();
    request(h, { kind: 'execute', rawInput: { command: 'npm test', env: [{ name: 'NPM_TOKEN', value: 'plain-looking-value' }], credentials: { user: 'ci', secret: { nested: 'deep-value' } } } });
    const line = JSON.stringify(h.audit.at(-1));
    expect(line).not.toContain('plain-looking-value');
    expect(line).not.toContain('deep-value');
    expect(line).toContain('"name":"NPM_TOKEN","value":"***"');
  });
});
