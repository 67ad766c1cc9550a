/** The ACP v1 shapes the broker reads or writes. Unknown fields are always preserved by forwarding raw lines. */
export const ACP = {
  initialize: 'initialize',
  sessionNew: 'session/new',
  sessionLoad: 'session/load',
  sessionResume: 'session/resume',
  sessionCancel: 'session/cancel',
  sessionClose: 'session/close',
  sessionPrompt: 'session/prompt',
  sessionUpdate: 'session/update',
  requestPermission: 'session/request_permission',
  fsRead: 'fs/read_text_file',
  fsWrite: 'fs/write_text_file',
  terminalCreate: 'terminal/create',
  cancelRequest: '$/cancel_request',
} as const;

/**
 * Agent→client requests the broker answers or refuses itself: never relayed unchecked, not even
 * when a line naming one cannot be read (see intercepted-lines.ts).
 */
export const INTERCEPTED_METHODS: ReadonlySet<string> = new Set([ACP.requestPermission, ACP.fsRead, ACP.fsWrite, ACP.terminalCreate]);

export type PermissionOptionKind = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';

export interface PermissionOption {
  readonly optionId: string;
  readonly name: string;
  readonly kind: string;
  readonly _meta?: unknown;
}

export type PermissionOutcome =
  | { readonly outcome: 'selected'; readonly optionId: string }
  | { readonly outcome: 'cancelled' };

export function isPermissionOption(value: unknown): value is PermissionOption {
  if (value === null || typeof value !== 'object') return false;
  const o = value as Record<string, unknown>;
  return typeof o.optionId === 'string' && typeof o.kind === 'string' && (o.name === undefined || typeof o.name === 'string');
}
