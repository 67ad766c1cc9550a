// `acp-broker exec` with real agents against the fake model, offering them fs and terminal (as exec
// always does): for each agent, a shell command and an edit under three policies —
//   allow         everything allowed: the file is written;
//   deny          everything denied: the agent is refused before it acts, the file stays absent;
//   client-deny   the permission request (it has a title) and reads are allowed, but the fs write or
//                 terminal the agent then asks exec to carry out (no title) falls to `default: deny`.
// The audit says which client methods the agent used. An agent that uses client fs/terminal is
// confined by client-deny (file absent, the call denied in the audit); one that does not acts by
// itself after the allowed permission request (file written): both are recorded per agent in
// CLIENT_TOOLS below and in test/interop/README.md.
//
// Run: ACP_INTEROP_CACHE=DIR npx vitest run test/interop/exec-client-tools.test.ts
// (ACP_INTEROP_AGENTS=a,b picks agents; default: the three published agents of test:interop).
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { isInstalled } from "./install-agents.mjs";
import { launchSpec } from "./agents.mjs";
import { startFakeModel } from "./fake-model.mjs";
import { BROKER_MAIN, EDIT_CONTENT, EDIT_FILE, SHELL_COMMAND, SHELL_CONTENT, SHELL_FILE, brokerAvailable, policyYaml, reapMarkedProcesses } from "./harness.mjs";

type AgentName = "claude-code-acp" | "gemini-cli" | "codex-acp" | "claude-agent-acp" | "qwen-code";
type Action = "shell" | "edit";
type Policy = "allow" | "deny" | "client-deny";

const CLIENT_METHODS = ["fs/read_text_file", "fs/write_text_file", "terminal/create"] as const;

/** Which client methods each agent version calls for the action when exec offers fs and terminal (observed). */
const CLIENT_TOOLS: Record<AgentName, Record<Action, readonly string[]>> = {
  // Its tools become mcp__acp__Bash / mcp__acp__Write, backed by terminal/create and fs/write_text_file.
  "claude-code-acp": { shell: ["terminal/create"], edit: ["fs/write_text_file"] },
  // write_file reads the old content and writes through the client; shell commands run itself.
  "gemini-cli": { shell: [], edit: ["fs/read_text_file", "fs/write_text_file"] },
  "codex-acp": { shell: [], edit: [] },
  "claude-agent-acp": { shell: [], edit: [] },
  "qwen-code": { shell: [], edit: ["fs/write_text_file"] },
};

const DEFAULT_AGENTS: AgentName[] = ["claude-code-acp", "gemini-cli", "codex-acp"];
const agents = (process.env.ACP_INTEROP_AGENTS?.split(",").map((s) => s.trim()).filter(Boolean) ?? DEFAULT_AGENTS) as AgentName[];
const ready = process.platform === "linux" && brokerAvailable();

const CLIENT_DENY_POLICY = [
  "version: 1",
  "default: deny",
  "non_interactive: deny",
  "rules:",
  "  - id: asked-requests",
  "    decision: allow",
  "    reason: a permission request (it has a title) is allowed",
  '    match: { title: ["/./"] }',
  "  - id: reads",
  "    decision: allow",
  "    match: { kind: [read] }",
  "",
].join("\n");

interface AuditLine { event: string; method?: string; decision?: string; kind?: string; source?: { type: string } }
interface Outcome { code: number | null; file: string | null; audit: AuditLine[]; stderr: string; leftovers: { pid: number; cmd: string }[] }

const findings: string[] = [];
afterAll(() => {
  if (findings.length > 0) console.log(["exec with client fs/terminal offered (agent action policy → client methods used, file):", ...findings].join("\n"));
});

