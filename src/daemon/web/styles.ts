/** The inbox's stylesheet, served as /inbox.css: system fonts, light and dark, one column on a phone. */
export const STYLES = String.raw`
:root {
  --bg: #f6f7f9; --card: #fff; --text: #1b1f24; --muted: #5b6470; --line: #d8dde3;
  --allow: #1f7a3d; --allow-bg: #e7f5ec; --reject: #b3261e; --reject-bg: #fbeaea; --focus: #1a5fd0;
  --code: #eef1f4; --add: #e6f6ea; --del: #fdecec;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #14171b; --card: #1d2126; --text: #e6e9ed; --muted: #9aa4b0; --line: #343a42;
    --allow: #5fcf86; --allow-bg: #173322; --reject: #ff8a80; --reject-bg: #3a1c1c; --focus: #7fb0ff;
    --code: #262b31; --add: #173322; --del: #3a1c1c;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 16px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
main { max-width: 60rem; margin: 0 auto; padding: 0 1rem 3rem; }
.bar { display: flex; align-items: baseline; justify-content: space-between; gap: 1rem; max-width: 60rem; margin: 0 auto; padding: .75rem 1rem; }
h1 { font-size: 1.25rem; margin: 0; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: 1.05rem; margin: 0 0 .5rem; }
.connection { margin: 0; font-size: .85rem; color: var(--muted); }
.connection.live::before { content: "● "; color: var(--allow); }
.connection.down::before { content: "● "; color: var(--reject); }
.count { display: inline-block; min-width: 1.6em; padding: 0 .4em; border-radius: 1em; background: var(--line); text-align: center; font-size: .9rem; }
.hint { color: var(--muted); font-size: .85rem; margin: 0 0 .75rem; }
kbd { font: inherit; border: 1px solid var(--line); border-radius: 3px; padding: 0 .3em; }
.empty { color: var(--muted); }
.settled-note { color: var(--muted); font-size: .9rem; border-left: 4px solid var(--line); padding: .25rem .75rem; overflow-wrap: anywhere; }
.notice { border-left: 4px solid var(--reject); background: var(--reject-bg); padding: .5rem .75rem; }
.approval { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 1rem; margin: 0 0 1rem; }
.title { margin: 0 0 .5rem; font-weight: 600; overflow-wrap: anywhere; }
.mono, pre, code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .9rem; }
pre { background: var(--code); border-radius: 6px; padding: .5rem .75rem; margin: .5rem 0; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
.paths { list-style: none; padding: 0; margin: .5rem 0; }
.paths li { overflow-wrap: anywhere; }
.access { display: inline-block; min-width: 4.5em; color: var(--muted); font-size: .85rem; margin-right: .5em; }
.reason { margin: .5rem 0; }
.scroll { overflow-x: auto; }
.items { border-collapse: collapse; width: 100%; margin: .5rem 0; font-size: .9rem; }
.items th { white-space: nowrap; }
.items th, .items td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: anywhere; }
.verdict.allow { color: var(--allow); } .verdict.deny { color: var(--reject); } .verdict.ask { font-weight: 600; }
.diff summary { cursor: pointer; font-family: ui-monospace, monospace; font-size: .9rem; overflow-wrap: anywhere; }
.diff-body { white-space: pre-wrap; }
.line { display: block; }
.line.add { background: var(--add); } .line.del { background: var(--del); } .line.gap { color: var(--muted); }
.meta { display: grid; grid-template-columns: max-content 1fr; gap: .15rem .75rem; margin: .75rem 0; font-size: .9rem; }
.meta dt { color: var(--muted); }
.meta dd { margin: 0; overflow-wrap: anywhere; }
.countdown { font-variant-numeric: tabular-nums; }
.options { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: .75rem; }
.option-cell { display: flex; flex-direction: column; max-width: 100%; }
.option { font: inherit; font-weight: 600; min-height: 2.75rem; padding: .5rem 1rem; border-radius: 6px; border: 2px solid var(--line); background: var(--card); color: var(--text); cursor: pointer; }
.option.allow { border-color: var(--allow); color: var(--allow); background: var(--allow-bg); }
.option.reject { border-color: var(--reject); color: var(--reject); background: var(--reject-bg); }
.option.always { border-style: dashed; }
.option:disabled { opacity: .5; cursor: default; }
button:focus-visible, h2:focus-visible, h3:focus-visible, summary:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.covers { margin: .25rem 0 0; font-size: .8rem; color: var(--muted); width: 0; min-width: 100%; overflow-wrap: anywhere; }
.status { margin: .5rem 0 0; font-size: .9rem; color: var(--muted); }
.status:empty { display: none; }
.recent { list-style: none; padding: 0; margin: 0; }
.decision { border-bottom: 1px solid var(--line); padding: .5rem 0; }
.decision-top { display: flex; flex-wrap: wrap; gap: .25rem .75rem; align-items: baseline; font-size: .9rem; }
.when, .by { color: var(--muted); }
.badge { font-weight: 700; text-transform: uppercase; font-size: .75rem; padding: .05rem .4rem; border-radius: 4px; background: var(--line); }
.badge.allow { background: var(--allow-bg); color: var(--allow); } .badge.deny { background: var(--reject-bg); color: var(--reject); }
.what { margin-top: .2rem; overflow-wrap: anywhere; }
.why, .grants { color: var(--muted); font-size: .9rem; }
@media (max-width: 32rem) {
  body { font-size: 15px; }
  main, .bar { padding-left: .6rem; padding-right: .6rem; }
  .approval { padding: .75rem; }
  .options { flex-direction: column; }
  .option-cell, .option { width: 100%; }
}
`;
