import { layerPolicies, type CheckedSource, type Validated } from '../engine/pipeline.js';
import type { PolicyText } from '../engine/read-policy.js';
import type { Diagnostic } from '../policy/diagnostics.js';
import { restoreSnapshot, snapshotOf } from '../policy/snapshot.js';
import type { PolicyFile } from '../policy/types.js';
import type { CheckedPolicy } from './checked-policies.js';

/**
 * Known-good policies loaded without the YAML parser. Beside a validated content, the record of
 * known-good policies (checked-policies.ts) keeps what that content loaded to, as plain data
 * (policy/snapshot.ts), with the id of the broker build that loaded it (build-id.ts). A later start
 * of the same build on exactly that content (and exactly the same extended files) restores it: no
 * YAML library to load (25–40 ms), no parse (60–120 ms for a 20 KB policy, cold), no example to
 * check again (the same text and the same build check the same way). Anything else — another build,
 * no build id, another text, an extended file changed, a damaged or unrecognised snapshot — only
 * means parsing and checking again.
 *
 * Never for the managed layer: the record is the user's to write, and a managed policy is one the
 * user cannot loosen, so it is always read from its own file.
 */

/** The record entries for sources that validated: with their snapshot when `build` is known. */
export function recordsOf(checked: readonly CheckedSource[], build: string | undefined): CheckedPolicy[] {
  return checked.map((c) => {
    const entry = { file: c.file, text: c.text, extended: c.extended };
    if (build === undefined || c.layer === 'managed') return entry;
    const files = snapshotOf(c.files);
    return files ? { ...entry, loaded: { build, layer: c.layer, files, diagnostics: c.diagnostics } } : entry;
  });
}

/** Whether `texts` can ever be restored (no managed layer among them): else recording them is no use. */
export function restorable(texts: readonly PolicyText[]): boolean {
  return texts.every((t) => t.source.layer !== 'managed');
}

/**
 * The validation of `texts` as recorded in `entries` (one per text, from `CheckedPolicies.entriesFor`)
 * by this `build`; undefined unless every one restores.
 */
export function restoreValidated(texts: readonly PolicyText[], entries: readonly CheckedPolicy[], build: string | undefined): Validated | undefined {
  if (build === undefined || entries.length !== texts.length) return undefined;
  const checked: CheckedSource[] = [];
  for (const [i, t] of texts.entries()) {
    const entry = entries[i]!;
    const loaded = entry.loaded;
    const layer = t.source.layer;
    if (!restorable([t]) || !loaded || loaded.build !== build || loaded.layer !== layer) return undefined;
    if (entry.file !== t.source.file || entry.text !== t.text) return undefined;
    const files = restoreSnapshot(loaded.files);
    const diagnostics = warnings(loaded.diagnostics);
    if (!files || !diagnostics || !files.every((f) => sameLayer(f, layer))) return undefined;
    checked.push({ file: entry.file, text: entry.text, extended: entry.extended, layer, files, diagnostics });
  }
  const policies = layerPolicies(checked.flatMap((c) => c.files), checked.flatMap((c) => c.diagnostics), checked.flatMap((c) => c.extended));
  return { checked, policies };
}

function sameLayer(file: PolicyFile, layer: string): boolean {
  return file.layer === layer && file.rules.every((r) => r.layer === layer);
}

/** A known-good load's diagnostics: warnings only (an error would mean it was not good). */
function warnings(value: unknown): Diagnostic[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const ok = value.every((d) => typeof d === 'object' && d !== null && d.severity === 'warning' && typeof d.code === 'string'
    && typeof d.message === 'string' && typeof d.location === 'object' && d.location !== null);
  return ok ? (value as Diagnostic[]) : undefined;
}
