// Real-agent interop tests: five published ACP agents, a scripted fake model on 127.0.0.1, and
// (when built) the broker in between. Run with `npm run test:interop`.
//
// For each agent × {shell, edit} × {allow, deny}:
//   direct mode  — our tiny ACP client answers the agent's permission request by option kind;
//   broker mode  — `node dist/bin/acp-broker.js run --policy … --non-interactive --audit … -- <agent>`
//                  answers it from a YAML policy; the client must never see a permission request.
// Then: the file on disk, the prompt's stopReason, the tool call's fate as the agent reported it,
// the answer the agent got (direct: our answer; broker: the audit log's decision and optionId).
//
// Env knobs: ACP_INTEROP_AGENTS=claude-code-acp,codex-acp   only these agents
//            ACP_INTEROP_MODES=direct|broker|direct,broker  (default both; broker skipped if not built)
//            ACP_INTEROP_VERBOSE=1   echo agents' stderr      ACP_INTEROP_KEEP=1  keep temp dirs
//            ACP_INTEROP_CONCURRENCY=3  run an agent's scenarios 3 at a time (default 1)
//            ACP_INTEROP_CACHE=DIR   agent cache folder (default <repo>/.cache/agents)
// Transcripts of every run (captures format) land in .cache/interop-logs/.
import { afterAll, beforeAll, describe, test } from "vitest";
import { AGENTS, agentDir, installAll, isInstalled, registryReachable } from "./install-agents.mjs";
import { KNOWN_OUTBOUND } from "./agents.mjs";
import {
  BROKER_MAIN,
  EDIT_CONTENT,
  LOG_DIR,
  SHELL_CONTENT,
  brokerAvailable,
  describeResult,
  runScenario,
} from "./harness.mjs";

type AgentName = "claude-code-acp" | "gemini-cli" | "codex-acp" | "claude-agent-acp" | "qwen-code";
type Decision = "allow" | "deny";
type Mode = "direct" | "broker";

const INSTALL_TIMEOUT_MS = 10 * 60_000;
/** per test, including the wait for a concurrency slot */
const SCENARIO_TIMEOUT_MS = 180_000;
/** how long the broker may take to shut itself (and the agent) down after stdin EOF */
const BROKER_SHUTDOWN_MS = 10_000;
/** scenarios of one agent run this many at a time (1 = one after the other) */
const CONCURRENCY = Math.max(1, Number(process.env.ACP_INTEROP_CONCURRENCY ?? 1) || 1);

const ALL_AGENTS = Object.keys(AGENTS) as AgentName[];
const agents = (process.env.ACP_INTEROP_AGENTS?.split(",").map((s) => s.trim()).filter(Boolean) ?? ALL_AGENTS) as AgentName[];
const modes = (process.env.ACP_INTEROP_MODES?.split(",").map((s) => s.trim()).filter(Boolean) ?? ["direct", "broker"]) as Mode[];

/** What each agent answers the prompt with, once its tool call was allowed / refused (verified). */
const EXPECTED_STOP_REASON: Record<AgentName, Record<Decision, string>> = {
  "claude-code-acp": { allow: "end_turn", deny: "end_turn" },
  "gemini-cli": { allow: "end_turn", deny: "end_turn" },
  // codex-acp 0.16 offers no plain "denied" for these requests; its reject_once option is "abort",
  // which ends the turn.
  "codex-acp": { allow: "end_turn", deny: "cancelled" },
  "claude-agent-acp": { allow: "end_turn", deny: "end_turn" },
  "qwen-code": { allow: "end_turn", deny: "end_turn" },
};

/** The optionIds these agent versions offer with kind allow_once / reject_once (see captures). */
const EXPECTED_OPTION_ID: Record<AgentName, Record<Decision, string>> = {
  "claude-code-acp": { allow: "allow", deny: "reject" },
  "gemini-cli": { allow: "proceed_once", deny: "cancel" },
  "codex-acp": { allow: "approved", deny: "abort" },
  "claude-agent-acp": { allow: "allow", deny: "reject" },
  "qwen-code": { allow: "proceed_once", deny: "cancel" },
};

const EXPECTED_KIND: Record<"shell" | "edit", string> = { shell: "execute", edit: "edit" };

/**
 * The tool's own name, where an agent sends one: claude-agent-acp in the `tool_call` notification's
 * `_meta.claudeCode.toolName` (not in the permission request itself), qwen-code in the permission
 * request's `toolCall._meta.toolName`. The broker's audit shows it (`tool`) for the claude agents.
 */
const WIRE_TOOL_NAME: Partial<Record<AgentName, Record<"shell" | "edit", string>>> = {
  "claude-agent-acp": { shell: "Bash", edit: "Write" },
  "qwen-code": { shell: "run_shell_command", edit: "write_file" },
};
const AUDIT_SHOWS_TOOL_NAME: AgentName[] = ["claude-agent-acp"];


