import { schemaLineFor } from '../policy/schema-ref.js';

/**
 * What `acp-broker init` writes: a policy that adds to the bundled default, with the rules most
 * people add first shown commented out, under the schema line editors complete its keys from.
 * Every example in it is checked by test/cli/init.test.ts.
 */
export function starterPolicy(layer: 'user' | 'project', fileDir: string): string {
  const intro = layer === 'user'
    ? ['# Your acp-broker policy: it applies to every project, on top of the bundled default.']
    : ['# This project\'s acp-broker policy. It only counts once you trust it (`acp-broker trust DIR`),',
      '# and then again only after any change is trusted; until then it may only tighten.'];
  return `${[
    // The JSON Schema for editors, as a path that holds from where the file is written.
    schemaLineFor(fileDir),
    ...intro,
    '# `extends: [default]` keeps the bundled default (project reads and the usual tests allowed,',
    '# secrets and destructive commands denied, everything else asks); your rules add to it, and',
    '# for every part of a call the strictest answer wins.',
    '#',
    '# Try a command against it:   acp-broker check -- npm test',
    '# See every file in force:    acp-broker policy show',
    'version: 1',
    'extends: [default]',
    '',
    '# Uncomment `rules:` and the rules you want:',
    '# rules:',
    '#   # Tests without a dialog',
    '#   - id: my-tests',
    '#     decision: allow',
    '#     reason: The test suites only run code of this project',
    '#     match:',
    '#       kind: execute',
    '#       command: ["npm test", "npm run test", "pytest", "cargo test", "go test"]',
    '#     examples:',
    '#       match: [{ command: "pytest -q tests/" }]',
    '#       not_match: [{ command: "npm publish" }]',
    '#',
    '#   # Git that only reads',
    '#   - id: git-read-only',
    '#     decision: allow',
    '#     match:',
    '#       kind: execute',
    '#       command: ["git status", "git diff", "git log", "git show"]',
    '#     examples:',
    '#       match: [{ command: "git log --oneline -5" }]',
    '#       not_match: [{ command: "git push" }]',
    '#',
    '#   # This project\'s own build',
    '#   - id: build',
    '#     decision: allow',
    '#     match:',
    '#       kind: execute',
    '#       command: ["npm run build", "make"]',
    '#     examples:',
    '#       match: [{ command: "make -j4" }]',
  ].join('\n')}\n`;
}
