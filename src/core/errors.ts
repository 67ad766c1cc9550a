/** Stable error codes; tests and callers match on these, never on message text. */
export type BrokerErrorCode =
  | 'usage'
  | 'bad_input'
  | 'policy_read'
  | 'policy_parse'
  | 'policy_schema'
  | 'policy_example'
  | 'spawn_failed'
  | 'audit_write'
  | 'store_corrupt'
  | 'store_io'
  | 'internal';

export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

export class BrokerError extends Error {
  readonly code: BrokerErrorCode;
  readonly location: SourceLocation | undefined;

  constructor(code: BrokerErrorCode, message: string, options: { location?: SourceLocation; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BrokerError';
    this.code = code;
    this.location = options.location;
  }
}

export function formatLocation(loc: SourceLocation): string {
  return `${loc.file}:${loc.line}:${loc.column}`;
}
