import { createShellAnalyzer, type CommandAnalysis, type ShellAnalyzer, type ShellContext } from '../../src/shell/index.js';

export const CONTEXT: ShellContext = { cwd: '/w', home: '/home/dev' };

let analyzer: Promise<ShellAnalyzer> | undefined;

export function sharedAnalyzer(): Promise<ShellAnalyzer> {
  analyzer ??= createShellAnalyzer();
  return analyzer;
}

export async function analyze(line: string, context: ShellContext = CONTEXT): Promise<CommandAnalysis> {
  return (await sharedAnalyzer()).analyze(line, context);
}

/** Each command's argv joined with spaces, in order: compact to assert on. */
export function argvs(analysis: CommandAnalysis): string[] {
  return analysis.commands.map((command) => command.argv.join(' '));
}

export async function argvsOf(line: string, context: ShellContext = CONTEXT): Promise<string[]> {
  return argvs(await analyze(line, context));
}
