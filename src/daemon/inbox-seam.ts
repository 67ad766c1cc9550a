/**
 * SEAM (web inbox, issue 15 point 5): the web inbox lives in src/daemon/web/ and is built by another
 * change. Until both meet, it is loaded by a computed path so this module builds and runs without
 * it; once merged, this becomes a plain `import('./web/index.js')`.
 *
 * The path is resolved against this chunk's URL: both tsc's output (dist/daemon/) and the bundle
 * (dist/bin/) sit one level below dist/, where tsc emits dist/daemon/web/index.js.
 */
import type { ApprovalsView } from './approvals-view.js';

export interface RunningInbox {
  /** The address to open, with its token. */
  readonly url: string;
  close(): unknown;
}

interface InboxModule {
  startInbox(options: { view: ApprovalsView; port?: number | undefined; log?: (message: string) => void }): Promise<RunningInbox> | RunningInbox;
}

export type InboxStart = { readonly type: 'running'; readonly inbox: RunningInbox } | { readonly type: 'absent' } | { readonly type: 'failed'; readonly message: string };

export async function startWebInbox(view: ApprovalsView, port: number | undefined, log: (message: string) => void): Promise<InboxStart> {
  let module: Partial<InboxModule>;
  try {
    const specifier = new URL('../daemon/web/index.js', import.meta.url).href;
    module = (await import(specifier)) as Partial<InboxModule>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return { type: 'absent' };
    return { type: 'failed', message: (error as Error).message };
  }
  if (typeof module.startInbox !== 'function') return { type: 'absent' };
  try {
    return { type: 'running', inbox: await module.startInbox({ view, port, log }) };
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