async function runExec(agent: AgentName, action: Action, policy: Policy): Promise<Outcome> {
  const root = mkdtempSync(join(tmpdir(), `acp-interop-exec-tools-${agent}-`));
  const project = join(root, "project");
  mkdirSync(project, { recursive: true });
  const file = join(project, action === "shell" ? SHELL_FILE : EDIT_FILE);
  const marker = `exec-tools-${agent}-${action}-${policy}-${randomUUID()}`;
  const fake = await startFakeModel({ log: (l: string) => { if (process.env.ACP_INTEROP_VERBOSE) process.stderr.write(`[fake-model] ${l}\n`); } });
  try {
    fake.setScript(action === "shell"
      ? { tool: "shell", command: SHELL_COMMAND, description: "Write hello to out.txt" }
      : { tool: "edit", path: file, content: EDIT_CONTENT });
    const spec = launchSpec(agent, { fakeUrl: fake.url, root });
    const policyFile = join(root, "policy.yaml");
    writeFileSync(policyFile, policy === "client-deny" ? CLIENT_DENY_POLICY : policyYaml(policy));
    const auditFile = join(root, "audit.jsonl");
    const brokerHome = join(root, "broker-home");
    mkdirSync(brokerHome, { recursive: true });
    const prompt = action === "shell" ? `Please run: ${SHELL_COMMAND}` : `Please create ${EDIT_FILE}`;
    const child = spawn(process.execPath, [BROKER_MAIN, "exec", "--policy", policyFile, "--audit", auditFile, "--cwd", project, "--max-duration", "120",
      "--prompt", prompt, "--", spec.command, ...spec.args], { env: { ...spec.env, ACP_BROKER_HOME: brokerHome, ACP_INTEROP_RUN: marker }, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stdout.resume();
    child.stderr.on("data", (c: Buffer) => { stderr += c.toString(); });
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    const leftovers = await reapMarkedProcesses(marker);
    const audit = existsSync(auditFile) ? readFileSync(auditFile, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as AuditLine) : [];
    return { code, file: existsSync(file) ? readFileSync(file, "utf8") : null, audit, stderr, leftovers };
  } finally {
    await fake.close();
    if (!process.env.ACP_INTEROP_KEEP) rmSync(root, { recursive: true, force: true });
  }
}

const clientCalls = (o: Outcome) => o.audit.filter((e) => e.event === "decision" && (CLIENT_METHODS as readonly string[]).includes(e.method ?? ""));

describe.runIf(ready)("exec offers client fs and terminal to real agents", () => {
  for (const agent of agents) {
    describe.runIf(isInstalled(agent))(agent, () => {
      for (const action of ["shell", "edit"] as const) {
        const expected = action === "shell" ? SHELL_CONTENT : EDIT_CONTENT;
        const uses = CLIENT_TOOLS[agent][action];
        const writer = action === "shell" ? "terminal/create" : "fs/write_text_file";

        test(`${action}, allowed: the file is written; client methods used: ${uses.join(", ") || "none"}`, async () => {
          const o = await runExec(agent, action, "allow");
          const used = [...new Set(clientCalls(o).map((e) => e.method))].sort();
          findings.push(`  ${agent.padEnd(17)} ${action.padEnd(5)} allow       → ${used.join(", ") || "none"}; file ${o.file === null ? "absent" : "written"}`);
          expect(o.code, o.stderr).toBe(0);
          expect(o.file).toBe(expected);
          expect(used).toEqual([...uses].sort());
          for (const call of clientCalls(o)) expect(call.decision).toBe("allow");
          expect(o.leftovers).toEqual([]);
        }, 180_000);

        test(`${action}, denied: the agent is refused before acting, the file stays absent`, async () => {
          const o = await runExec(agent, action, "deny");
          findings.push(`  ${agent.padEnd(17)} ${action.padEnd(5)} deny        → ${clientCalls(o).map((e) => e.method).join(", ") || "none"}; file ${o.file === null ? "absent" : "written"}`);
          expect(o.file).toBeNull();
          expect(o.audit.some((e) => e.event === "decision" && e.decision === "deny")).toBe(true);
          expect(clientCalls(o).filter((e) => e.decision !== "deny")).toEqual([]);
          expect(o.leftovers).toEqual([]);
        }, 180_000);

        test(`${action}, request allowed but the client ${writer} denied: ${uses.includes(writer) ? "confined (file absent)" : "not a client call (the agent acts itself)"}`, async () => {
          const o = await runExec(agent, action, "client-deny");
          const writes = clientCalls(o).filter((e) => e.method === writer);
          findings.push(`  ${agent.padEnd(17)} ${action.padEnd(5)} client-deny → ${clientCalls(o).map((e) => `${e.method} ${e.decision}`).join(", ") || "none"}; file ${o.file === null ? "absent" : "written"}`);
          if (uses.includes(writer)) {
            expect(o.file).toBeNull();
            expect(writes.length).toBeGreaterThan(0);
            for (const w of writes) expect(w.decision).toBe("deny");
          } else {
            expect(writes).toEqual([]);
            expect(o.file).toBe(expected);
          }
          expect(o.leftovers).toEqual([]);
        }, 180_000);
      }
    });
  }
});
