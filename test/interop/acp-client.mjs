// A tiny raw NDJSON ACP client for the interop tests (no SDK: we want to see the wire as it is).
//
// It spawns a command (an agent, or the broker wrapping an agent) in its own process group,
// speaks JSON-RPC 2.0 over its stdin/stdout, records every message in a transcript shaped like
// /work/shared/acp/captures ({ts, dir, msg}), collects session/update notifications, and answers
// agent→client requests:
//   - session/request_permission: recorded; answered according to `permission`:
//       "allow"  → the offered option of kind allow_once (else allow_always)
//       "deny"   → the offered option of kind reject_once (else reject_always, else cancelled)
//       "cancel" → outcome cancelled
//       "never"  → never answered (an editor whose user is away: another channel must answer);
//                  the request and its JSON-RPC id are kept in `unanswered`
//       "unexpected" → recorded as a failure and answered with reject (used in broker mode: a
//                      non-interactive broker must never forward a permission request)
//   - an agent's own extension methods named in `extensionMethods` (qwen-code's
//     `craft/drainMidTurnQueue`): JSON-RPC error -32601, recorded in `extensionRequests`;
//   - anything else (fs/*, terminal/* — not advertised): JSON-RPC error -32601, recorded in `unexpected`.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";

const STDERR_TAIL = 64 * 1024;

export class AcpClient {
  /**
   * @param {{command:string, args?:string[], env?:Record<string,string>, cwd?:string,
   *          permission?: "allow"|"deny"|"cancel"|"unexpected"|"never", name?: string, echoStderr?: boolean,
   *          extensionMethods?: string[]}} opts
   */
  constructor(opts) {
    this.opts = { args: [], permission: "deny", extensionMethods: [], ...opts };
    this.extensionRequests = [];
    this.transcript = [];
    this.updates = [];
    this.permissionRequests = [];
    /** permission answers we sent: {request, outcome} */
    this.permissionAnswers = [];
    /** permission requests left unanswered ("never"): {id, params} */
    this.unanswered = [];
    /** `$/cancel_request` notifications received: their params ({requestId}) */
    this.cancelRequests = [];
    this.unexpected = [];
    this.protocolErrors = [];
    this.stderr = "";
    this.exit = null;
    this.nextId = 0;
    this.pending = new Map();
    this.child = null;
    this.exited = null;
    this.closeInfo = null;
    this.closed = false;
  }

  note(msg) {
    this.transcript.push({ ts: new Date().toISOString(), dir: "note", msg });
  }

