import { describe, expect, it } from 'vitest';
import { escapeData, escapeProperty, MAX_WARNINGS, refusalAnnotations, workflowCommand } from '../../../src/exec/output/workflow-commands.js';
import { denied, fellBack } from './sample-events.js';

// GitHub workflow commands, escaped as the runner unescapes them (actions/runner ActionCommand.cs).
describe('GitHub workflow commands', () => {
  it('escapes % first, then CR and LF in the message; also : and , in a property', () => {
    expect(escapeData('100%\r\nA: b, c')).toBe('100%25%0D%0AA: b, c');
    expect(escapeProperty('100%\r\nA: b, c')).toBe('100%25%0D%0AA%3A b%2C c');
    // An already escaped-looking sequence survives a round trip: %0A stays literal.
    expect(escapeData('%0A')).toBe('%250A');
  });

  it('builds ::name key=value,key=value::message and leaves empty properties out', () => {
    expect(workflowCommand('warning', { title: 'a:b', file: '' }, 'x')).toBe('::warning title=a%3Ab::x');
    expect(workflowCommand('warning', {}, 'x')).toBe('::warning::x');
    expect(workflowCommand('notice', { title: 'one', line: '3' }, 'm')).toBe('::notice title=one,line=3::m');
  });

  it('one warning per denied or fallen-back request, one line each whatever the agent wrote', () => {
    expect(refusalAnnotations([denied('git push --force\necho ::error::fake'), fellBack('/r/package.json')])).toEqual([
      '::warning title=acp-broker%3A denied::DENY git push --force%0Aecho ::error::fake [rule destructive]: rule destructive denies git push --force%0Aecho ::error::fake',
      '::warning title=acp-broker%3A fell back::DENY Write /r/package.json [rule edits asked, non-interactive fallback (deny)]: rule edits asks before writing /r/package.json',
    ]);
  });

  it('GitHub shows 10 warnings a step: the rest are counted in one notice', () => {
    const lines = refusalAnnotations(Array.from({ length: 13 }, (_, i) => denied(`cmd${i}`)));
    expect(lines).toHaveLength(MAX_WARNINGS + 1);
    expect(lines.at(-1)).toBe('::notice title=acp-broker::3 more refused request(s): see the report');
  });
});
