// Session modes with the real agents (issue 12, point 2): the modes each agent offers on the wire,
// and the bundled policies/default.yaml through the real broker CLI — a forbidden mode is hidden
// from the editor and refused when the editor asks for it (the agent keeps asking: the policy still
// decides its next tool call), and qwen-code, which starts in `auto` (its own model approves), is
// moved to a mode that asks before the editor sees the session.
//
// Same knobs as agents.test.ts: ACP_INTEROP_AGENTS, ACP_INTEROP_VERBOSE, ACP_INTEROP_KEEP.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, test } from "vitest";
import { parse } from "yaml";
import { KNOWN_OUTBOUND } from "./agents.mjs";
import { BROKER_MAIN, brokerAvailable } from "./harness.mjs";
import { AGENTS, REPO_ROOT, prepareAgents } from "./install-agents.mjs";
import { offeredModes, withAgentSession } from "./session-harness.mjs";

type AgentName = "claude-code-acp" | "gemini-cli" | "codex-acp" | "claude-agent-acp" | "qwen-code";

const DEFAULT_POLICY = join(REPO_ROOT, "policies", "default.yaml");
const FORBIDDEN: string[] = (parse(readFileSync(DEFAULT_POLICY, "utf8"))?.modes?.deny ?? []).map((m: string) => m.toLowerCase());
const forbidden = (mode: string) => FORBIDDEN.includes(mode.toLowerCase());
const TEST_TIMEOUT_MS = 240_000;

/**
 * What each pinned version offers at session/new, on the wire (direct, no broker), run as root
 * without IS_SANDBOX (so neither claude agent offers `bypassPermissions`) and qwen-code with
 * `--approval-mode default`. A version bump that changes these fails here first.
 */
const EXPECTED_OFFER: Record<AgentName, { current: string; available: string[]; configOption: boolean }> = {
  "claude-code-acp": { current: "default", available: ["default", "acceptEdits", "plan", "dontAsk"], configOption: false },
  "gemini-cli": { current: "default", available: ["default", "autoEdit", "yolo", "plan"], configOption: false },
  "codex-acp": { current: "read-only", available: ["read-only", "auto", "full-access"], configOption: true },
  "claude-agent-acp": { current: "default", available: ["default", "acceptEdits", "plan", "dontAsk"], configOption: true },
  "qwen-code": { current: "default", available: ["plan", "default", "auto-edit", "auto", "yolo"], configOption: true },
};

/** The mode the editor asks for, which default.yaml forbids: the one in which the agent stops asking. */
function forbiddenAsk(agent: AgentName, offered: string[]): string {
  if (agent === "claude-code-acp" || agent === "claude-agent-acp") return offered.includes("bypassPermissions") ? "bypassPermissions" : "acceptEdits";
  return { "gemini-cli": "yolo", "codex-acp": "full-access", "qwen-code": "yolo" }[agent];
}

/** codex-acp's only reject option for an escalated command is `abort`, which ends the turn. */
const DENIED_STOP_REASON: Record<AgentName, string> = {
  "claude-code-acp": "end_turn",
  "gemini-cli": "end_turn",
  "codex-acp": "cancelled",
  "claude-agent-acp": "end_turn",
  "qwen-code": "end_turn",
};


const DENIED_COMMAND = "git push --force origin main"; // default.yaml: rule `destructive`
const ALLOWED_COMMAND = "npm test"; // default.yaml: rule `test-and-lint` (the project's test script echoes)
/** default.yaml allows it too, but qwen-code (in `default` mode) runs it without asking at all. */
const UNASKED_COMMAND = "git status";

const ALL_AGENTS = Object.keys(AGENTS) as AgentName[];
const agents = (process.env.ACP_INTEROP_AGENTS?.split(",").map((s) => s.trim()).filter(Boolean) ?? ALL_AGENTS) as AgentName[];
let setupProblem: string | null = null;

/**
 * default.yaml as shipped, plus `unprompted: stop` (as in enterprise-baseline.yaml and ci-strict.yaml):
 * the rules and the forbidden modes of the bundled default, and an agent acting without asking is stopped.
 */
const policyDir = mkdtempSync(join(tmpdir(), "acp-interop-policy-"));
const DEFAULT_WITH_STOP = join(policyDir, "default-unprompted-stop.yaml");
writeFileSync(DEFAULT_WITH_STOP, `${readFileSync(DEFAULT_POLICY, "utf8").trimEnd()}\nunprompted: stop\n`);
afterAll(() => rmSync(policyDir, { recursive: true, force: true }));

