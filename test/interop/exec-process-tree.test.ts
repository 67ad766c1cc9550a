// `acp-broker exec` and `run` with the real codex-acp (its npm launcher, which starts the native
// binary) and the fake model: when the broker ends — exec after a normal turn; exec or run by
// SIGTERM while the agent runs a command; run when the editor closes its input then — the process
// table holds nothing of the run: not the launcher, not the native codex-acp,
// not the shell or the command it started. Watched from /proc: every descendant of the exec process
// seen during the run (pid + start time, so a reused pid is not mistaken for it), and every process
// carrying the run's ACP_INTEROP_RUN marker in its environment.
//
// Run: npx vitest run test/interop/exec-process-tree.test.ts (ACP_INTEROP_CACHE=DIR for the agents).
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { AGENTS, isInstalled, packageDir } from "./install-agents.mjs";
import { AcpClient, runPromptTurn } from "./acp-client.mjs";
import { launchSpec } from "./agents.mjs";
import { startFakeModel } from "./fake-model.mjs";
import { BROKER_MAIN, brokerAvailable, findMarkedProcesses, policyYaml, reapMarkedProcesses } from "./harness.mjs";

const AGENT = "codex-acp";
const ready = process.platform === "linux" && isInstalled(AGENT) && brokerAvailable();

interface ProcessInfo { pid: number; ppid: number; start: string; cmd: string; zombie: boolean }

/** One snapshot of /proc: pid → parent, start time (clock ticks since boot), command line. */
function processTable(): Map<number, ProcessInfo> {
  const table = new Map<number, ProcessInfo>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      // The command name is in parentheses and may itself hold spaces or parentheses.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cmd = readFileSync(`/proc/${name}/cmdline`, "latin1").split("\0").join(" ").trim();
      table.set(Number(name), { pid: Number(name), ppid: Number(fields[1]), start: fields[19]!, cmd, zombie: fields[0] === "Z" });
    } catch {
      /* gone meanwhile */
    }
  }
  return table;
}

/** Every live descendant of `root` in one snapshot. */
function descendants(root: number): ProcessInfo[] {
  const table = processTable();
  const found: ProcessInfo[] = [];
  const parents = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of table.values()) {
      if (!parents.has(p.pid) && parents.has(p.ppid)) {
        parents.add(p.pid);
        found.push(p);
        grew = true;
      }
    }
  }
  return found;
}

/** Of the processes seen earlier, those still alive (same pid and start time, not a zombie). */
function survivors(seen: Iterable<ProcessInfo>): ProcessInfo[] {
  const now = processTable();
  return [...seen].filter((p) => {
    const current = now.get(p.pid);
    return current !== undefined && current.start === p.start && !current.zombie;
  });
}

interface ExecRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** every descendant of the exec process seen while it ran, by pid */
  seen: Map<number, ProcessInfo>;
  /** right after exec's exit: descendants seen earlier still alive, and marked processes */
  leftBehind: ProcessInfo[];
  markedAfter: { pid: number; cmd: string }[];
  /** the project folder's entries, half a second after exec's exit */
  files: string[];
  audit: string;
}

/**
 * Runs the broker with the codex-acp launcher (`node bin/codex-acp.js`, which starts the native
 * binary) under an allow-everything policy, on one prompt whose tool call is `command`:
 * `exec --prompt …`, or `run` driven by our ACP client. `end`: once a descendant's command line
 * matches `when` (the agent is mid-turn, running the command), SIGTERM the broker, or close its
 * stdin as an editor that quits does (`run`). Without `end` the turn runs to its end (`exec`).
 */
