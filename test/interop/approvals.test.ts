// The approvals daemon with a real published agent (issue 15): the agent runs through `acp-broker run`
// under a `default: ask` policy, in front of an editor that never answers; a running daemon holds the
// same request, and the answer comes from the terminal (`acp-broker approvals allow|deny ID`). The
// agent gets that one answer (its file is on disk, or not), the editor's dialog is withdrawn
// (`$/cancel_request`), and the audit names both channels.
//
// One agent by default (gemini-cli); ACP_INTEROP_AGENTS picks others (same knobs as agents.test.ts).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, test } from "vitest";
import { cli, startDaemon, type RunningDaemon } from "../daemon/helpers.js";
import { tempDir } from "../helpers/cli.js";
import { KNOWN_OUTBOUND } from "./agents.mjs";
import { BROKER_MAIN, EDIT_CONTENT, EDIT_FILE, brokerAvailable } from "./harness.mjs";
import { AGENTS, prepareAgents } from "./install-agents.mjs";
import { withAgentSession } from "./session-harness.mjs";

type AgentName = keyof typeof AGENTS;

const POLICY = "version: 1\ndefault: ask\nnon_interactive: deny\nrules: []\n";
const TIMEOUT_MS = 60_000;
/** codex-acp's only reject option ends the turn (see README). */
const DENIED_STOP_REASON: Record<string, string> = { "codex-acp": "cancelled" };

const agents = (process.env.ACP_INTEROP_AGENTS?.split(",").map((s) => s.trim()).filter(Boolean) ?? ["gemini-cli"]) as AgentName[];
let setupProblem: string | null = null;
let daemon: RunningDaemon | undefined;

beforeAll(async () => {
  setupProblem = await prepareAgents(agents, (s: string) => console.warn(s));
  if (setupProblem) console.warn(`!!! ACP INTEROP APPROVALS TESTS SKIPPED (not a pass): ${setupProblem}`);
}, 10 * 60_000);
afterEach(async () => { await daemon?.stop(); daemon = undefined; });

interface Listed { readonly id: string; readonly broker: { readonly pid?: number; readonly agent?: string }; readonly request: { readonly agent?: string; readonly kind: string; readonly paths: { path: string; access: string }[]; readonly options: { optionId: string; kind: string }[] } }

async function listed(home: string): Promise<Listed[]> {
  const { code, stdout, stderr } = await cli(home, ["approvals", "list", "--json"]);
  if (code !== 0) throw new Error(`approvals list failed (${code}): ${stderr}`);
  return JSON.parse(stdout || "[]") as Listed[];
}

async function poll<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** `run` connects to the daemon in the background once its agent has started: wait for it. */
async function brokerConnected(home: string): Promise<void> {
  await poll("the broker's connection to the daemon", async () => {
    const { stdout } = await cli(home, ["daemon", "status"]);
    return /\b1 broker\(s\) connected/.test(stdout) ? true : undefined;
  });
}

function describeRun(r: any, d: RunningDaemon | undefined): string {
  return [
    "",
    `error: ${r.error}; ${r.durationMs} ms; orphans ${JSON.stringify(r.orphans)}`,
    `value: ${JSON.stringify(r.value).slice(0, 3000)}`,
    `audit: ${JSON.stringify(r.audit).slice(0, 3000)}`,
    `transcript: ${r.transcriptFile}`,
    `broker stderr tail:\n${String(r.stderr).slice(-2000)}`,
    `daemon stderr:\n${d?.stderr().slice(-1500)}`,
  ].join("\n");
}

