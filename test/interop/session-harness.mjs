// A free-form session with one real agent (directly, or wrapped by the broker with a given policy),
// for the mode tests: the test drives the ACP conversation itself (session/new, session/set_mode,
// prompts) through `ctx`; the harness owns the temp folders, the fake model, the shutdown, orphan
// reaping, the audit log and the logs in .cache/interop-logs/.
import { randomUUID } from "node:crypto";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AcpClient } from "./acp-client.mjs";
import { EXTENSION_METHODS, launchSpec } from "./agents.mjs";
import { startFakeModel } from "./fake-model.mjs";
import { BROKER_MAIN, LOG_DIR, reapMarkedProcesses } from "./harness.mjs";

/**
 * @typedef {{label: string, agent: string, policyFile?: string, approvalMode?: string | null,
 *            timeoutMs?: number, root?: string, initialize?: boolean, escalate?: boolean,
 *            brokerHome?: string}} SessionRun
 *   policyFile: run through the broker (`run --policy <file> --non-interactive --audit …`);
 *   absent: talk to the agent directly. approvalMode: see launchSpec (qwen-code only).
 *   escalate: the broker runs without `--non-interactive` (an `ask` is escalated to the editor and
 *   to a running approvals daemon) and the client never answers a permission request.
 *   brokerHome: the broker's ACP_BROKER_HOME (default: a folder under root), e.g. a running daemon's.
 *   root: a folder to reuse (the agent's HOME and project, so a later run can reopen a session);
 *   the caller removes it. initialize: false = the test sends `initialize` itself.
 */

/**
 * @template T
 * @param {SessionRun} run
 * @param {(ctx: any) => Promise<T>} drive
 */
export async function withAgentSession(run, drive) {
  const timeoutMs = run.timeoutMs ?? 60_000;
  const keep = !!process.env.ACP_INTEROP_KEEP;
  const t0 = Date.now();
  const root = run.root ?? mkdtempSync(join(tmpdir(), `acp-interop-${run.agent}-`));
  const project = join(root, "project");
  mkdirSync(project, { recursive: true });
  // a repository with a test script, so that `git status` and `npm test` in it just work
  spawnSync("git", ["init", "-q", project], { stdio: "ignore" });
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "interop-project", private: true, scripts: { test: "echo tests pass" } }, null, 2) + "\n");
  const auditFile = join(root, `audit-${run.label}.jsonl`);
  const marker = `${run.label}-${randomUUID()}`;
  const fake = await startFakeModel({ log: (l) => process.env.ACP_INTEROP_VERBOSE && process.stderr.write(`[fake-model ${run.label}] ${l}\n`) });
  /** @type {AcpClient | null} */
  let client = null;
  const out = { value: /** @type {T | undefined} */ (undefined), error: null, audit: [], auditError: null, orphans: [], fakeOutbound: fake.outbound, fakeUnknown: fake.unknown, stderr: "", transcriptFile: "", durationMs: 0, client: /** @type {any} */ (null) };
  try {
    const spec = launchSpec(run.agent, { fakeUrl: fake.url, root, ...(run.approvalMode !== undefined ? { approvalMode: run.approvalMode } : {}) });
    let command = spec.command;
    let args = spec.args;
    const env = { ...spec.env, ACP_INTEROP_RUN: marker };
    if (run.policyFile) {
      env.ACP_BROKER_HOME = run.brokerHome ?? join(root, `broker-home-${run.label}`);
      mkdirSync(env.ACP_BROKER_HOME, { recursive: true });
      command = process.execPath;
      args = [BROKER_MAIN, "run", "--policy", run.policyFile, ...(run.escalate ? [] : ["--non-interactive"]), "--audit", auditFile, "--", spec.command, ...spec.args];
    }
    const permission = !run.policyFile ? "deny" : run.escalate ? "never" : "unexpected";
    client = new AcpClient({ command, args, env, cwd: project, name: run.label, permission, echoStderr: !!process.env.ACP_INTEROP_VERBOSE, extensionMethods: EXTENSION_METHODS[run.agent] ?? [] });
    out.client = client;
    client.note({ event: "session-run", ...run, command, args });
    client.start();
    const c = client;
    const ctx = {
      client: c,
      project,
      fake,
      async initialize() {
        return c.request("initialize", {
          protocolVersion: 1,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "acp-interop-harness", title: "ACP interop harness", version: "0.1.0" },
        }, { timeoutMs });
      },
      newSession() {
        return c.request("session/new", { cwd: project, mcpServers: [] }, { timeoutMs });
      },
      /** Sends a request; resolves {result} or {error} (the JSON-RPC error object). */
      async call(method, params) {
        try {
          return { result: await c.request(method, params, { timeoutMs }) };
        } catch (err) {
          if (err?.rpcError) return { error: err.rpcError };
          throw err;
        }
      },
      /**
       * One prompt turn in which the fake model asks for `command` once. Resolves
       * {stopReason, callId, toolCall}: callId = the id the fake model handed out (null if it never did).
       */
      /** The prompt text that makes the fake model ask for `command`. */
      shellPrompt(command) {
        const script = { tool: "shell", command, description: "Run the requested command" };
        return `Please run: ${command}\nfake-model-script: ${JSON.stringify(script)}`;
      },
      async promptShell(sessionId, command) {
        const before = fake.requests.length;
        const text = ctx.shellPrompt(command);
        const result = await c.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }, { timeoutMs });
        const callId = fake.requests.slice(before).map((r) => r.callId).find(Boolean) ?? null;
        return { stopReason: result?.stopReason ?? null, callId };
      },
    };
    if (run.initialize !== false) await ctx.initialize();
    out.value = await drive(ctx);
  } catch (err) {
    out.error = String(err?.message ?? err);
  } finally {
    if (client) {
      // through the broker: time for its own shutdown (stdin EOF, then its grace period, then the agent's group)
      await client.close({ graceMs: 300, termMs: run.policyFile ? 10_000 : 3000 });
      out.stderr = client.stderr;
    }
    out.orphans = await reapMarkedProcesses(marker);
    if (run.policyFile) {
      if (existsSync(auditFile)) {
        for (const line of readFileSync(auditFile, "utf8").split("\n")) {
          if (!line.trim()) continue;
          try {
            out.audit.push(JSON.parse(line));
          } catch {
            out.auditError = `unparseable audit line: ${line.slice(0, 200)}`;
          }
        }
      } else out.auditError = `no audit file at ${auditFile}`;
    }
    mkdirSync(LOG_DIR, { recursive: true });
    out.transcriptFile = join(LOG_DIR, `${run.label}.jsonl`);
    if (client) client.writeTranscript(out.transcriptFile);
    if (out.audit.length) writeFileSync(join(LOG_DIR, `${run.label}.audit.jsonl`), out.audit.map((e) => JSON.stringify(e)).join("\n") + "\n");
    writeFileSync(join(LOG_DIR, `${run.label}.stderr.txt`), out.stderr);
    await fake.close();
    if (!keep && !run.root) rmSync(root, { recursive: true, force: true });
    out.durationMs = Date.now() - t0;
  }
  return out;
}

/** The mode ids a session/new result offers: `modes.availableModes` and the mode config option. */
export function offeredModes(result) {
  const modes = result?.modes;
  const option = (result?.configOptions ?? []).find((o) => o?.category === "mode");
  return {
    current: modes?.currentModeId ?? null,
    available: (modes?.availableModes ?? []).map((m) => m.id),
    configOptionId: option?.id ?? null,
    configCurrent: option?.currentValue ?? null,
    configValues: option ? (option.options ?? []).map((o) => o.value) : null,
  };
}
