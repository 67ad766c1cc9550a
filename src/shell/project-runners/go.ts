import type { Check } from './options.js';

/** go: flags take one or two dashes and `=`; `-test.X` is X for `go test`. */
const GO_HAZARDS = new Set(['exec', 'toolexec', 'vettool', 'o', 'coverprofile', 'cpuprofile', 'memprofile', 'blockprofile', 'mutexprofile', 'trace', 'outputdir', 'modfile', 'overlay', 'pgo', 'c', 'ldflags', 'gccgoflags', 'compiler', 'asmflags', 'gcflags', 'fuzzcachedir', 'testlogfile', 'gocoverdir']);

export const go: Check = (args) => {
  for (const word of args) {
    if (!word.startsWith('-')) continue;
    const name = word.replace(/^--?/, '').split('=', 1)[0]!.replace(/^test\./, '').toLowerCase();
    if (GO_HAZARDS.has(name)) return `go ${word}: runs, loads or writes what the line chose`;
  }
  return undefined;
};
