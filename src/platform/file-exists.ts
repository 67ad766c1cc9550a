import { lstatSync } from 'node:fs';
import type { FileExists } from '../facts/argument-facts.js';

/**
 * Whether a path names anything on disk (a dangling link counts: it names a file). No cache: the
 * agent may create the file between two requests.
 */
export function diskFileExists(): FileExists {
  return (absolutePath) => {
    try {
      return lstatSync(absolutePath, { throwIfNoEntry: false }) !== undefined;
    } catch {
      return false; // not a directory on the way, too long, no permission: nothing a program could open either
    }
  };
}
