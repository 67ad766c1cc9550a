import type { DecisionOutputEvent } from '../events.js';
import { decisionSource, decisionSubject } from './decision-line.js';
import { fellBack } from './tally.js';

// GitHub Actions workflow commands (`::name key=value,key=value::message`), escaped as the runner
// unescapes them (actions/runner ActionCommand.cs; the same as @actions/core's command.ts): '%' first,
// then CR and LF in the message; in a property also ':' and ',' (a ',' would split the properties and
// a ':' could end them early). The runner reads commands from a step's stdout and stderr alike.

export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** One command line, without its newline. Properties with an empty value are left out. */
export function workflowCommand(name: string, properties: Readonly<Record<string, string>>, message: string): string {
  const props = Object.entries(properties).filter(([, value]) => value !== '').map(([key, value]) => `${key}=${escapeProperty(value)}`);
  return `::${name}${props.length > 0 ? ` ${props.join(',')}` : ''}::${escapeData(message)}`;
}

/**
 * GitHub shows at most 10 warning annotations per step; more would vanish silently, so after
 * that many one notice says how many more the report lists.
 */
export const MAX_WARNINGS = 10;

/** A `::warning` per refused or fallen-back request, then a `::notice` for any beyond MAX_WARNINGS. */
export function refusalAnnotations(refusals: readonly DecisionOutputEvent[]): string[] {
  const lines = refusals.slice(0, MAX_WARNINGS).map((decision) => workflowCommand('warning', {
    title: fellBack(decision) ? 'acp-broker: fell back' : 'acp-broker: denied',
  }, `${decision.decision.toUpperCase()} ${decisionSubject(decision)} [${decisionSource(decision)}]${decision.reason ? `: ${decision.reason}` : ''}`));
  const more = refusals.length - MAX_WARNINGS;
  if (more > 0) lines.push(workflowCommand('notice', { title: 'acp-broker' }, `${more} more refused request(s): see the report`));
  return lines;
}

/**
 * Stops the runner from acting on workflow commands until the same token comes back: what the agent
 * writes (its text, a title echoed in a log line, its own stderr) cannot raise annotations or mask
 * values in the job while it runs. The token is random, so the agent cannot end the pause itself.
 */
export function stopCommands(token: string): string {
  return `::stop-commands::${token}`;
}

export function resumeCommands(token: string): string {
  return `::${token}::`;
}