for (const agent of agents) {
  describe(`approvals daemon: ${agent}@${AGENTS[agent].version} through run, an editor that never answers`, { timeout: 120_000 }, () => {
    for (const answer of ["allow", "deny"] as const) {
      test(`\`acp-broker approvals ${answer} ID\` answers the agent's file write; the editor's dialog is withdrawn`, async (ctx) => {
        const { expect } = ctx;
        if (setupProblem) ctx.skip(setupProblem);
        if (!brokerAvailable()) ctx.skip(`broker not built (${BROKER_MAIN} missing; run npm run build)`);
        const home = tempDir("acp-interop-approvals-");
        const policyFile = join(home, "policy.yaml");
        writeFileSync(policyFile, POLICY);
        daemon = await startDaemon({ home });
        let file = "";
        const r = await withAgentSession({ label: `approvals__${agent}__${answer}`, agent, policyFile, escalate: true, brokerHome: home, timeoutMs: TIMEOUT_MS }, async (s) => {
          file = join(s.project, EDIT_FILE);
          await brokerConnected(home);
          const { sessionId } = await s.newSession();
          s.fake.setScript({ tool: "edit", path: file, content: EDIT_CONTENT });
          const before = s.fake.requests.length;
          const turn = s.client.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `Please create ${EDIT_FILE}` }] }, { timeoutMs: TIMEOUT_MS });
          turn.catch(() => {}); // awaited below; a failure meanwhile must not go unhandled
          const open = await poll("the approval in the daemon", async () => (await listed(home))[0]);
          // The editor holds the same request, unanswered, while the daemon shows it.
          const editorAsked = s.client.unanswered.length;
          const terminal = await cli(home, ["approvals", answer, open.id]);
          const result = await turn;
          const callId = s.fake.requests.slice(before).map((q: any) => q.callId).find(Boolean) ?? null;
          const written = existsSync(file) ? readFileSync(file, "utf8") : null; // the harness removes the project
          return { open, editorAsked, terminal, stopReason: result?.stopReason ?? null, callId, written, after: await listed(home) };
        });
        const info = describeRun(r, daemon);
        expect(r.error, info).toBeNull();
        expect(r.client.protocolErrors, info).toEqual([]);
        expect(r.client.unexpected, info).toEqual([]);
        expect(r.orphans, `processes survived the shutdown${info}`).toEqual([]);
        expect(r.fakeUnknown, info).toEqual([]);
        for (const o of r.fakeOutbound) expect(KNOWN_OUTBOUND[agent], `unexpected outbound attempt ${o.method} ${o.target}${info}`).toContain(o.target);
        const v = r.value!;

        // What the human saw in the daemon: the agent's write and its path (`approvals list` leaves
        // the diffs out; the inbox shows them).
        expect(v.open.request, info).toMatchObject({ agent: expect.stringContaining(agent), kind: "edit", paths: [{ path: file, access: "write" }] });
        expect(v.editorAsked, info).toBe(1);
        expect(v.terminal.code, `${v.terminal.stderr}${info}`).toBe(0);
        expect(v.after, info).toEqual([]);

        // The agent got the terminal's answer: the effect on disk, and its turn ended normally.
        expect(v.written, info).toBe(answer === "allow" ? EDIT_CONTENT : null);
        expect(v.stopReason, info).toBe(answer === "deny" ? (DENIED_STOP_REASON[agent] ?? "end_turn") : "end_turn");

        // The editor was asked once and never answered; its dialog was withdrawn.
        expect(r.client.unanswered.length, info).toBe(1);
        expect(r.client.cancelRequests, info).toEqual([{ requestId: r.client.unanswered[0].id }]);

        // The audit: escalated to the editor (and the daemon), decided by the terminal.
        expect(v.callId, `the fake model never handed out the tool call${info}`).toBeTruthy();
        const decisions = r.audit.filter((e: any) => e.event === "decision" && String(e.toolCallId ?? "").includes(String(v.callId)));
        expect(decisions.map((e: any) => [e.outcome, e.source]), info).toEqual([
          ["escalated", { type: "client" }],
          [answer === "allow" ? "allowed" : "denied", { type: "terminal" }],
        ]);
        expect(decisions[1], info).toMatchObject({ decision: answer, kind: "edit", optionId: v.open.request.options.find((o) => o.kind === (answer === "allow" ? "allow_once" : "reject_once"))!.optionId });
        expect(r.audit.filter((e: any) => e.event === "problem" || e.event === "unprompted"), info).toEqual([]);
      });
    }
  });
}