beforeAll(async () => {
  setupProblem = await prepareAgents(agents, (s: string) => console.warn(s));
  if (setupProblem) console.warn(`!!! ACP INTEROP MODE TESTS SKIPPED (not a pass): ${setupProblem}`);
}, 10 * 60_000);

/** Hygiene shared by every run: nothing leaked, nothing unexpected on the wire. */
function expectClean(expect: any, agent: AgentName, r: any, info: string) {
  expect(r.error, info).toBeNull();
  expect(r.client.protocolErrors, info).toEqual([]); // includes a response to the broker's own acp-broker/mode-N request
  expect(r.client.unexpected, info).toEqual([]); // includes a permission request forwarded by a non-interactive broker
  expect(r.orphans, `processes survived the shutdown${info}`).toEqual([]);
  expect(r.fakeUnknown, info).toEqual([]);
  for (const o of r.fakeOutbound) expect(KNOWN_OUTBOUND[agent], `unexpected outbound attempt ${o.method} ${o.target}${info}`).toContain(o.target);
}

function describeRun(r: any): string {
  return [
    "",
    `error: ${r.error}; ${r.durationMs} ms; orphans ${JSON.stringify(r.orphans)}`,
    `value: ${JSON.stringify(r.value).slice(0, 3000)}`,
    `audit: ${JSON.stringify(r.audit).slice(0, 3000)}`,
    `transcript: ${r.transcriptFile}`,
    `stderr tail:\n${String(r.stderr).slice(-2000)}`,
  ].join("\n");
}

/** The one audit event for the fake model's tool call. */
function auditFor(expect: any, r: any, callId: string | null, info: string) {
  expect(callId, `the fake model never handed out the tool call${info}`).toBeTruthy();
  const events = r.audit.filter((e: any) => String(e.toolCallId ?? "").includes(String(callId)));
  expect(events.length, `expected one audit event for tool call ${callId}${info}`).toBe(1);
  return events[0];
}

/** The audit's decision for the fake model's tool call, and no unprompted action anywhere. */
function decisionFor(expect: any, r: any, callId: string | null, info: string) {
  expect(r.audit.filter((e: any) => e.event === "problem"), info).toEqual([]);
  expect(r.audit.filter((e: any) => e.event === "unprompted"), info).toEqual([]);
  return auditFor(expect, r, callId, info);
}

