import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { command, permissionRequest, recordedResponses, startBroker } from './driver.js';

// 2,000 permission requests written in one burst, through the real CLI: each is answered exactly
// once and correctly — by policy (allowed, denied) or, for those the policy leaves open, by the
// client (interactive) or the fallback (non-interactive) — in whatever order.

const N = 2000;
type Expected = 'yes' | 'no' | 'client';

function requests(): { line: string; id: number; expected: Expected }[] {
  return Array.from({ length: N }, (_, i) => {
    const id = 10_000 + i;
    switch (i % 4) {
      case 0: return { line: permissionRequest(id, `echo ${i} && npm test`), id, expected: 'yes' as const };
      case 1: return { line: permissionRequest(id, `git push origin branch-${i}`), id, expected: 'no' as const };
      case 2: return { line: permissionRequest(id, `echo ${i} > /home/dev/project/.env`), id, expected: 'no' as const };
      default: return { line: permissionRequest(id, `make target-${i}`), id, expected: 'client' as const };
    }
  });
}

describe.each([
  { mode: 'interactive', args: [] as string[] },
  { mode: 'non-interactive', args: ['--non-interactive'] },
])('2,000 permission requests at once, $mode', ({ mode, args }) => {
  it('answers each exactly once, by policy', async () => {
    const dir = tempDir('acp-broker-fault-');
    const record = join(dir, 'agent-in.bin');
    const run = startBroker({ dir, args, env: { RECORD_TO: record } });
    await run.report('hello');
    const all = requests();
    run.send(command('emit', { lines: all.map((r) => r.line) }));
    run.send(command('expect', { count: N }));

    if (mode === 'interactive') {
      // The client answers every escalated request, rejecting it, as soon as it sees it.
      const open = new Set(all.filter((r) => r.expected === 'client').map((r) => r.id));
      let from = 0;
      while (open.size > 0) {
        const line = await run.waitFor((l) => l.message?.method === 'session/request_permission', 'escalated requests', from);
        from = run.lines.indexOf(line) + 1;
        const id = line.message!.id as number;
        expect(open.delete(id), `escalated once: ${id}`).toBe(true);
        const reject = (line.message!.params.options as { optionId: string; kind: string }[]).find((o) => o.kind === 'reject_once')!;
        run.send({ jsonrpc: '2.0', id, result: { outcome: { outcome: 'selected', optionId: reject.optionId } } });
      }
    }

    const { responses } = await run.report('answered');
    run.child.stdin.end();
    expect((await run.exit).code).toBe(0);

    // Everything the agent ever read: exactly one answer per request, none extra, none for others.
    const received = recordedResponses(record);
    expect(received.length).toBe(N);
    expect((responses as unknown[]).length).toBe(N);
    const byId = new Map(received.map((r) => [r.id as number, r]));
    expect(byId.size).toBe(N);
    for (const r of all) {
      const answer = byId.get(r.id);
      const expected = r.expected === 'client' ? 'no' : r.expected;
      expect(answer?.result?.outcome, `request ${r.id}`).toEqual({ outcome: 'selected', optionId: expected });
    }
    // Nothing escalated that the policy decides.
    const escalated = run.lines.filter((l) => l.message?.method === 'session/request_permission').map((l) => l.message!.id as number);
    expect(escalated.sort()).toEqual(mode === 'interactive' ? all.filter((r) => r.expected === 'client').map((r) => r.id).sort() : []);
  }, 120_000);
});
