import { createHash } from 'node:crypto';

/**
 * A repository's own policy (`.acp-broker/policy.yaml`) is written by whoever controls the
 * repository — possibly the agent itself. Its allow rules count only once the user has trusted
 * that exact content; any change makes it untrusted again.
 */
export interface TrustRecords {
  /** Absolute policy file path → sha256 of the content the user trusted. */
  readonly trusted: Readonly<Record<string, string>>;
}

export function contentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export type TrustStatus = 'trusted' | 'untrusted' | 'changed';

export function trustStatus(records: TrustRecords, file: string, text: string): TrustStatus {
  const hash = records.trusted[file];
  if (hash === undefined) return 'untrusted';
  return hash === contentHash(text) ? 'trusted' : 'changed';
}

export const PROJECT_POLICY_PATH = ['.acp-broker', 'policy.yaml'] as const;
