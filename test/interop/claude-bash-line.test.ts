// src/facts/claude-bash-line.ts ports what Claude Code's Bash tool evaluates in place of a command.
// This checks the port against the real code: the functions are cut out of the cached
// claude-agent-acp 0.23.1 bundle (cli.js of @anthropic-ai/claude-agent-sdk) and run on random lines.
//
// Run: npx vitest run test/interop/claude-bash-line.test.ts (skipped while the agent is not installed).
import fc from "fast-check";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { claudeBashLine } from "../../src/facts/claude-bash-line.js";
import { agentDir, isInstalled } from "./install-agents.mjs";

const CLI = join(agentDir("claude-agent-acp"), "node_modules", "@anthropic-ai", "claude-agent-sdk", "cli.js");

/** The bundle's shell-quote and command builder (minified names of 0.23.1), as one function. */
function claudesOwn(): ((command: string) => string) | undefined {
  if (!isInstalled("claude-agent-acp")) return undefined;
  if (!existsSync(CLI)) throw new Error(`claude-agent-acp is installed but ${CLI} is missing`);
  const cli = readFileSync(CLI, "utf8");
  const cut = (from: string, to: string) => {
    const start = cli.indexOf(from);
    const end = cli.indexOf(to, start);
    return start === -1 || end === -1 ? undefined : cli.slice(start, end);
  };
  const shellQuote = cut("var ka7=u((Y0w,Ta7)=>{", "function az(A,q){");
  const builder = cut("function HL1(A){", "var U_q=y(");
  // The bundle is installed but its code is no longer where this expects: that must fail, not skip.
  if (shellQuote === undefined || builder === undefined) throw new Error("the claude-agent-acp 0.23.1 cli.js no longer holds the functions this test cuts out");
  const source = [
    "var y = (f) => (f(), undefined); function VM() {}",
    "var u = (cb) => { let mod; return () => { if (!mod) { mod = { exports: {} }; cb(mod.exports, mod); } return mod.exports; }; };",
    shellQuote, "var V06 = kD8();",
    "function Xq(A) { return V06.quote(A); }",
    "function az(A, q) { try { return { success: true, tokens: V06.parse(A, q) }; } catch { return { success: false }; } }",
    builder,
    // As the Bash tool composes them: P = m_q(command), then x_q, then g_q for a pipeline.
    "return (Y) => { let P = m_q(Y), X = u_q(P), D = x_q(P, X); if (P.includes('|') && X) D = g_q(P); return { P, D }; };",
  ].join("\n");
  const build = new Function(source) as () => (command: string) => { P: string; D: string };
  const run = build();
  return (command) => {
    const { P, D } = run(command);
    // A pipeline rewritten: D is it single-quoted for eval; anything else evaluates P itself.
    const rewritten = /^'((?:[^']|'"'"')*)'$/.exec(D);
    return rewritten && !D.endsWith(" < /dev/null") ? rewritten[1]!.replace(/'"'"'/g, "'") : P;
  };
}

const own = claudesOwn();

describe.runIf(own !== undefined)("claude-bash-line.ts against Claude Code's own code", () => {
  test("the same line is evaluated for random lines of shell's special characters", () => {
    const piece = fc.constantFrom("a", "b", " ", "|", ";", "&", '"', "'", "\\", "*", "?", "#", "$", "1", ">", "<", "(", ")", "\n", "x=", "2>&1", "nul", "{", "}", "!", ".", "/", "\t", "for ", "`", "$(", "<<");
    fc.assert(fc.property(fc.array(piece, { maxLength: 24 }), (parts) => {
      const line = parts.join("");
      expect(claudeBashLine(line) ?? line).toBe(own!(line));
    }), { numRuns: 50_000 });
  });

  test("the escape it was written for", () => {
    const line = 'echo x";cp .env leaked.txt;"* | cat';
    expect(own!(line)).toBe("echo x;cp .env leaked.txt;* < /dev/null | cat");
    expect(claudeBashLine(line)).toBe("echo x;cp .env leaked.txt;* < /dev/null | cat");
  });
});
