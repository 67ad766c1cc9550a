import { packagePath } from '../platform/dirs.js';

// TODO(issue 17): import the reference from src/policy/schema-ref.ts (the policy side of issue 17
// exports it there with the JSON Schema) and drop this constant.
/** Where editors find the policy JSON Schema: the copy shipped in the package. */
export const POLICY_SCHEMA_REF = packagePath('schema', 'policy.schema.json');

/**
 * What `acp-broker init` writes: a policy that adds to the bundled default, with the rules most
 * people add first shown commented out. Every example in it is checked by test/cli/init.test.ts.
 */
export function starterPolicy(layer: 'user' | 'project', schemaRef: string = POLICY_SCHEMA_REF): string {
  const intro = layer === 'user'
    ? ['# Your acp-broker policy: it applies to every project, on top of the bundled default.']
    : ['# This project\'s acp-broker policy. It only counts once you trust it (`acp-broker trust DIR`),',
      '# and then again only after any change is trusted; until then it may only tighten.'];
  return `${[
    `# yaml-language-server: $schema=${schemaRef}`,
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
