// src/facts/agent-shell-lines.ts models what gemini-cli runs in place of a shell command
// (`stripShellWrapper`). This checks it against the real code, cut out of the cached gemini-cli
// 0.61.0 bundle with the shell-quote it uses, on random commands: where the model says it is exact,
// it must give the very line gemini runs.
//
// Run: npx vitest run test/interop/gemini-shell-line.test.ts (skipped while the agent is not installed).
import fc from "fast-check";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { geminiStripped } from "../../src/facts/agent-shell-lines.js";
import { isInstalled, packageDir } from "./install-agents.mjs";

const CHUNK = join(packageDir("gemini-cli"), "bundle", "chunk-5FZXKDXH.js");

function geminisOwn(): ((command: string) => string) | undefined {
  if (!isInstalled("gemini-cli")) return undefined;
  if (!existsSync(CHUNK)) throw new Error(`gemini-cli is installed but ${CHUNK} is missing`);
  const bundle = readFileSync(CHUNK, "utf8");
  const quoteAt = bundle.indexOf("// node_modules/shell-quote/quote.js");
  const indexAt = bundle.indexOf("// node_modules/shell-quote/index.js");
  const indexEnd = bundle.indexOf("});", indexAt);
  const stripAt = bundle.indexOf("function stripShellWrapper(command) {");
  const stripEnd = bundle.indexOf("\n}\n", stripAt);
  // The bundle is installed but its code is no longer where this expects: that must fail, not skip.
  if ([quoteAt, indexAt, indexEnd, stripAt, stripEnd].includes(-1)) throw new Error("the gemini-cli 0.61.0 bundle no longer holds the functions this test cuts out");
  const source = [
    "var __commonJS = (cb, mod) => function __require() { return mod || (0, cb[Object.getOwnPropertyNames(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports; };",
    bundle.slice(quoteAt, indexEnd + 3),
    "var import_shell_quote = require_shell_quote();",
    bundle.slice(stripAt, stripEnd + 3),
    "return stripShellWrapper;",
  ].join("\n");
  return new Function(source)() as (command: string) => string;
}

const own = geminisOwn();

describe.runIf(own !== undefined)("the gemini-cli reading against gemini-cli's own code", () => {
  test("exact readings are the line gemini runs, for random wrapped and unwrapped commands", () => {
    const head = fc.constantFrom("", " ", "bash -c ", "/bin/sh -c ", "zsh -c  ", "BASH -c ", "sh -C ", "cmd.exe /c ", "pwsh -Command ", "bash -lc ");
    const piece = fc.constantFrom("a", " ", "'", '"', "\\", "$", "x", ";", "|", "`", "*", "\u00a0", "\t", "\n", "echo", "cat .env");
    let exact = 0;
    fc.assert(fc.property(head, fc.array(piece, { maxLength: 16 }), (h, parts) => {
      const command = h + parts.join("");
      const reading = geminiStripped(command);
      if (!reading.exact) return;
      exact++;
      expect(reading.line).toBe(own!(command));
    }), { numRuns: 50_000 });
    expect(exact).toBeGreaterThan(25_000);
  });

  test("the escape it was written for", () => {
    expect(own!("bash -c 'echo x' '; cat .env ; echo y'")).toBe("echo x' '; cat .env ; echo y");
    expect(geminiStripped("bash -c 'echo x' '; cat .env ; echo y'")).toEqual({ line: "echo x' '; cat .env ; echo y", exact: true });
  });
});
