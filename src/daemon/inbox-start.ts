/**
 * The daemon's web inbox (src/daemon/web/), started unless `--no-web`: it shows the registry's
 * approvals and the recent decisions of the default audit log.
 */
import { join } from 'node:path';
import { brokerDirs } from '../platform/dirs.js';
import type { ApprovalsView } from './approvals-view.js';

export interface RunningInbox {
  /** The address to open, with its token. */
  readonly url: string;
  close(): unknown;
}

export type InboxStart = { readonly type: 'running'; readonly inbox: RunningInbox } | { readonly type: 'failed'; readonly message: string };

/** The audit log brokers write by default (`--audit` moves a broker's elsewhere). */
function defaultAuditLog(env: NodeJS.ProcessEnv = process.env): string {
  return join(brokerDirs(env).state, 'audit.jsonl');
}

export async function startWebInbox(view: ApprovalsView, port: number | undefined, log: (message: string) => void): Promise<InboxStart> {
  try {
    // Loaded only when the inbox is wanted: `--no-web` daemons never load the HTTP server.
    const { startInbox, recentDecisionsFrom } = await import('./web/index.js');
    const inbox = await startInbox({ view, ...(port !== undefined ? { port } : {}), recentDecisions: recentDecisionsFrom(defaultAuditLog()), log });
    return { type: 'running', inbox };
  } catch (error) {
    return { type: 'failed', message: (error as Error)?.message ?? String(error) };
  }
}

/** The inbox's address without its token: what a notification may show. */
export function publicAddress(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