async function runBroker(subcommand: "exec" | "run", command: string, end?: { when: RegExp; how: "SIGTERM" | "stdin-eof" }): Promise<ExecRun> {
  const root = mkdtempSync(join(tmpdir(), "acp-interop-exec-tree-"));
  const project = join(root, "project");
  mkdirSync(project, { recursive: true });
  const marker = `${subcommand}-tree-${randomUUID()}`;
  const fake = await startFakeModel({ log: (l: string) => process.env.ACP_INTEROP_VERBOSE && process.stderr.write(`[fake-model ${subcommand}] ${l}\n`) });
  let client: AcpClient | null = null;
  try {
    fake.setScript({ tool: "shell", command, description: "Run the requested command" });
    const spec = launchSpec(AGENT, { fakeUrl: fake.url, root });
    const policyFile = join(root, "policy.yaml");
    writeFileSync(policyFile, policyYaml("allow"));
    const brokerHome = join(root, "broker-home");
    mkdirSync(brokerHome, { recursive: true });
    const auditFile = join(root, "audit.jsonl");
    const launcher = join(packageDir(AGENT), AGENTS[AGENT].bin);
    const agent = ["--", process.execPath, launcher, ...spec.args];
    const env = { ...spec.env, ACP_BROKER_HOME: brokerHome, ACP_INTEROP_RUN: marker };
    const text = `Please run: ${command}`;
    let child: ChildProcess;
    let output = () => ({ stdout: "", stderr: "" });
    if (subcommand === "exec") {
      const spawned = spawn(process.execPath, [BROKER_MAIN, "exec", "--policy", policyFile, "--audit", auditFile, "--cwd", project, "--prompt", text, ...agent], { env, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      spawned.stdout.on("data", (c: Buffer) => { stdout += c.toString(); });
      spawned.stderr.on("data", (c: Buffer) => { stderr += c.toString(); });
      output = () => ({ stdout, stderr });
      child = spawned;
    } else {
      const acp = new AcpClient({ command: process.execPath, args: [BROKER_MAIN, "run", "--policy", policyFile, "--non-interactive", "--audit", auditFile, ...agent], env, cwd: project, name: `run-tree`, permission: "unexpected" });
      client = acp;
      acp.start();
      void runPromptTurn(acp, { cwd: project, text, timeoutMs: 60_000 });
      output = () => ({ stdout: "", stderr: acp.stderr });
      child = acp.child!;
    }
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
    let exited = false;
    void exit.then(() => { exited = true; });
    const seen = new Map<number, ProcessInfo>();
    let ended = false;
    const deadline = Date.now() + 90_000;
    while (!exited && Date.now() < deadline) {
      // The latest snapshot of each pid with a command line: a child caught between fork and exec
      // still shows its parent's (codex-acp's launcher forking its native binary), and an exiting
      // process shows none.
      for (const p of descendants(child.pid!)) if (p.cmd !== "" || !seen.has(p.pid)) seen.set(p.pid, p);
      if (end && !ended && [...seen.values()].some((p) => end.when.test(p.cmd) && survivors([p]).length === 1)) {
        if (end.how === "SIGTERM") child.kill("SIGTERM");
        else child.stdin!.end();
        ended = true;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    if (!exited) child.kill("SIGKILL");
    const { code, signal } = await exit;
    // Checked at once: the broker must have ended the agent's tree before it exited itself.
    const leftBehind = survivors(seen.values());
    const markedAfter = findMarkedProcesses(marker);
    const audit = existsSync(auditFile) ? readFileSync(auditFile, "utf8") : "";
    // What the command would have written had it outlived the broker.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const files = readdirSync(project);
    return { code, signal, ...output(), seen, leftBehind, markedAfter, files, audit };
  } finally {
    if (client) await client.close({ graceMs: 0, termMs: 3000 });
    await reapMarkedProcesses(marker);
    await fake.close();
    if (!process.env.ACP_INTEROP_KEEP) rmSync(root, { recursive: true, force: true });
  }
}

function describeRun(r: ExecRun): string {
  return [
    `exit code=${r.code} signal=${r.signal}`,
    `seen: ${[...r.seen.values()].map((p) => `${p.pid}<${p.ppid} ${p.cmd.slice(0, 120)}`).join("\n      ")}`,
    `left behind: ${JSON.stringify(r.leftBehind)}`,
    `marked after exit: ${JSON.stringify(r.markedAfter)}`,
    `files: ${JSON.stringify(r.files)}`,
    `stderr tail:\n${r.stderr.slice(-2500)}`,
  ].join("\n");
}

const isLauncher = (p: ProcessInfo) => p.cmd.includes(AGENTS[AGENT].bin);
const isNative = (p: ProcessInfo) => /codex-acp-linux-[^/]+\/bin\/codex-acp( |$)/.test(p.cmd);

beforeAll(() => {
  if (!ready) console.warn(`!!! exec process-tree tests skipped: ${process.platform !== "linux" ? "needs /proc (Linux)" : !brokerAvailable() ? "dist/bin/acp-broker.js missing (npm run build)" : `${AGENT} not installed (node test/interop/install-agents.mjs)`}`);
});

const SLEEP = /^(\/\S*\/)?sleep 60$/;
const LONG_COMMAND = "sleep 60 && echo late > late.txt";

function expectNothingLeft(r: ExecRun, mid: boolean) {
  const why = describeRun(r);
  const seen = [...r.seen.values()];
  // The run really had both codex processes (and, mid-command, the command) to end.
  expect(seen.some(isLauncher), why).toBe(true);
  expect(seen.some(isNative), why).toBe(true);
  if (mid) expect(seen.some((p) => SLEEP.test(p.cmd)), why).toBe(true);
  expect(r.leftBehind, why).toEqual([]);
  expect(r.markedAfter, why).toEqual([]);
  if (mid) expect(r.files, why).not.toContain("late.txt");
}

describe.skipIf(!ready)("the broker with the real codex-acp leaves no process behind", () => {
  test("exec, after a turn that ends normally", async () => {
    const r = await runBroker("exec", "echo hello > out.txt");
    const why = describeRun(r);
    expect(r.code, why).toBe(0);
    expect(r.files, why).toContain("out.txt");
    expect(r.audit, why).toContain('"decision":"allow"');
    expectNothingLeft(r, false);
  }, 120_000);

  test("exec, ended by SIGTERM while the agent runs a command", async () => {
    const r = await runBroker("exec", LONG_COMMAND, { when: SLEEP, how: "SIGTERM" });
    // Ended by the signal, not by the turn: a failure exit.
    expect(r.code, describeRun(r)).not.toBe(0);
    expectNothingLeft(r, true);
  }, 120_000);

  test("run, ended by SIGTERM while the agent runs a command", async () => {
    const r = await runBroker("run", LONG_COMMAND, { when: SLEEP, how: "SIGTERM" });
    expectNothingLeft(r, true);
  }, 120_000);

  test("run, the editor closes its input while the agent runs a command", async () => {
    const r = await runBroker("run", LONG_COMMAND, { when: SLEEP, how: "stdin-eof" });
    expectNothingLeft(r, true);
  }, 120_000);
});
