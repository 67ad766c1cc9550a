import { describe, expect, it } from 'vitest';
import type { CallFacts } from '../../src/core/facts.js';
import { urlHost } from '../../src/grants/grant.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { normalizeHost, urlCandidates } from '../../src/policy/hosts.js';
import { loadPolicyText } from '../../src/policy/load.js';

const POLICY = `
version: 1
default: ask
rules:
  - id: evil
    decision: deny
    match: { url: ["evil.example", "*.evil.example", "https://PASTE.example./*", "bücher.example"] }
  - id: docs
    decision: allow
    match: { kind: fetch, url: ["https://docs.example/*"] }
`;
const loaded = loadPolicyText(POLICY, 'p.yaml', 'user');
const policy = { files: [loaded.policy!] };

function fetchOf(url: string): string {
  const facts: CallFacts = {
    kind: 'fetch', tool: undefined, title: undefined, agent: undefined, workspace: '/w', paths: [], commands: [],
    urls: [url], input: undefined, shellLine: undefined, shell: undefined, unresolvable: [],
  };
  return evaluate(policy, facts, { home: '/h' }).decision;
}

describe('hosts compared as the network sees them', () => {
  it('normalises case, the trailing dot and IDNA', () => {
    expect(normalizeHost('EVIL.example.')).toBe('evil.example');
    expect(normalizeHost('bücher.example')).toBe('xn--bcher-kva.example');
    expect(normalizeHost('*.Bücher.example.')).toBe('*.xn--bcher-kva.example');
    expect(urlCandidates('https://user:pw@EVIL.example.:8443/x')).toEqual([
      'https://user:pw@EVIL.example.:8443/x', 'https://evil.example:8443/x', 'https://evil.example/x', 'evil.example',
    ]);
  });

  it.each([
    'https://evil.example/', 'https://evil.example./', 'https://EVIL.example/', 'https://user:pw@evil.example:443/',
    'https://evil.example:8443/x', 'http://a.b.EVIL.example./', 'https://ｅｖｉｌ.example/', 'https://paste.example/raw',
    'https://paste.example.:443/raw', 'https://xn--bcher-kva.example/', 'https://BÜCHER.example./',
  ])('%s is denied', (url) => {
    expect(fetchOf(url)).toBe('deny');
  });

  it('leaves other hosts alone', () => {
    expect(fetchOf('https://docs.example/guide')).toBe('allow');
    expect(fetchOf('https://DOCS.example./guide')).toBe('allow');
    expect(fetchOf('https://notevil.example/')).toBe('ask');
    expect(fetchOf('https://evil.example.com/')).toBe('ask');
  });
});

describe('grants compare hosts the same way', () => {
  it('a remembered decision for evil.example meets its other spellings', () => {
    for (const url of ['https://evil.example./x', 'https://EVIL.example/', 'https://user:pw@evil.example:443/', 'https://ｅｖｉｌ.example/']) {
      expect(urlHost(url), url).toBe('evil.example');
    }
    expect(urlHost('https://evil.example:8443/')).toBe('evil.example:8443');
  });
});