  start() {
    const { command, args, env, cwd } = this.opts;
    const child = spawn(command, args, { env, cwd, stdio: ["pipe", "pipe", "pipe"], detached: true });
    this.child = child;
    this.exited = new Promise((resolve) => {
      child.on("exit", (code, signal) => {
        this.exit = { code, signal };
        this.note({ event: "agent-exit", code, sig: signal });
        resolve(this.exit);
        for (const [, p] of this.pending) p.reject(new Error(`agent exited (code ${code}, signal ${signal}) while waiting for ${p.method}\n--- stderr tail ---\n${this.stderrTail(3000)}`));
        this.pending.clear();
      });
    });
    child.on("error", (err) => {
      this.protocolErrors.push(`spawn error: ${err.message}`);
      this.note({ event: "spawn-error", message: err.message });
    });
    child.stdin.on("error", () => {}); // EPIPE after the agent died: reported through exit
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d) => {
      this.stderr = (this.stderr + d).slice(-STDERR_TAIL);
      if (this.opts.echoStderr) process.stderr.write(`[${this.opts.name ?? "agent"} stderr] ${d}`);
    });
    let buf = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl).replace(/\r$/, "");
        buf = buf.slice(nl + 1);
        if (line.trim()) this.onLine(line);
      }
    });
    return this;
  }

  stderrTail(n = 4000) {
    return this.stderr.slice(-n);
  }

  send(msg) {
    this.transcript.push({ ts: new Date().toISOString(), dir: "client->agent", msg });
    if (this.child && !this.child.stdin.destroyed && this.child.stdin.writable) this.child.stdin.write(JSON.stringify(msg) + "\n");
  }

  /** Sends a request; resolves with `result`, rejects on `error`, agent exit or timeout. */
  request(method, params, { timeoutMs = 60_000 } = {}) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`timeout after ${timeoutMs} ms waiting for ${method}\n--- stderr tail ---\n${this.stderrTail(3000)}`));
      }, timeoutMs);
      this.pending.set(id, {
        method,
        resolve: (r) => (clearTimeout(timer), resolve(r)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  notify(method, params) {
    this.send({ jsonrpc: "2.0", method, params });
  }

  onLine(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      this.protocolErrors.push(`non-JSON line on stdout: ${line.slice(0, 200)}`);
      this.note({ event: "non-json-stdout", line: line.slice(0, 2000) });
      return;
    }
    this.transcript.push({ ts: new Date().toISOString(), dir: "agent->client", msg });
    if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
      this.protocolErrors.push(`not a JSON-RPC object: ${line.slice(0, 200)}`);
      return;
    }
    const hasId = "id" in msg && msg.id !== undefined && msg.id !== null;
    if (typeof msg.method === "string" && hasId) return this.onRequest(msg);
    if (typeof msg.method === "string") {
      if (msg.method === "session/update") this.updates.push(msg.params);
      if (msg.method === "$/cancel_request") this.cancelRequests.push(msg.params);
      return;
    }
    if (hasId && this.pending.has(msg.id)) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.error) {
        const e = new Error(`${p.method} failed: ${JSON.stringify(msg.error)}`);
        e.rpcError = msg.error;
        p.reject(e);
      } else p.resolve(msg.result);
      return;
    }
    this.protocolErrors.push(`response to unknown id ${JSON.stringify(msg.id)}`);
  }

  onRequest(msg) {
    if (msg.method === "session/request_permission") {
      this.permissionRequests.push(msg.params);
      const mode = this.opts.permission;
      if (mode === "never") {
        this.unanswered.push({ id: msg.id, params: msg.params });
        this.note({ event: "permission-unanswered", id: msg.id });
        return;
      }
      if (mode === "unexpected") this.unexpected.push({ method: msg.method, params: msg.params });
      const outcome = pickOutcome(msg.params?.options ?? [], mode === "unexpected" ? "deny" : mode);
      this.permissionAnswers.push({ toolCallId: msg.params?.toolCall?.toolCallId, outcome });
      this.note({ event: "permission-decision", choose: mode, outcome });
      this.send({ jsonrpc: "2.0", id: msg.id, result: { outcome } });
      return;
    }
    if (this.opts.extensionMethods.includes(msg.method)) this.extensionRequests.push({ method: msg.method, params: msg.params });
    else this.unexpected.push({ method: msg.method, params: msg.params });
    this.send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: `Method not found: ${msg.method}` } });
  }

  /**
   * Close stdin, give the process `graceMs` to exit by itself, then SIGTERM (then SIGKILL) its
   * whole process group. Sets `this.closeInfo = {selfExit, exitAfterMs}`: whether it exited on its
   * own after stdin EOF, and how long that took.
   */
  async close({ graceMs = 1000, termMs = 3000, lingerMs = 0 } = {}) {
    const child = this.child;
    if (!child || this.closed) return;
    this.closed = true;
    const t0 = Date.now();
    const alreadyExited = this.exit !== null;
    try {
      child.stdin.end();
    } catch {
      /* ignore */
    }
    const waitExit = (ms) => Promise.race([this.exited.then(() => true), new Promise((r) => setTimeout(() => r(false), ms).unref())]);
    if (this.exit === null) await waitExit(graceMs);
    this.closeInfo = { selfExit: this.exit !== null && !alreadyExited, exitAfterMs: this.exit !== null ? Date.now() - t0 : null, alreadyExited };
    const pgid = child.pid;
    const groupAlive = () => {
      try {
        process.kill(-pgid, 0);
        return true;
      } catch {
        return false;
      }
    };
    if (this.closeInfo.selfExit && lingerMs > 0) {
      // It exited by itself: do its descendants (same process group) go away by themselves too?
      const t1 = Date.now();
      while (groupAlive() && Date.now() - t1 < lingerMs) await new Promise((r) => setTimeout(r, 50));
      this.closeInfo.groupGoneAfterMs = groupAlive() ? null : Date.now() - t1;
    }
    const killGroup = (sig) => {
      try {
        process.kill(-pgid, sig);
      } catch {
        /* already gone */
      }
    };
    if (pgid && (this.exit === null || groupAlive())) {
      killGroup("SIGTERM");
      const deadline = Date.now() + termMs;
      while (Date.now() < deadline && (this.exit === null || groupAlive())) await new Promise((r) => setTimeout(r, 50));
      if (this.exit === null || groupAlive()) {
        this.note({ event: "sigkill" });
        killGroup("SIGKILL");
        await waitExit(2000);
      }
    }
    this.child.stdout.destroy();
    this.child.stderr.destroy();
  }

  writeTranscript(file) {
    writeFileSync(file, this.transcript.map((e) => JSON.stringify(e)).join("\n") + "\n");
  }
}

/** Chooses a permission outcome by option kind (never by hard-coded id). */
export function pickOutcome(options, mode) {
  const byKind = (...kinds) => {
    for (const k of kinds) {
      const o = options.find((opt) => opt?.kind === k);
      if (o) return o.optionId;
    }
    return undefined;
  };
  let optionId;
  if (mode === "allow") optionId = byKind("allow_once", "allow_always");
  else if (mode === "deny") optionId = byKind("reject_once", "reject_always");
  if (optionId === undefined) return { outcome: "cancelled" };
  return { outcome: "selected", optionId };
}

/**
 * Runs one prompt turn: initialize → session/new(cwd) → session/prompt(text).
 * Resolves with {init, session, stopReason, error}; never throws for agent-side failures
 * (they are returned in `error`) so the caller can still inspect the transcript.
 */
export async function runPromptTurn(client, { cwd, text, timeoutMs = 90_000 }) {
  const out = { init: null, session: null, stopReason: null, promptResult: null, error: null };
  try {
    out.init = await client.request(
      "initialize",
      {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: "acp-interop-harness", title: "ACP interop harness", version: "0.1.0" },
      },
      { timeoutMs },
    );
    out.session = await client.request("session/new", { cwd, mcpServers: [] }, { timeoutMs });
    client.note({ event: "prompt-start" });
    out.promptResult = await client.request("session/prompt", { sessionId: out.session.sessionId, prompt: [{ type: "text", text }] }, { timeoutMs });
    out.stopReason = out.promptResult?.stopReason ?? null;
    client.note({ event: "prompt-finished", stopReason: out.stopReason });
  } catch (err) {
    out.error = err;
    client.note({ event: "error", message: String(err?.message ?? err).slice(0, 2000) });
  }
  return out;
}
