// The approvals daemon with a real published agent (issue 15): the agent runs through `acp-broker run`
// under a `default: ask` policy, in front of an editor that never answers; a running daemon holds the
// same request, and the answer comes from the terminal (`acp-broker approvals allow|deny ID`) or from
// the web inbox (signed in with its token, answering as its page does). The agent gets that one
// answer (its file is on disk, or not), the editor's dialog is withdrawn (`$/cancel_request`), and
// the audit names both channels.
//
// One agent by default (gemini-cli); ACP_INTEROP_AGENTS picks others (same knobs as agents.test.ts).
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, test } from "vitest";
import { cli, listApprovals, poll, startDaemon, type ListedApproval, type RunningDaemon } from "../daemon/helpers.js";
import { tempDir } from "../helpers/cli.js";
import { send } from "../daemon/web/http.js";
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
const homes: string[] = [];

beforeAll(async () => {
  setupProblem = await prepareAgents(agents, (s: string) => console.warn(s));
  if (setupProblem) console.warn(`!!! ACP INTEROP APPROVALS TESTS SKIPPED (not a pass): ${setupProblem}`);
}, 10 * 60_000);
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  if (!process.env.ACP_INTEROP_KEEP) for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

type Listed = ListedApproval;

/** Where the human answers: the terminal (`acp-broker approvals`) or the web inbox. */
interface Answerer {
  /** The open approvals, as this channel shows them. */
  pending(): Promise<Listed[]>;
  answer(approval: Listed, answer: "allow" | "deny"): Promise<{ ok: boolean; detail: string }>;
}

function terminal(home: string): Answerer {
  return {
    pending: () => listApprovals(home),
    async answer(approval, answer) {
      const { code, stdout, stderr } = await cli(home, ["approvals", answer, approval.id]);
      return { ok: code === 0, detail: `${code} ${stdout}${stderr}` };
    },
  };
}

