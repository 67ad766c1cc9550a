import { describe, expect, it } from 'vitest';
import { createMemoryGrantStore } from '../../src/grants/store.js';
import { harness, policyFrom } from '../helpers/harness.js';

// In-process: absurdly deep nesting (50,000 levels, ~250 KB: JSON.parse copes, JSON.stringify throws
// RangeError) in an escalated permission request that the broker re-encodes with its own options.
// Broker.fromAgent must not throw; the request is handed to the client once (as sent) or answered
// once, never allowed. (The CLI-level twin is in malformed.test.ts; the relay also guards each line.)
describe('an escalated request with absurdly deep nesting', () => {
  for (const nonInteractive of [false, true]) {
    it(`is settled once without throwing (non-interactive=${nonInteractive})`, async () => {
      const h = await harness(await policyFrom('version: 1\ndefault: ask\nrules: []\n'), { grants: createMemoryGrantStore(), nonInteractive });
      const deep = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
      const line = `{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"s","options":[{"optionId":"y","name":"Y","kind":"allow_once"},{"optionId":"n","name":"N","kind":"reject_once"}],"toolCall":{"toolCallId":"t","kind":"execute","rawInput":{"command":"make deploy"},"_meta":${deep}}}}\n`;
      expect(() => h.agent(line)).not.toThrow();
      const handed = h.toClient.filter((l) => l.includes('"id":7'));
      const answers = [...h.answers().entries()].filter(([id]) => id === 7);
      expect(handed.length + answers.length).toBe(1);
      for (const [, result] of answers) expect(result).not.toEqual({ outcome: { outcome: 'selected', optionId: 'y' } });
      // Still deciding afterwards.
      h.agent({ jsonrpc: '2.0', id: 8, method: 'session/request_permission', params: { sessionId: 's', options: [{ optionId: 'n', name: 'N', kind: 'reject_once' }], toolCall: { toolCallId: 't8', kind: 'execute', rawInput: { command: 'make x' } } } });
      expect(h.toClient.some((l) => l.includes('"id":8')) || h.answers().has(8)).toBe(true);
    });
  }
});
