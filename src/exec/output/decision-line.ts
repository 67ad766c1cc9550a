import type { DecisionOutputEvent } from '../events.js';

/** What the decision was about, as a person reads it: the command, else the title, kind or method. */
export function decisionSubject(decision: DecisionOutputEvent): string {
  return decision.command ?? decision.title ?? decision.kind ?? decision.method;
}

/** Who decided: the rule, the grant, the fallback (and the rule that asked), a person's channel. */
export function decisionSource(decision: DecisionOutputEvent): string {
  const source = decision.source;
  const asked = decision.rule ? `rule ${decision.rule} asked, ` : '';
  switch (source.type) {
    case 'rule': return `rule ${decision.rule ?? source.ruleId}`;
    case 'grant': return `grant ${source.grantId}`;
    case 'fallback': return `${asked}non-interactive fallback (${source.fallback})`;
    case 'timeout': return `${asked}no answer in time, fallback (${source.fallback})`;
    case 'cancelled': return `cancelled by ${source.by}`;
    case 'error': return `error: ${source.message}`;
    case 'default': return 'policy default';
    case 'unresolvable': case 'switch_mode_guard': case 'client': case 'daemon': case 'desktop': case 'web': case 'terminal':
      return source.type;
    default: {
      const unknown: never = source;
      return String((unknown as { type: unknown }).type);
    }
  }
}

export interface LineStyle {
  readonly verdict: (verdict: string, text: string) => string;
  readonly dim: (text: string) => string;
}

export const PLAIN: LineStyle = { verdict: (_, text) => text, dim: (text) => text };

const SGR = { red: 31, green: 32, yellow: 33 } as const;
const paint = (code: number, text: string) => `\x1b[${code}m${text}\x1b[0m`;

/** ANSI colours: allow green, deny red, anything else (ask, cancelled) yellow; the reason dimmed. */
export const COLOUR: LineStyle = {
  verdict: (verdict, text) => paint(verdict === 'allow' ? SGR.green : verdict === 'deny' ? SGR.red : SGR.yellow, text),
  dim: (text) => paint(2, text),
};

/** The decision log's line (text mode, stderr): verdict, what, who decided, why. No newline. */
export function describeDecision(decision: DecisionOutputEvent, style: LineStyle = PLAIN): string {
  const verdict = style.verdict(decision.decision, decision.decision.toUpperCase().padEnd(9));
  const reason = decision.reason ? ` ${style.dim(oneLine(decision.reason))}` : '';
  return `acp-broker: ${verdict} ${oneLine(decisionSubject(decision))}  [${decisionSource(decision)}]${reason}`;
}

/**
 * A log line stays one line, and inert, whatever the agent put in a title or command: line breaks
 * become ⏎ and other control characters (terminal escapes) become �.
 */
export function oneLine(text: string): string {
  return text.replace(/\r\n|\r|\n/g, ' ⏎ ').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '\ufffd');
}