/** The inbox as its page uses it: the token from `acp-broker inbox --print` for a cookie, then JSON over HTTP with the inbox's Origin. */
async function webInbox(home: string): Promise<Answerer> {
  const printed = await cli(home, ["inbox", "--print"]);
  const url = new URL(printed.stdout.trim());
  const port = Number(url.port);
  const signIn = await send(port, { path: `/?token=${url.searchParams.get("token")}` });
  const cookie = signIn.headers["set-cookie"]?.[0]?.split(";")[0];
  if (signIn.status !== 303 || !cookie) throw new Error(`inbox sign-in failed: ${signIn.status} ${printed.stdout}${printed.stderr}`);
  return {
    async pending() {
      const reply = await send(port, { path: "/api/pending", headers: { cookie } });
      if (reply.status !== 200) throw new Error(`/api/pending: ${reply.status} ${reply.body}`);
      return JSON.parse(reply.body) as Listed[];
    },
    async answer(approval, answer) {
      const optionId = approval.request.options.find((o) => o.kind === (answer === "allow" ? "allow_once" : "reject_once"))?.optionId;
      const reply = await send(port, {
        method: "POST", path: "/api/answer", body: JSON.stringify({ id: approval.id, optionId }),
        headers: { cookie, origin: url.origin, "content-type": "application/json" },
      });
      return { ok: reply.status === 200, detail: `${reply.status} ${reply.body}` };
    },
  };
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

const CASES = [
  { channel: "terminal", answer: "allow" },
  { channel: "terminal", answer: "deny" },
  { channel: "web", answer: "allow" },
] as const;

for (const agent of agents) {
  describe(`approvals daemon: ${agent}@${AGENTS[agent].version} through run, an editor that never answers`, { timeout: 120_000 }, () => {
    for (const { channel, answer } of CASES) {
      const where = channel === "terminal" ? `\`acp-broker approvals ${answer} ID\`` : `the web inbox (${answer})`;
      test(`${where} answers the agent's file write; the editor's dialog is withdrawn; the audit names the channel`, async (ctx) => {
        const { expect } = ctx;
        if (setupProblem) ctx.skip(setupProblem);
        if (!brokerAvailable()) ctx.skip(`broker not built (${BROKER_MAIN} missing; run npm run build)`);
        const home = tempDir("acp-interop-approvals-");
        homes.push(home);
        const policyFile = join(home, "policy.yaml");
        writeFileSync(policyFile, POLICY);
        daemon = await startDaemon({ home, args: channel === "web" ? ["--no-desktop"] : ["--no-web", "--no-desktop"] });
        const human = channel === "web" ? await webInbox(home) : terminal(home);
        let file = "";
        const r = await withAgentSession({ label: `approvals__${agent}__${channel}__${answer}`, agent, policyFile, escalate: true, brokerHome: home, timeoutMs: TIMEOUT_MS }, async (s) => {
          file = join(s.project, EDIT_FILE);
          await brokerConnected(home);
          const { sessionId } = await s.newSession();
          s.fake.setScript({ tool: "edit", path: file, content: EDIT_CONTENT });
          const before = s.fake.requests.length;
          const turn = s.client.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `Please create ${EDIT_FILE}` }] }, { timeoutMs: TIMEOUT_MS });
          turn.catch(() => {}); // awaited below; a failure meanwhile must not go unhandled
          const open = await poll("the approval in the daemon", async () => (await human.pending())[0]);
          // The editor holds the same request, unanswered, while the daemon shows it.
          const editorAsked = s.client.unanswered.length;
          const answered = await human.answer(open, answer);
          const result = await turn;
          // The editor's answer arriving late, the other way round, changes nothing.
          const late = s.client.unanswered[0];
          const opposite = late?.params.options.find((o: any) => o.kind === (answer === "allow" ? "reject_once" : "allow_once"));
          if (late && opposite) s.client.send({ jsonrpc: "2.0", id: late.id, result: { outcome: { outcome: "selected", optionId: opposite.optionId } } });
          await new Promise((resolve) => setTimeout(resolve, 300));
          const callId = s.fake.requests.slice(before).map((q: any) => q.callId).find(Boolean) ?? null;
          const written = existsSync(file) ? readFileSync(file, "utf8") : null; // the harness removes the project
          return { open, editorAsked, answered, stopReason: result?.stopReason ?? null, callId, written, after: await listApprovals(home) };
        });
        const info = describeRun(r, daemon);
        expect(r.error, info).toBeNull();
        expect(r.client.protocolErrors, info).toEqual([]);
        expect(r.client.unexpected, info).toEqual([]);
        expect(r.orphans, `processes survived the shutdown${info}`).toEqual([]);
        expect(r.fakeUnknown, info).toEqual([]);
        for (const o of r.fakeOutbound) expect(KNOWN_OUTBOUND[agent], `unexpected outbound attempt ${o.method} ${o.target}${info}`).toContain(o.target);
        const v = r.value!;

        // What the human saw: the agent's write and its path; the inbox also shows the content
        // (`approvals list` leaves the diffs out).
        expect(v.open.request, info).toMatchObject({ agent: expect.stringContaining(agent), kind: "edit", paths: [{ path: file, access: "write" }] });
        if (channel === "web") expect(v.open.request.diffs.map((d) => [d.path, d.newText]), info).toEqual([[file, EDIT_CONTENT]]);
        expect(v.editorAsked, info).toBe(1);
        expect(v.answered.ok, `${v.answered.detail}${info}`).toBe(true);
        expect(v.after, info).toEqual([]);

        // The agent got that answer: the effect on disk, and its turn ended normally.
        expect(v.written, info).toBe(answer === "allow" ? EDIT_CONTENT : null);
        expect(v.stopReason, info).toBe(answer === "deny" ? (DENIED_STOP_REASON[agent] ?? "end_turn") : "end_turn");

        // The editor was asked once and never answered; its dialog was withdrawn.
        expect(r.client.unanswered.length, info).toBe(1);
        expect(r.client.cancelRequests, info).toEqual([{ requestId: r.client.unanswered[0].id }]);

        // The audit: escalated to the editor (and the daemon), decided in the channel that answered.
        expect(v.callId, `the fake model never handed out the tool call${info}`).toBeTruthy();
        const decisions = r.audit.filter((e: any) => e.event === "decision" && String(e.toolCallId ?? "").includes(String(v.callId)));
        expect(decisions.map((e: any) => [e.outcome, e.source]), info).toEqual([
          ["escalated", { type: "client" }],
          [answer === "allow" ? "allowed" : "denied", { type: channel }],
        ]);
        expect(decisions[1], info).toMatchObject({ decision: answer, kind: "edit", optionId: v.open.request.options.find((o) => o.kind === (answer === "allow" ? "allow_once" : "reject_once"))!.optionId });
        expect(r.audit.filter((e: any) => e.event === "problem" || e.event === "unprompted"), info).toEqual([]);
      });
    }
  });
}