let setupProblem: string | null = null;
const summary: { name: string; stopReason: string | null; setupMs?: number; turnMs?: number; closeMs?: number; selfExitMs: number | null; groupGoneAfterMs: number | null }[] = [];

afterAll(() => {
  if (summary.length === 0) return;
  const rows = summary.map(
    (s) =>
      `  ${s.name.padEnd(40)} ${String(s.stopReason).padEnd(10)} turn ${String(s.turnMs).padStart(6)} ms   close ${String(s.closeMs).padStart(5)} ms${s.selfExitMs != null ? `   (broker exited by itself ${s.selfExitMs} ms after stdin EOF; its process group was empty ${s.groupGoneAfterMs} ms later)` : ""}`,
  );
  console.log(["interop scenarios (turn = spawn → initialize → session/new → prompt done):", ...rows].join("\n"));
});

/** A FIFO semaphore: at most `n` scenarios (agent processes) at once. */
function limiter(n: number) {
  let active = 0;
  const queue: (() => void)[] = [];
  return async function run<T>(fn: () => Promise<T>): Promise<T> {
    if (active >= n) await new Promise<void>((resolve) => queue.push(resolve));
    else active++;
    try {
      return await fn();
    } finally {
      const next = queue.shift();
      if (next) next();
      else active--;
    }
  };
}
const slot = limiter(CONCURRENCY);

function banner(lines: string[]): void {
  const bar = "!".repeat(88);
  console.warn(["", bar, ...lines.map((l) => `!!  ${l}`), bar, ""].join("\n"));
}

beforeAll(async () => {
  const missing = agents.filter((n) => !isInstalled(n));
  if (missing.length > 0) {
    if (!(await registryReachable())) {
      setupProblem = `npm registry unreachable; cannot install ${missing.join(", ")}`;
    } else {
      try {
        await installAll(missing, { log: (s: string) => console.warn(s) });
      } catch (err: any) {
        if (err?.code !== "REGISTRY_UNREACHABLE") throw err;
        setupProblem = `npm registry unreachable while installing: ${String(err.message).split("\n")[0]}`;
      }
    }
  }
  if (setupProblem) {
    banner([
      "ACP INTEROP TESTS SKIPPED — the real agents could not be installed.",
      setupProblem,
      `Cache folder: ${agentDir(agents[0] ?? "claude-code-acp")} (and siblings)`,
      "Run `node test/interop/install-agents.mjs` with registry access, then re-run.",
      "These tests did NOT run: do not read this as a pass.",
    ]);
  }
  if (modes.includes("broker") && !brokerAvailable()) {
    banner([
      `BROKER SCENARIOS SKIPPED — ${BROKER_MAIN} does not exist.`,
      "Run `npm run build` first; only the direct (no broker) scenarios ran.",
    ]);
  }
}, INSTALL_TIMEOUT_MS);

