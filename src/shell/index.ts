export type { CommandAnalysis, Redirection, ShellAnalyzer, ShellContext, SimpleCommand } from './types.js';
export { createShellAnalyzer, type ShellAnalyzerOptions } from './analyze.js';
export {
  commandMatches,
  parseCommandPattern,
  type CommandMatchOptions,
  type CommandPattern,
} from './command-pattern.js';
