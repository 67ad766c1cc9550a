import { SUBCOMMANDS } from './args.js';
import { COMMAND_HELP, GLOBAL_OPTIONS, type CommandHelp, type OptionHelp } from './help-texts.js';

/** Bold headings, only for a terminal and never with NO_COLOR (https://no-color.org: set and not empty). */
export interface Style { readonly heading: (s: string) => string }

export function styleFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Style {
  const colour = stream.isTTY === true && !(env.NO_COLOR !== undefined && env.NO_COLOR !== '') && env.TERM !== 'dumb';
  return { heading: colour ? (s) => `\u001b[1m${s}\u001b[22m` : (s) => s };
}

const PLAIN: Style = { heading: (s) => s };

export function isCommand(name: string): name is keyof typeof COMMAND_HELP {
  return Object.hasOwn(COMMAND_HELP, name);
}

function optionLabel(option: OptionHelp): string {
  return option.value ? `${option.flag} ${option.value.name}` : option.flag;
}

function optionLines(options: readonly OptionHelp[]): string[] {
  const width = Math.max(...options.map((o) => optionLabel(o).length));
  return options.map((o) => `  ${optionLabel(o).padEnd(width)}  ${o.text}`);
}

function usageLines(help: CommandHelp): string[] {
  return help.usage.map((line, i) => `${i === 0 ? 'usage: ' : '       '}acp-broker ${line}`);
}

/** `acp-broker help CMD` / `CMD --help`: the command's usage, options, examples and exit codes. */
export function commandHelp(name: keyof typeof COMMAND_HELP, style: Style = PLAIN): string {
  const help = COMMAND_HELP[name];
  const lines = [...usageLines(help), '', help.summary];
  if (help.details) lines.push('', ...help.details);
  if (help.options.length) lines.push('', style.heading('Options:'), ...optionLines(help.options));
  lines.push('', style.heading('Examples:'), ...help.examples.map((e) => `  ${e}`));
  lines.push('', `${style.heading('Exit codes:')} ${help.exitCodes}`);
  return `${lines.join('\n')}\n`;
}

/** What a usage error adds after its one line: the command's synopsis and where its help is. */
export function shortUsage(name: string): string {
  if (!isCommand(name)) return 'usage: acp-broker help\n';
  return `${usageLines(COMMAND_HELP[name]).join('\n')}\n(\`acp-broker help ${name}\` shows its options and examples)\n`;
}

/** `acp-broker --help`: every command with its one-line summary. */
export function overview(style: Style = PLAIN): string {
  const width = Math.max(...SUBCOMMANDS.map((c) => c.length));
  const lines = [
    'acp-broker — decides what AI coding agents may do (Agent Client Protocol middleware)',
    '',
    'usage: acp-broker [run] [options] -- AGENT_COMMAND [ARGS...]',
    '       acp-broker COMMAND [options]',
    '',
    style.heading('Commands:'),
    ...SUBCOMMANDS.map((c) => `  ${c.padEnd(width)}  ${COMMAND_HELP[c].summary}`),
    '',
    style.heading('Options:'),
    ...optionLines(GLOBAL_OPTIONS),
    '',
    style.heading('Environment:'),
    '  ACP_BROKER_HOME  one directory for config, grants and the audit log',
    '  NO_COLOR         no colour in help, even on a terminal',
    '',
    '`acp-broker help COMMAND` (or `acp-broker COMMAND --help`) shows a command\'s options, examples and exit codes.',
  ];
  return `${lines.join('\n')}\n`;
}
