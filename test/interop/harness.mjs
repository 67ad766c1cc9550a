// Runs one interop scenario: a real agent (directly, or wrapped by the broker) + the fake model,
// one prompt turn that makes the agent ask for one tool call, then inspects what happened.
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AcpClient, runPromptTurn } from "./acp-client.mjs";
import { EXTENSION_METHODS, launchSpec } from "./agents.mjs";
import { startFakeModel } from "./fake-model.mjs";
import { REPO_ROOT } from "./install-agents.mjs";

export const BROKER_MAIN = join(REPO_ROOT, "dist", "bin", "acp-broker.js");
export const LOG_DIR = join(REPO_ROOT, ".cache", "interop-logs");

export function brokerAvailable() {
  return existsSync(BROKER_MAIN);
}

export const SHELL_COMMAND = "echo hello > out.txt";
export const SHELL_FILE = "out.txt";
export const SHELL_CONTENT = "hello\n";
export const EDIT_FILE = "notes.txt";
export const EDIT_CONTENT = "hello from the fake model\n";

const ALL_KINDS = "[read, edit, execute, search, other, delete, move, fetch]";

/** The two policies used in broker mode. */
export function policyYaml(decision) {
  return [
    "version: 1",
    "default: ask",
    "non_interactive: deny",
    "rules:",
    `  - id: ${decision}-everything`,
    `    decision: ${decision}`,
    `    reason: interop test policy (${decision} everything)`,
    `    match: { kind: ${ALL_KINDS} }`,
    "",
  ].join("\n");
}

/**
 * @typedef {"claude-code-acp"|"gemini-cli"|"codex-acp"|"claude-agent-acp"|"qwen-code"} AgentName
 * @typedef {{agent: AgentName, action: "shell"|"edit", decision: "allow"|"deny", mode: "direct"|"broker",
 *            timeoutMs?: number, keep?: boolean, gracefulShutdownMs?: number}} Scenario
 */

/**
 * Runs one scenario end to end. Never throws for agent-side problems: they are in the result.
 * Whatever happens, the agent's processes are stopped, the fake model closed and the temp folder
 * removed (unless `keep`/ACP_INTEROP_KEEP).
 * @param {Scenario} sc
 */
