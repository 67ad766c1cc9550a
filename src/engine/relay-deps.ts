import { randomBytes } from 'node:crypto';
import { problemEvent } from '../audit/event.js';
import type { AuditSink } from '../audit/sink.js';
import type { DecisionDeps } from '../broker/broker.js';
import type { FileGrantStore } from '../grants/file-store.js';
import type { GrantStore } from '../grants/store.js';
import { realpathCanonicalizer } from '../platform/canonicalize.js';
import type { BrokerDirs } from '../platform/dirs.js';
import { diskFileExists } from '../platform/file-exists.js';
import { diskTreeLister } from '../platform/tree-lister.js';
import { diskGitRevisionResolver } from '../platform/git-revision-resolver.js';
import { diskGitHistoryLister } from '../platform/git-history-lister.js';
import type { Engine } from './engine.js';

/** What a Broker decides with, backed by an engine still loading: called only once decisions are ready. */
export function engineDecisionDeps(engine: () => Engine | undefined, options: {
  readonly dirs: BrokerDirs; readonly grants: GrantStore; readonly fallbackWorkspace: string; readonly nonInteractive: boolean;
  readonly onDecision?: (() => void) | undefined;
}): DecisionDeps {
  return {
    policyFor: (workspace) => engine()!.policies.forWorkspace(workspace),
    shell: { analyze: (line, context) => engine()!.shell.analyze(line, context) },
    home: options.dirs.home, fallbackWorkspace: options.fallbackWorkspace, canonicalize: realpathCanonicalizer(), fileExists: diskFileExists(), listTree: diskTreeLister(), resolveGitRevision: diskGitRevisionResolver(), listGitHistory: diskGitHistoryLister(),
    grants: options.grants, nonInteractive: options.nonInteractive, clock: () => new Date(), onDecision: options.onDecision,
  };
}

/** Decision ids: unique across processes writing the same audit log. */
export function decisionIdGenerator(): () => string {
  const prefix = randomBytes(4).toString('hex');
  let n = 0;
  return () => `${prefix}-${(++n).toString(36)}`;
}

/**
 * How stale the broker's view of grants.json may be. Another process's change (another session's
 * "always", `acp-broker grants revoke`) is seen within this window; deciding does not stat the file
 * every time.
 */
const GRANTS_FRESH_MS = 100;

/** The user's grants; a broken store is reported (stderr and audit) and the broker goes on without it. */
export async function openGrantStore(dirs: BrokerDirs, audit: AuditSink, stderr: (s: string) => void): Promise<FileGrantStore> {
  const { FileGrantStore } = await import('../grants/file-store.js');
  return new FileGrantStore({
    dir: dirs.config,
    freshForMs: GRANTS_FRESH_MS,
    onProblem: (problem) => {
      const backup = problem.backupPath ? ` It was moved aside to ${problem.backupPath}.` : '';
      stderr(`acp-broker: WARNING: the grants store has a problem (${problem.code}): ${problem.message}.${backup} Continuing without remembered grants.\n`);
      audit.write(problemEvent({ time: new Date(), reason: problem.code, message: `${problem.message}${backup}` }));
    },
  });
}
