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

/** ACP v1's option kinds (a closed enum in v1; v2 opens it to values not listed here). */
export const PERMISSION_OPTION_KINDS = ['allow_once', 'allow_always', 'reject_once', 'reject_always'] as const;
export type PermissionOptionKind = (typeof PERMISSION_OPTION_KINDS)[number];

/** An option of a kind the broker knows: the only options it ever chooses or offers itself. */
export interface PermissionOption {
  readonly optionId: string;
  readonly name: string;
  readonly kind: PermissionOptionKind;
  readonly _meta?: unknown;
}

/**
 * An option as an agent sent it, of any kind. One of a kind not listed above (a newer or
 * non-conforming agent) is still shown to the human and relayed as sent, but never chosen by the
 * broker: its meaning is unknown, so it is neither an allow nor a reject.
 */
export type OfferedOption = Omit<PermissionOption, 'kind'> & { readonly kind: string };

export type PermissionOutcome =
  | { readonly outcome: 'selected'; readonly optionId: string }
  | { readonly outcome: 'cancelled' };

/** An option of any string kind: what the broker keeps of an agent's options. */
export function isOfferedOption(value: unknown): value is OfferedOption {
  if (value === null || typeof value !== 'object') return false;
  const o = value as Record<string, unknown>;
  return typeof o.optionId === 'string' && typeof o.kind === 'string' && (o.name === undefined || typeof o.name === 'string');
}

function isPermissionOptionKind(kind: unknown): kind is PermissionOptionKind {
  return (PERMISSION_OPTION_KINDS as readonly unknown[]).includes(kind);
}

/** An option the broker may choose: offered, and of a kind it knows. */
export function isPermissionOption(value: unknown): value is PermissionOption {
  return isOfferedOption(value) && isPermissionOptionKind(value.kind);
}

/** The first offered option of `kind`; an option of an unknown kind is never returned. */
export function optionOfKind(options: readonly OfferedOption[], kind: PermissionOptionKind): PermissionOption | undefined {
  return options.find((o): o is PermissionOption => o.kind === kind);
}
