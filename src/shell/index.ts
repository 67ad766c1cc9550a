/**
 * Shell analysis: what a shell line would actually run (every simple command, redirect target and
 * reason it cannot be resolved statically), and matching of policy `command` patterns.
 * Decisions and limits are documented in ./README.md.
 */
export type { CommandAnalysis, Redirection, ShellAnalyzer, ShellContext, SimpleCommand } from './types.js';
export { createShellAnalyzer } from './analyze.js';
export { commandMatches, parseCommandPattern, type CommandPattern } from './command-pattern.js';