export async function runScenario(sc) {
  const { agent, action, decision, mode } = sc;
  const timeoutMs = sc.timeoutMs ?? 60_000;
  const keep = sc.keep ?? !!process.env.ACP_INTEROP_KEEP;
  const label = `${agent}__${action}__${decision}__${mode}`;
  const t0 = Date.now();
  const root = mkdtempSync(join(tmpdir(), `acp-interop-${agent}-`));
  const project = join(root, "project");
  mkdirSync(project, { recursive: true });
  const file = join(project, action === "shell" ? SHELL_FILE : EDIT_FILE);
  const auditFile = join(root, "audit.jsonl");
  // Every process of this run inherits the marker: after the run we look for survivors by it.
  const marker = `${label}-${randomUUID()}`;
  const fakeLog = [];
  /** @type {any} */
  let fake = null;
  /** @type {AcpClient | null} */
  let client = null;
  try {
    const verbose = !!process.env.ACP_INTEROP_VERBOSE;
    fake = await startFakeModel({
      log: (l) => {
        fakeLog.push(l);
        // refused outbound attempts are asserted on by the test; print them only when verbose
        if (verbose || !l.startsWith("blocked outbound")) process.stderr.write(`[fake-model ${label}] ${l}\n`);
      },
    });
    fake.setScript(
      action === "shell"
        ? { tool: "shell", command: SHELL_COMMAND, description: "Write hello to out.txt" }
        : { tool: "edit", path: file, content: EDIT_CONTENT },
    );
    const text = action === "shell" ? `Please run: ${SHELL_COMMAND}` : `Please create ${EDIT_FILE}`;

    const spec = launchSpec(agent, { fakeUrl: fake.url, root });
    let command = spec.command;
    let args = spec.args;
    const env = { ...spec.env, ACP_INTEROP_RUN: marker };
    if (mode === "broker") {
      const policyFile = join(root, "policy.yaml");
      writeFileSync(policyFile, policyYaml(decision));
      const brokerHome = join(root, "broker-home");
      mkdirSync(brokerHome, { recursive: true });
      env.ACP_BROKER_HOME = brokerHome;
      command = process.execPath;
      args = [BROKER_MAIN, "run", "--policy", policyFile, "--non-interactive", "--audit", auditFile, "--", spec.command, ...spec.args];
    }

    client = new AcpClient({
      command,
      args,
      env,
      cwd: project,
      name: label,
      // direct: our client plays the user and answers by option kind;
      // broker: the broker must answer every request itself (non-interactive), we must see none.
      permission: mode === "direct" ? decision : "unexpected",
      echoStderr: !!process.env.ACP_INTEROP_VERBOSE,
      extensionMethods: EXTENSION_METHODS[agent] ?? [],
    });
    client.note({ event: "scenario", agent, action, decision, mode, command, args });
    const tStart = Date.now();
    client.start();
    const turn = await runPromptTurn(client, { cwd: project, text, timeoutMs });
    const tTurn = Date.now();
    // let trailing updates / file writes settle a moment
    await new Promise((r) => setTimeout(r, 100));

    const result = {
      label,
      scenario: sc,
      root,
      project,
      file,
      fileExists: existsSync(file),
      fileContent: existsSync(file) ? readFileSync(file, "utf8") : null,
      stopReason: turn.stopReason,
      error: turn.error ? String(turn.error.message ?? turn.error) : null,
      init: turn.init,
      permissionRequests: client.permissionRequests,
      permissionAnswers: client.permissionAnswers,
      unexpected: client.unexpected,
      protocolErrors: client.protocolErrors,
      updates: client.updates,
      toolCalls: mergeToolCalls(client.updates),
      fakeRequests: fake.requests.map(({ method, path, kind, reply, callId }) => ({ method, path, kind, reply, callId })),
      fakeUnknown: fake.unknown,
      /** attempts to reach other hosts through the proxy trap (refused) */
      fakeOutbound: fake.outbound,
      fakeLog,
      /** ids of the tool calls the fake model asked for (the agent's toolCallId contains it) */
      callIds: fake.requests.map((r) => r.callId).filter(Boolean),
      audit: [],
      auditRaw: null,
      auditError: null,
      /** processes of this run still alive after close (killed by the harness): should be none */
      orphans: [],
      timings: null,
      closeInfo: null,
      stderrTail: "",
      exit: null,
      durationMs: 0,
      transcriptFile: null,
    };

    // Normally the harness shuts the agent down quickly itself. With `gracefulShutdownMs` the process
    // we launched (the broker, in broker mode) must exit by itself after stdin EOF within that time.
    await client.close({ graceMs: sc.gracefulShutdownMs ?? 300, termMs: 3000, lingerMs: sc.gracefulShutdownMs ? 5000 : 0 });
    result.closeInfo = client.closeInfo;
    const tClosed = Date.now();
    result.orphans = await reapMarkedProcesses(marker);
    result.exit = client.exit;
    result.timings = { setupMs: tStart - t0, turnMs: tTurn - tStart, closeMs: tClosed - tTurn };
    result.stderrTail = client.stderrTail(6000);

    if (mode === "broker") {
      if (existsSync(auditFile)) {
        result.auditRaw = readFileSync(auditFile, "utf8");
        for (const line of result.auditRaw.split("\n")) {
          if (!line.trim()) continue;
          try {
            result.audit.push(JSON.parse(line));
          } catch {
            result.auditError = `unparseable audit line: ${line.slice(0, 200)}`;
          }
        }
      } else {
        result.auditError = `no audit file at ${auditFile}`;
      }
    }

    mkdirSync(LOG_DIR, { recursive: true });
    result.transcriptFile = join(LOG_DIR, `${label}.jsonl`);
    client.writeTranscript(result.transcriptFile);
    if (result.auditRaw !== null) writeFileSync(join(LOG_DIR, `${label}.audit.jsonl`), result.auditRaw);
    writeFileSync(join(LOG_DIR, `${label}.stderr.txt`), client.stderr);
    result.durationMs = Date.now() - t0;
    return result;
  } finally {
    if (client) await client.close({ graceMs: 0, termMs: 3000 }); // no-op when already closed
    await reapMarkedProcesses(marker);
    if (fake) await fake.close();
    if (!keep) rmSync(root, { recursive: true, force: true });
  }
}

