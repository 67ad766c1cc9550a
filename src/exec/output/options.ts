import { single, type ParsedArgs } from '../../cli/args.js';
import { BrokerError } from '../../core/errors.js';
import type { OutputOptions } from './output.js';

/** `--output-format text|json`, `--report FILE`, `--fail-on-deny`, `--quiet`; a bad format is a usage error. */
export function outputOptions(args: ParsedArgs): OutputOptions {
  const format = single(args, '--output-format') ?? 'text';
  if (format !== 'text' && format !== 'json') throw new BrokerError('usage', `--output-format must be text or json, not '${format}'`);
  return { format, reportPath: single(args, '--report'), failOnDeny: args.flags.has('--fail-on-deny'), quiet: args.flags.has('--quiet') };
}
