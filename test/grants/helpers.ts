import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { GrantInput } from '../../src/grants/store.js';

export const PROJECT = '/home/dev/project-x';

/** A fresh temp directory, removed after the test. */
export function useTempDirs(): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-broker-grants-'));
    dirs.push(dir);
    return dir;
  };
}

/** A settable clock and a counting id generator, as a store's injected deps. */
export function fakeDeps(start = '2025-06-01T12:00:00.000Z') {
  let now = new Date(start);
  let next = 0;
  return {
    now: () => now,
    newId: () => `g${++next}`,
    advance(ms: number) {
      now = new Date(now.getTime() + ms);
    },
  };
}

export function commandGrant(line: string, extra: Partial<GrantInput> = {}): GrantInput {
  return {
    decision: 'allow',
    subject: { type: 'command', argv: line.split(' '), prefix: false },
    scope: { type: 'project', dir: PROJECT },
    source: 'client',
    ...extra,
  };
}
