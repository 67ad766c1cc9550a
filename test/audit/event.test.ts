import { describe, expect, it } from 'vitest';
import { decisionEvent } from '../../src/audit/event.js';
import { auditLine } from '../../src/audit/sink.js';
import type { CallFacts } from '../../src/core/facts.js';
import type { Evaluation } from '../../src/policy/evaluate.js';

const facts = { kind: 'execute', tool: undefined, title: 'ls', agent: undefined, workspace: '/w', paths: [], commands: [], urls: [],
  input: { command: 'ls', token: 'abc' }, shellLine: 'ls', shell: undefined, unresolvable: [] } as unknown as CallFacts;
const evaluation = { decision: 'allow', source: { type: 'rule', ruleId: 'r1', layer: 'user' }, reason: 'rule r1 allows ls',
  items: [{ item: undefined, label: 'ls', decision: 'allow', matches: [{ ruleId: 'r1' }], grant: undefined }], unresolvable: [], wouldHave: [] } as unknown as Evaluation;
const base = {
  time: new Date('2026-12-01T00:00:00Z'), decisionId: 'd1', method: 'session/request_permission', sessionId: 's', toolCallId: undefined,
  facts, evaluation, decision: 'allow' as const, outcome: 'allowed' as const, source: evaluation.source, optionId: 'allow', latencyMs: 0.0123456,
};

describe('audit decision event', () => {
  it('serializes absent optional fields as absent, in the documented order', () => {
    expect(auditLine(decisionEvent(base))).toBe('{"v":1,"event":"decision","time":"2026-12-01T00:00:00.000Z","decisionId":"d1",'
      + '"method":"session/request_permission","sessionId":"s","kind":"execute","title":"ls","command":"ls",'
      + '"items":[{"item":"ls","decision":"allow","rules":["r1"]}],"policyDecision":"allow","decision":"allow","outcome":"allowed",'
      + '"source":{"type":"rule","ruleId":"r1","layer":"user"},"reason":"rule r1 allows ls","optionId":"allow",'
      + '"input":{"command":"ls","token":"***"},"latencyMs":0.012}\n');
  });

  it('lays `extra` over the event: a reason replaced in place, grants added at the end', () => {
    const line = JSON.stringify(decisionEvent({ ...base, extra: { reason: 'nobody answered', grants: ['g1'] } }));
    expect(line).toContain('"reason":"nobody answered","optionId":"allow"');
    expect(line.endsWith('"latencyMs":0.012,"grants":["g1"]}')).toBe(true);
  });
});