for (const agent of agents) {
  describe(`${agent}@${AGENTS[agent].version}`, { timeout: SCENARIO_TIMEOUT_MS, concurrent: CONCURRENCY > 1 }, () => {
    for (const mode of modes) {
      for (const action of ["shell", "edit"] as const) {
        for (const decision of ["allow", "deny"] as const) {
          test(`${mode}: ${action} (${decision})`, async (ctx) => {
            const { expect } = ctx; // the test-local expect (tests may run concurrently)
            if (setupProblem) ctx.skip(`agents not installed: ${setupProblem}`);
            if (mode === "broker" && !brokerAvailable()) ctx.skip(`broker not built (${BROKER_MAIN} missing; run npm run build)`);

            // One scenario per agent also checks the broker's own shutdown: on stdin EOF it must
            // close the agent's stdin, wait its grace period, terminate it, and exit — by itself.
            const checkShutdown = mode === "broker" && action === "shell" && decision === "allow";
            const r = await slot(() =>
              runScenario({ agent, action, decision, mode, timeoutMs: 60_000, gracefulShutdownMs: checkShutdown ? BROKER_SHUTDOWN_MS : undefined }),
            );
            const info = `\n${describeResult(r)}\n(all logs: ${LOG_DIR})`;
            summary.push({
              name: `${agent} ${mode} ${action} ${decision}`,
              stopReason: r.stopReason,
              ...r.timings,
              selfExitMs: checkShutdown && r.closeInfo?.selfExit ? r.closeInfo.exitAfterMs : null,
              groupGoneAfterMs: r.closeInfo?.groupGoneAfterMs ?? null,
            });

            // the conversation itself
            expect(r.error, info).toBeNull();
            expect(r.protocolErrors, info).toEqual([]);
            expect(r.unexpected, info).toEqual([]); // broker mode: includes forwarded permission requests
            expect(r.orphans, `processes survived the shutdown${info}`).toEqual([]);
            expect(r.fakeUnknown, info).toEqual([]);
            for (const o of r.fakeOutbound) expect(KNOWN_OUTBOUND[agent], `unexpected outbound attempt ${o.method} ${o.target}${info}`).toContain(o.target);
            expect(r.callIds.length, `the fake model never handed out the tool call${info}`).toBe(1);
            const callId = r.callIds[0];
            expect(r.stopReason, info).toBe(EXPECTED_STOP_REASON[agent][decision]);

            // the file on disk
            if (decision === "allow") {
              expect(r.fileExists, info).toBe(true);
              expect(r.fileContent, info).toBe(action === "shell" ? SHELL_CONTENT : EDIT_CONTENT);
            } else {
              expect(r.fileExists, info).toBe(false);
            }

            // the agent's own account of the tool call
            const call = r.toolCalls.find((c: any) => String(c.toolCallId).includes(callId));
            if (decision === "allow") {
              expect(call?.statuses ?? [], info).toContain("completed");
            } else {
              expect(call?.statuses ?? [], info).not.toContain("completed");
            }

            if (mode === "direct") {
              // exactly one permission request, for the fake model's tool call, answered by kind
              expect(r.permissionRequests.length, info).toBe(1);
              const req = r.permissionRequests[0];
              expect(String(req.toolCall?.toolCallId), info).toContain(callId);
              const kinds = (req.options ?? []).map((o: any) => o.kind);
              expect(kinds, info).toContain("allow_once");
              expect(kinds, info).toContain("reject_once");
              const kindOf = Object.fromEntries((req.options ?? []).map((o: any) => [o.optionId, o.kind]));
              const answer = r.permissionAnswers[0]?.outcome;
              expect(answer?.outcome, info).toBe("selected");
              expect(kindOf[answer?.optionId], info).toBe(decision === "allow" ? "allow_once" : "reject_once");
              expect(answer?.optionId, info).toBe(EXPECTED_OPTION_ID[agent][decision]);
              // what kind the agent reports (in the request or in a preceding/following update)
              const reportedKind = req.toolCall?.kind ?? call?.kind;
              expect(reportedKind, info).toBe(EXPECTED_KIND[action]);
              const wireTool = WIRE_TOOL_NAME[agent];
              if (wireTool) {
                const sent = req.toolCall?._meta?.toolName ?? req.toolCall?._meta?.claudeCode?.toolName ?? call?._meta?.claudeCode?.toolName;
                expect(sent, info).toBe(wireTool[action]);
              }
            } else {
              // the broker answered; the audit log says how
              expect(r.permissionRequests.length, `broker forwarded a permission request in non-interactive mode${info}`).toBe(0);
              expect(r.auditError, info).toBeNull();
              for (const line of r.audit) expect(line?.v, `audit line without v:1${info}`).toBe(1);
              // one tool call, one permission request → exactly one decision, and nothing else to report
              const events = r.audit.filter((e: any) => String(e.toolCallId ?? "").includes(callId));
              expect(events.length, `expected one audit event for tool call ${callId}${info}`).toBe(1);
              const problems = r.audit.filter((e: any) => e.event === "problem" || e.event === "unprompted");
              expect(problems, info).toEqual([]);
              const e = events[0];
              if (e.event !== undefined) expect(e.event, info).toBe("decision");
              expect(e.decision, info).toBe(decision);
              if (e.kind !== undefined) expect(e.kind, info).toBe(EXPECTED_KIND[action]);
              if (e.outcome !== undefined) expect(e.outcome, info).toBe(decision === "allow" ? "allowed" : "denied");
              // the answer the agent got: its allow_once / reject_once option
              if (e.optionId !== undefined) expect(e.optionId, info).toBe(EXPECTED_OPTION_ID[agent][decision]);
              if (e.source?.ruleId !== undefined) expect(e.source.ruleId, info).toBe(`${decision}-everything`);
              if (AUDIT_SHOWS_TOOL_NAME.includes(agent)) expect(e.tool, info).toBe(WIRE_TOOL_NAME[agent]?.[action]);
              if (checkShutdown) {
                expect(r.closeInfo?.selfExit, `broker did not exit within ${BROKER_SHUTDOWN_MS} ms of stdin EOF${info}`).toBe(true);
                // and nothing it started outlives it for long (the agent's own children included)
                expect(r.closeInfo?.groupGoneAfterMs, `agent processes still alive 5 s after the broker exited${info}`).not.toBeNull();
              }
            }
          });
        }
      }
    }
  });
}