for (const agent of agents) {
  describe(`modes: ${agent}@${AGENTS[agent].version}`, { timeout: TEST_TIMEOUT_MS }, () => {
    test("offers these mode ids at session/new (direct, on the wire)", async (ctx) => {
      const { expect } = ctx;
      if (setupProblem) ctx.skip(setupProblem);
      const r = await withAgentSession({ label: `modes__${agent}__offer`, agent }, async (s) => offeredModes(await s.newSession()));
      const info = describeRun(r);
      expectClean(expect, agent, r, info);
      const offer = r.value!;
      console.log(`${agent}: session/new offers ${JSON.stringify(offer.available)}, current ${offer.current}${offer.configOptionId ? `; config option \`${offer.configOptionId}\` ${JSON.stringify(offer.configValues)}` : ""}`);
      const want = EXPECTED_OFFER[agent];
      expect(offer.available, info).toEqual(want.available);
      expect(offer.current, info).toBe(want.current);
      if (want.configOption) {
        expect(offer.configOptionId, info).toBe("mode");
        expect(offer.configValues, info).toEqual(want.available);
        expect(offer.configCurrent, info).toBe(want.current);
      } else {
        expect(offer.configOptionId, info).toBeNull();
      }
    });

    test("broker + policies/default.yaml: forbidden modes hidden and refused; the agent keeps asking", async (ctx) => {
      const { expect } = ctx;
      if (setupProblem) ctx.skip(setupProblem);
      if (!brokerAvailable()) ctx.skip(`broker not built (${BROKER_MAIN} missing; run npm run build)`);
      const want = EXPECTED_OFFER[agent];
      const ask = forbiddenAsk(agent, want.available);
      const r = await withAgentSession({ label: `modes__${agent}__broker`, agent, policyFile: DEFAULT_POLICY }, async (s) => {
        const session = await s.newSession();
        const seen = offeredModes(session);
        const setMode = await s.call("session/set_mode", { sessionId: session.sessionId, modeId: ask });
        const setOption = seen.configOptionId ? await s.call("session/set_config_option", { sessionId: session.sessionId, configId: seen.configOptionId, value: ask }) : null;
        // an allowed mode still goes through to the agent, which accepts it
        const setAllowed = await s.call("session/set_mode", { sessionId: session.sessionId, modeId: seen.current });
        const turn = await s.promptShell(session.sessionId, DENIED_COMMAND);
        return { sessionId: session.sessionId, seen, setMode, setOption, setAllowed, turn };
      });
      const info = describeRun(r);
      expectClean(expect, agent, r, info);
      const v = r.value!;
      expect(forbidden(ask), `${ask} is not forbidden by ${DEFAULT_POLICY}`).toBe(true);

      // what the editor is offered: the agent's modes minus the forbidden ones, the same current mode
      const allowed = want.available.filter((m) => !forbidden(m));
      expect(v.seen.available, info).toEqual(allowed);
      expect(v.seen.current, info).toBe(want.current);
      if (want.configOption) expect(v.seen.configValues, info).toEqual(allowed);

      // the editor's request for the forbidden mode: refused by the broker, -32001, saying why
      expect(v.setMode.error?.code, info).toBe(-32001);
      expect(v.setMode.error?.message, info).toContain(ask);
      if (want.configOption) {
        expect(v.setOption?.error?.code, info).toBe(-32001);
        expect(v.setOption?.error?.message, info).toContain(ask);
      }
      expect(v.setAllowed.error, info).toBeUndefined();
      // the agent never switched to the forbidden mode (it never got the request, and never said so)
      const reportedModes = r.client.updates
        .map((u: any) => u?.update)
        .flatMap((u: any) =>
          u?.sessionUpdate === "current_mode_update" ? [u.currentModeId]
          : u?.sessionUpdate === "config_option_update" ? (u.configOptions ?? []).filter((o: any) => o?.category === "mode").map((o: any) => o.currentValue)
          : [],
        );
      expect(reportedModes.filter((m: string) => forbidden(m)), info).toEqual([]);
      const modeEvents = r.audit.filter((e: any) => e.event === "mode");
      expect(modeEvents.length, info).toBe(want.configOption ? 2 : 1);
      for (const e of modeEvents) expect(e, info).toMatchObject({ mode: ask, decision: "deny", sessionId: v.sessionId });

      // ...and still asks: its next command reaches the broker as a permission request, and the
      // policy decides it (the editor is never asked: non-interactive)
      expect(r.client.permissionRequests.length, info).toBe(0);
      expect(v.turn.stopReason, info).toBe(DENIED_STOP_REASON[agent]);
      const e = decisionFor(expect, r, v.turn.callId, info);
      expect(e, info).toMatchObject({ event: "decision", decision: "deny", kind: "execute", source: { ruleId: "destructive" } });
    });

    if (agent === "qwen-code") {
      // When the editor reopens a session (session/load): a pipelined forbidden set_mode never
      // reaches the agent (the early forwarder stops at it; the relay refuses it), and the history
      // the agent replays is not taken for actions it took without asking.
      test("reopened session (session/load): a pipelined forbidden set_mode is refused by the broker; the replayed history is not unprompted", async (ctx) => {
        const { expect } = ctx;
        if (setupProblem) ctx.skip(setupProblem);
        if (!brokerAvailable()) ctx.skip(`broker not built (${BROKER_MAIN} missing; run npm run build)`);
        const root = mkdtempSync(join(tmpdir(), "acp-interop-qwen-code-load-"));
        try {
          // run 1: a session with one turn (denied), which qwen-code saves under its HOME
          const first = await withAgentSession({ label: `modes__${agent}__load-1`, agent, policyFile: DEFAULT_POLICY, root }, async (s) => {
            const session = await s.newSession();
            return { sessionId: session.sessionId, turn: await s.promptShell(session.sessionId, DENIED_COMMAND) };
          });
          const info1 = describeRun(first);
          expectClean(expect, agent, first, info1);
          expect(decisionFor(expect, first, first.value!.turn.callId, info1), info1).toMatchObject({ decision: "deny", source: { ruleId: "destructive" } });
          const sessionId = first.value!.sessionId;

          // run 2: the editor reopens it and, without waiting for answers, asks for `yolo`
          const second = await withAgentSession({ label: `modes__${agent}__load-2`, agent, policyFile: DEFAULT_POLICY, root, initialize: false }, async (s) => {
            const init = s.initialize();
            const load = s.call("session/load", { sessionId, cwd: s.project, mcpServers: [] });
            const setMode = s.call("session/set_mode", { sessionId, modeId: "yolo" });
            await init;
            return { loaded: await load, setMode: await setMode };
          });
          const info = describeRun(second);
          expectClean(expect, agent, second, info);
          const loaded = offeredModes(second.value!.loaded.result);
          expect(loaded.current, info).toBe("default");
          expect(loaded.available.filter(forbidden), info).toEqual([]);

          // The broker answers it (-32001): forbidden, or "still loading its policy" if it came first.
          const setMode = second.value!.setMode;
          expect(setMode.error?.code, info).toBe(-32001);
          expect(setMode.error.message, info).toContain("acp-broker");
          // The replay of run 1's tool call (tool_call in_progress, then failed) is history.
          expect(second.audit.filter((e: any) => e.event === "unprompted"), info).toEqual([]);
        } finally {
          if (!process.env.ACP_INTEROP_KEEP) rmSync(root, { recursive: true, force: true });
        }
      });

      test("started in `auto` (no --approval-mode): the broker moves it to a mode that asks before the editor sees it; unprompted: stop", async (ctx) => {
        const { expect } = ctx;
        if (setupProblem) ctx.skip(setupProblem);
        if (!brokerAvailable()) ctx.skip(`broker not built (${BROKER_MAIN} missing; run npm run build)`);
        const r = await withAgentSession({ label: `modes__${agent}__auto`, agent, policyFile: DEFAULT_WITH_STOP, approvalMode: null }, async (s) => {
          const first = await s.newSession();
          const denied = await s.promptShell(first.sessionId, DENIED_COMMAND);
          // a second session starts in `auto` too, and is moved too
          const second = await s.newSession();
          const allowed = await s.promptShell(second.sessionId, ALLOWED_COMMAND);
          const third = await s.newSession();
          const unasked = await s.promptShell(third.sessionId, UNASKED_COMMAND);
          const sessions = [first, second, third].map((x) => ({ id: x.sessionId, ...offeredModes(x) }));
          return { sessions, denied, allowed, unasked };
        });
        const info = describeRun(r);
        expectClean(expect, agent, r, info);
        const v = r.value!;
        for (const session of v.sessions) {
          // the session/new result the editor gets: already in a mode that asks, nothing forbidden offered
          expect(session.current, info).toBe("default");
          expect(session.configCurrent, info).toBe("default");
          expect(session.available.filter(forbidden), info).toEqual([]);
          expect(session.configValues.filter(forbidden), info).toEqual([]);
          const moved = r.audit.filter((e: any) => e.event === "mode" && e.sessionId === session.id);
          expect(moved, info).toEqual([expect.objectContaining({ decision: "allow", mode: "default", reason: expect.stringContaining("`auto`") })]);
        }
        expect(r.stderr, info).toContain("moved it to `default`");
        // the broker's own session/set_mode (id acp-broker/mode-N) went to the agent, never to the editor
        const brokerIds = r.client.transcript.filter((t: any) => String(t.msg?.id ?? "").startsWith("acp-broker/"));
        expect(brokerIds, info).toEqual([]);

        // and the policy applies again: both commands reach it as permission requests
        expect(r.client.permissionRequests.length, info).toBe(0);
        expect(r.audit.filter((e: any) => e.event === "problem"), info).toEqual([]);
        expect(v.denied.stopReason, info).toBe("end_turn");
        expect(auditFor(expect, r, v.denied.callId, info), info).toMatchObject({ event: "decision", decision: "deny", kind: "execute", source: { ruleId: "destructive" } });
        expect(v.allowed.stopReason, info).toBe("end_turn");
        expect(auditFor(expect, r, v.allowed.callId, info), info).toMatchObject({ event: "decision", decision: "allow", kind: "execute", source: { ruleId: "test-and-lint" } });
        const statuses = (callId: string) =>
          r.client.updates.map((u: any) => u?.update).filter((u: any) => u?.toolCallId && String(u.toolCallId).includes(callId)).map((u: any) => u.status);
        expect(statuses(String(v.allowed.callId)), info).toContain("completed");
        expect(statuses(String(v.denied.callId)), info).not.toContain("completed");
        // qwen-code's `default` mode still runs what it deems read-only without asking: the broker
        // cannot decide it; it reports it and, with `unprompted: stop`, cancels the turn and says why
        expect(auditFor(expect, r, v.unasked.callId, info), info).toMatchObject({ event: "unprompted", kind: "execute" });
        expect(v.unasked.stopReason, info).toBe("cancelled");
        const told = r.client.updates.filter((u: any) => u?.sessionId === v.sessions[2].id && u?.update?.sessionUpdate === "agent_message_chunk" && /\[acp-broker\] Stopped/.test(u.update.content?.text ?? ""));
        expect(told.length, info).toBe(1);
        expect(r.stderr, info).toContain("unprompted: stop");
      });
    }
  });
}