/** Pids (with command lines) of live processes whose environment carries `ACP_INTEROP_RUN=marker`. */
export function findMarkedProcesses(marker) {
  if (process.platform !== "linux") return [];
  const found = [];
  const needle = `ACP_INTEROP_RUN=${marker}`;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${name}/environ`, "latin1");
      if (!environ.split("\0").includes(needle)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      if (/^\d+ \(.*\) Z /s.test(stat)) continue; // zombie: already dead, waiting to be reaped
      found.push({ pid: Number(name), cmd: readFileSync(`/proc/${name}/cmdline`, "latin1").split("\0").join(" ").trim().slice(0, 300) });
    } catch {
      /* gone, or not ours to read */
    }
  }
  return found;
}

/**
 * After a run: gives stragglers a moment, then SIGKILLs (by pid) every process still carrying the
 * run's marker, and returns what it found — a non-empty list means something leaked an orphan.
 */
export async function reapMarkedProcesses(marker) {
  let left = findMarkedProcesses(marker);
  for (let i = 0; i < 20 && left.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    left = findMarkedProcesses(marker);
  }
  for (const p of left) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      /* already gone */
    }
  }
  return left;
}

/** Merges tool_call / tool_call_update notifications per toolCallId (later fields win). */
export function mergeToolCalls(updates) {
  const calls = new Map();
  for (const u of updates) {
    const up = u?.update;
    if (!up || (up.sessionUpdate !== "tool_call" && up.sessionUpdate !== "tool_call_update")) continue;
    const prev = calls.get(up.toolCallId) ?? { toolCallId: up.toolCallId, statuses: [] };
    const next = { ...prev, ...up };
    next.statuses = up.status ? [...prev.statuses, up.status] : prev.statuses;
    calls.set(up.toolCallId, next);
  }
  return [...calls.values()];
}

/** A short human-readable dump of a result, for assertion messages. */
export function describeResult(r) {
  return [
    `scenario ${r.label} (${r.durationMs} ms) stopReason=${r.stopReason} error=${r.error}`,
    `file ${r.file} exists=${r.fileExists} content=${JSON.stringify(r.fileContent)}`,
    `permission requests seen by the client: ${r.permissionRequests.length}; answers: ${JSON.stringify(r.permissionAnswers)}`,
    `unexpected agent requests: ${JSON.stringify(r.unexpected).slice(0, 600)}`,
    `protocol errors: ${JSON.stringify(r.protocolErrors).slice(0, 600)}`,
    `tool calls: ${JSON.stringify(r.toolCalls.map((c) => ({ id: c.toolCallId, kind: c.kind, statuses: c.statuses })))}`,
    `fake model requests: ${r.fakeRequests.map((q) => `${q.kind}->${q.reply}`).join(", ")}`,
    `refused outbound attempts: ${JSON.stringify(r.fakeOutbound)}`,
    `audit (${r.audit.length} lines${r.auditError ? `, ${r.auditError}` : ""}): ${JSON.stringify(r.audit).slice(0, 1500)}`,
    `exit: ${JSON.stringify(r.exit)}; close: ${JSON.stringify(r.closeInfo)}; timings: ${JSON.stringify(r.timings)}; orphans: ${JSON.stringify(r.orphans)}`,
    `transcript: ${r.transcriptFile}`,
    `stderr tail:\n${r.stderrTail.slice(-2500)}`,
  ].join("\n");
}
