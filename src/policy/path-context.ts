import type { PathContext } from './types.js';

// Its own module, free of minimatch: the relay evaluates without loading the pattern compiler.

/**
 * A PathContext whose canonicaliser asks the file system at most once per path and evaluation:
 * fresh for every call (the agent may change a link between two requests).
 */
export function pathContext(workspace: string, home: string, canonicalize?: (absolutePath: string) => string | { unresolvable: string }): PathContext {
  if (!canonicalize) return { workspace, home };
  let memo: Map<string, string> | undefined;
  return {
    workspace, home,
    canonicalize: (path) => {
      memo ??= new Map();
      let canonical = memo.get(path);
      if (canonical === undefined) {
        const resolved = canonicalize(path);
        canonical = typeof resolved === 'string' ? resolved : path;
        memo.set(path, canonical);
      }
      return canonical;
    },
  };
}
