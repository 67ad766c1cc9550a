/**
 * What to tell the user when the agent wants to be logged in: its auth methods, and the API key
 * variable its kind of agent usually reads (guessed from the command line: a hint, never a check).
 */
import type { AuthMethod } from '@agentclientprotocol/sdk';

const KEY_BY_AGENT: readonly { readonly pattern: RegExp; readonly variable: string }[] = [
  { pattern: /claude/i, variable: 'ANTHROPIC_API_KEY' },
  { pattern: /gemini/i, variable: 'GEMINI_API_KEY' },
  { pattern: /codex|qwen/i, variable: 'OPENAI_API_KEY' },
];

export function authMessage(agentCommand: readonly string[], methods: readonly AuthMethod[]): string {
  const words = agentCommand.join(' ');
  const variable = KEY_BY_AGENT.find((k) => k.pattern.test(words))?.variable;
  const listed = methods.map((m) => `${m.id} (${m.name}${m.description ? `: ${m.description}` : ''})`).join('; ');
  return `the agent needs authentication, which exec cannot do for it${listed ? ` — its methods: ${listed}` : ''}. `
    + (variable ? `Set ${variable} in the environment (or log the agent in once outside exec) and run again.`
      : 'Give it its API key in the environment (or log it in once outside exec) and run again.');
}
