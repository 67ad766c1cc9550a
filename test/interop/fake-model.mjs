// A scripted fake LLM server for the interop tests. One HTTP server on 127.0.0.1 that speaks
// the three vendor APIs the agents under test use:
//
//   Anthropic Messages     POST /v1/messages (stream or not), POST /v1/messages/count_tokens
//   Gemini (generativelanguage)
//                          POST /v1beta/models/<m>:streamGenerateContent?alt=sse,
//                          POST /v1beta/models/<m>:generateContent, POST …:countTokens
//   OpenAI Responses       POST /v1/responses (SSE), GET /v1/models
//   OpenAI Chat Completions POST /v1/chat/completions (SSE chunks with tool_calls, or one JSON)
//
// The script is one tool call, then text:
//   turn 1 (no tool result in the conversation yet): a short text + ONE tool call —
//           the shell command, or the file write, of the current script;
//   turn 2 (the conversation contains the tool's result, success or refusal): "Done." + end of turn.
//
// Which tool call? The script can be set for the whole server (`setScript`) and can be overridden
// per conversation by a marker in the user's prompt:  `fake-model-script: {"tool":"shell",…}`
// (JSON on one line). A script is {tool:"shell", command} or {tool:"edit", path, content}; `path`
// should be absolute (agents want absolute paths) — relative ones are resolved against `cwd` when
// the script has one.
//
// Side requests (title generation, next-speaker checks, routing, token counting, telemetry) are
// answered with harmless replies; anything unknown gets a 404 and is logged to stderr.
// The server listens on loopback only and is closed by the caller (`close()`).
import { createServer } from "node:http";
import { isAbsolute, join } from "node:path";

const DONE_TEXT = "Done.";
const PRELUDE_TEXT = "I'll do that now.";

/** @typedef {{tool:"shell", command:string, description?:string} | {tool:"edit", path:string, content:string, cwd?:string}} Script */

let idCounter = 0;
const nextId = (prefix) => `${prefix}${Date.now().toString(36)}${(idCounter++).toString(36)}`;

/**
 * @param {{script?: Script, log?: (line:string)=>void, verbose?: boolean, keepBodies?: boolean}} [opts]
 * @returns {Promise<{port:number, url:string, requests:any[], unknown:any[], outbound:any[], setScript:(s:Script)=>void, close:()=>Promise<void>}>}
 */
export async function startFakeModel(opts = {}) {
  let defaultScript = opts.script ?? { tool: "shell", command: "echo hello > out.txt" };
  const log = opts.log ?? ((line) => process.stderr.write(`[fake-model] ${line}\n`));
  const verbose = opts.verbose ?? !!process.env.FAKE_MODEL_VERBOSE;
  const keepBodies = opts.keepBodies ?? false;
  /** every request: {method, path, kind, reply, callId?} — callId = id of the tool call we answered with */
  const requests = [];
  const unknown = [];
  /** attempts to reach another host through us as a proxy */
  const outbound = [];
  const sockets = new Set();

  const server = createServer(async (req, res) => {
    let body = "";
    try {
      for await (const chunk of req) body += chunk;
    } catch {
      return;
    }
    let json = null;
    try {
      json = body ? JSON.parse(body) : null;
    } catch {
      /* not JSON */
    }
    if (/^[a-z]+:\/\//i.test(req.url ?? "")) {
      // absolute-URI request = used as a forward proxy for plain http: refuse
      outbound.push({ method: req.method, target: req.url });
      log(`blocked outbound ${req.method} ${req.url}`);
      res.writeHead(403, { "content-type": "text/plain", connection: "close" });
      res.end("outbound traffic blocked by the fake model");
      return;
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const entry = { method: req.method, path: url.pathname, query: url.search, kind: "unknown", reply: null };
    if (keepBodies) entry.body = json ?? body;
    requests.push(entry);
    if (verbose) log(`${req.method} ${url.pathname}${url.search} ${body.length}B ${body.slice(0, 20000)}`);
    try {
      const handled = route(req.method ?? "GET", url, json, res, entry, defaultScript);
      if (!handled) {
        unknown.push({ method: req.method, path: url.pathname + url.search, body: body.slice(0, 500) });
        log(`unknown request ${req.method} ${url.pathname}${url.search} (${body.length} bytes) -> 404`);
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "not found (fake model)", type: "not_found_error" } }));
      }
    } catch (err) {
      log(`error handling ${req.method} ${url.pathname}: ${err?.stack ?? err}`);
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(err), type: "api_error" } }));
    }
  });
  // The agents' HTTP(S)_PROXY points here too: anything that tries to leave the machine through
  // the proxy (CONNECT host:443, or an absolute-URI request) is refused and recorded.
  server.on("connect", (req, socket) => {
    outbound.push({ method: "CONNECT", target: req.url });
    log(`blocked outbound CONNECT ${req.url}`);
    socket.on("error", () => {});
    socket.end("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  // keep-alive sockets must not keep the process (or close()) hanging
  server.keepAliveTimeout = 1000;

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(undefined));
  });
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    unknown,
    outbound,
    setScript(s) {
      defaultScript = s;
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve(undefined));
        for (const s of sockets) s.destroy();
      });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// routing

function route(method, url, json, res, entry, defaultScript) {
  const p = url.pathname.replace(/\/+$/, "");
  if (method === "HEAD" || (method === "GET" && (p === "" || p === "/"))) {
    entry.kind = "probe";
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("fake model");
    return true;
  }
  // ---- Anthropic
  if (method === "POST" && /\/v1\/messages\/count_tokens$/.test(p)) {
    entry.kind = "anthropic.count_tokens";
    return sendJson(res, { input_tokens: estimateTokens(json) });
  }
  if (method === "POST" && /\/v1\/messages$/.test(p)) {
    entry.kind = "anthropic.messages";
    anthropicMessages(json ?? {}, res, entry, defaultScript);
    return true;
  }
  // ---- Gemini
  const g = /\/v1(?:beta|alpha|)\d*\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens|embedContent|batchEmbedContents)$/.exec(p);
  if (method === "POST" && g) {
    const [, model, op] = g;
    entry.kind = `gemini.${op}`;
    if (op === "countTokens") return sendJson(res, { totalTokens: estimateTokens(json) });
    if (op === "embedContent") return sendJson(res, { embedding: { values: [0, 0, 0] } });
    if (op === "batchEmbedContents") return sendJson(res, { embeddings: (json?.requests ?? []).map(() => ({ values: [0, 0, 0] })) });
    geminiGenerate(model, op === "streamGenerateContent", json ?? {}, res, entry, defaultScript);
    return true;
  }
  // ---- OpenAI
  if (method === "POST" && /\/v1\/responses$/.test(p)) {
    entry.kind = "openai.responses";
    openaiResponses(json ?? {}, res, entry, defaultScript);
    return true;
  }
  if (method === "POST" && /\/v1\/chat\/completions$/.test(p)) {
    entry.kind = "openai.chat";
    openaiChat(json ?? {}, res, entry, defaultScript);
    return true;
  }
  if (method === "GET" && /\/v1\/models$/.test(p)) {
    entry.kind = "openai.models";
    return sendJson(res, { object: "list", data: [{ id: "fake-model", object: "model", created: 0, owned_by: "fake" }], models: [] });
  }
  return false;
}

function sendJson(res, obj, status = 200) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(obj));
  return true;
}

function sseHeaders(res) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
}

function estimateTokens(json) {
  return Math.max(1, Math.ceil(JSON.stringify(json ?? "").length / 4));
}

// ---------------------------------------------------------------------------------------------
// script selection

const MARKER_RE = /fake-model-script:\s*(\{[^\n]*\})/;

/** Finds a script marker anywhere in the given texts; falls back to the server default. */
function scriptFrom(texts, defaultScript) {
  for (const t of texts) {
    const m = typeof t === "string" ? MARKER_RE.exec(t) : null;
    if (m) {
      try {
        return JSON.parse(m[1]);
      } catch {
        /* ignore */
      }
    }
  }
  return defaultScript;
}

function editPath(script) {
  if (isAbsolute(script.path) || !script.cwd) return script.path;
  return join(script.cwd, script.path);
}

/** All strings inside a JSON value (bounded). */
function allStrings(v, out = [], depth = 0) {
  if (depth > 12 || out.length > 5000) return out;
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) allStrings(x, out, depth + 1);
  else if (v && typeof v === "object") for (const x of Object.values(v)) allStrings(x, out, depth + 1);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages API

function anthropicMessages(body, res, entry, defaultScript) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const toolNames = (body.tools ?? []).map((t) => t?.name).filter(Boolean);
  const userTexts = messages.filter((m) => m.role === "user").flatMap((m) => allStrings(m.content));
  const script = scriptFrom(userTexts, defaultScript);
  const last = messages[messages.length - 1];
  const hasToolResult = messages.some((m) => m.role === "user" && Array.isArray(m.content) && m.content.some((b) => b?.type === "tool_result"));

  /** @type {any[]} content blocks of the reply */
  let content;
  let stopReason = "end_turn";
  // claude-code-acp offers its client-backed tools (mcp__acp__Bash, mcp__acp__Write) instead of the
  // built-in ones when the client offers terminal and fs (acp-broker exec does).
  const builtIn = script.tool === "shell" ? "Bash" : "Write";
  const wantTool = toolNames.includes(builtIn) ? builtIn : `mcp__acp__${builtIn}`;
  if (!hasToolResult && toolNames.includes(wantTool) && last?.role === "user") {
    const input =
      script.tool === "shell"
        ? { command: script.command, description: script.description ?? "Run the requested command",
          // mcp__acp__Bash requires its timeout (ms)
          ...(wantTool === builtIn ? {} : { timeout: 120000 }) }
        : { file_path: editPath(script), content: script.content };
    content = [
      { type: "text", text: PRELUDE_TEXT },
      { type: "tool_use", id: nextId("toolu_fake"), name: wantTool, input },
    ];
    stopReason = "tool_use";
    entry.reply = `tool_use ${wantTool}`;
    entry.callId = content[1].id;
  } else {
    // final turn, or a side request (title generation, summaries, …): plain text
    content = [{ type: "text", text: toolNames.length ? DONE_TEXT : sideText(body) }];
    entry.reply = toolNames.length ? "text Done." : "side text";
  }
  const model = body.model ?? "claude-fake";
  const msgId = nextId("msg_fake");
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  if (!body.stream) {
    return sendJson(res, { id: msgId, type: "message", role: "assistant", model, content, stop_reason: stopReason, stop_sequence: null, usage });
  }
  sseHeaders(res);
  const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  ev("message_start", {
    message: { id: msgId, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
  });
  content.forEach((block, index) => {
    if (block.type === "text") {
      ev("content_block_start", { index, content_block: { type: "text", text: "" } });
      ev("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
    } else {
      ev("content_block_start", { index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
      ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } });
    }
    ev("content_block_stop", { index });
  });
  ev("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } });
  ev("message_stop", {});
  res.end();
}

/** Reply for tool-less side requests. Claude Code asks for JSON in some of them (titles, topics). */
function sideText(body) {
  const sys = allStrings(body.system).join("\n");
  // Bash output path extraction (claude asks haiku which files a finished command read/modified)
  if (/<filepaths>/.test(sys)) return "<is_displaying_contents>\nfalse\n</is_displaying_contents>\n\n<filepaths>\n</filepaths>";
  if (/json/i.test(sys)) return JSON.stringify({ title: "Fake session", isNewTopic: false });
  return "Fake session";
}

// ---------------------------------------------------------------------------------------------
// Gemini generateContent / streamGenerateContent

function geminiGenerate(model, stream, body, res, entry, defaultScript) {
  const contents = Array.isArray(body.contents) ? body.contents : [];
  const decls = (body.tools ?? []).flatMap((t) => t?.functionDeclarations ?? []);
  const toolNames = decls.map((d) => d?.name).filter(Boolean);
  const userTexts = contents.filter((c) => c.role === "user").flatMap((c) => allStrings(c.parts));
  const script = scriptFrom(userTexts, defaultScript);
  const hasToolResult = contents.some((c) => (c.parts ?? []).some((part) => part?.functionResponse));
  const wantsJson = /json/i.test(body.generationConfig?.responseMimeType ?? "") || body.generationConfig?.responseSchema || body.generationConfig?.responseJsonSchema;

  let parts;
  const wantTool = script.tool === "shell" ? "run_shell_command" : "write_file";
  if (wantsJson) {
    // next-speaker check, model routing, loop detection, …: one JSON object that satisfies them
    parts = [
      {
        text: JSON.stringify({
          reasoning: "fake model",
          next_speaker: "user",
          model_choice: "flash",
          complexity_reasoning: "simple",
          complexity_score: 1,
          unproductive_state_analysis: "none",
          unproductive_state_confidence: 0,
        }),
      },
    ];
    entry.reply = "json";
  } else if (!hasToolResult && toolNames.includes(wantTool)) {
    const args =
      script.tool === "shell"
        ? { command: script.command, description: script.description ?? "Run the requested command" }
        : { file_path: editPath(script), content: script.content };
    parts = [{ functionCall: { id: nextId("fc_fake"), name: wantTool, args } }];
    entry.reply = `functionCall ${wantTool}`;
    entry.callId = parts[0].functionCall.id;
  } else {
    parts = [{ text: DONE_TEXT }];
    entry.reply = "text Done.";
  }
  const reply = {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: model,
    responseId: nextId("resp_fake"),
  };
  if (!stream) return sendJson(res, reply);
  sseHeaders(res);
  res.write(`data: ${JSON.stringify(reply)}\r\n\r\n`);
  res.end();
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses API (codex)

function openaiResponses(body, res, entry, defaultScript) {
  const input = Array.isArray(body.input) ? body.input : [];
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const userTexts = input.filter((i) => i?.role === "user").flatMap((i) => allStrings(i.content));
  const script = scriptFrom(userTexts, defaultScript);
  const hasToolResult = input.some((i) => /_call_output$/.test(i?.type ?? ""));
  const respId = nextId("resp_fake");
  let items;
  if (!hasToolResult && tools.length) {
    items = [openaiToolCall(script, tools)];
    entry.reply = `${items[0].type} ${items[0].name}`;
    entry.callId = items[0].call_id;
  } else {
    items = [
      { type: "message", id: nextId("msg_fake"), role: "assistant", status: "completed", content: [{ type: "output_text", text: DONE_TEXT, annotations: [] }] },
    ];
    entry.reply = "text Done.";
  }
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
  const response = { id: respId, object: "response", created_at: Math.floor(Date.now() / 1000), status: "in_progress", model: body.model ?? "fake", output: [] };
  if (body.stream === false) {
    return sendJson(res, { ...response, status: "completed", output: items, usage });
  }
  sseHeaders(res);
  let seq = 0;
  const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  ev("response.created", { response });
  items.forEach((item, output_index) => {
    ev("response.output_item.added", { output_index, item: { ...item, status: "in_progress" } });
    if (item.type === "message") {
      ev("response.output_text.delta", { item_id: item.id, output_index, content_index: 0, delta: DONE_TEXT });
    }
    ev("response.output_item.done", { output_index, item });
  });
  ev("response.completed", { response: { ...response, status: "completed", output: items, usage } });
  res.end();
}

/** Builds the function/custom tool call codex understands for the script, given the offered tools. */
function openaiToolCall(script, tools) {
  const byName = new Map(tools.map((t) => [t?.name ?? t?.type, t]));
  const call_id = nextId("call_fake");
  const id = nextId("fc_fake");
  if (script.tool === "shell") {
    if (byName.has("exec_command")) {
      // require_escalated: codex asks for approval (-> session/request_permission) and, once approved,
      // runs the command outside its sandbox (so it works with or without bubblewrap).
      const args = { cmd: script.command, sandbox_permissions: "require_escalated", justification: `${script.description ?? "Run the requested command"}?` };
      return { type: "function_call", id, call_id, name: "exec_command", arguments: JSON.stringify(args), status: "completed" };
    }
    const name = byName.has("shell_command") ? "shell_command" : "shell";
    const args = name === "shell_command" ? { command: script.command } : { command: ["bash", "-lc", script.command] };
    return { type: "function_call", id, call_id, name, arguments: JSON.stringify(args), status: "completed" };
  }
  // edit: an apply_patch that adds the file
  const path = editPath(script);
  const lines = script.content.replace(/\n$/, "").split("\n").map((l) => `+${l}`);
  const patch = ["*** Begin Patch", `*** Add File: ${path}`, ...lines, "*** End Patch", ""].join("\n");
  const ap = byName.get("apply_patch");
  if (ap && ap.type === "custom") return { type: "custom_tool_call", id, call_id, name: "apply_patch", input: patch, status: "completed" };
  if (ap) return { type: "function_call", id, call_id, name: "apply_patch", arguments: JSON.stringify({ input: patch }), status: "completed" };
  // no apply_patch tool offered: fall back to a shell heredoc through apply_patch
  const cmd = `apply_patch <<'EOF'\n${patch}EOF`;
  if (byName.has("exec_command")) return { type: "function_call", id, call_id, name: "exec_command", arguments: JSON.stringify({ cmd }), status: "completed" };
  return { type: "function_call", id, call_id, name: "shell", arguments: JSON.stringify({ command: ["bash", "-lc", cmd] }), status: "completed" };
}

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions API (qwen-code)

function openaiChat(body, res, entry, defaultScript) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const toolNames = (Array.isArray(body.tools) ? body.tools : []).map((t) => t?.function?.name).filter(Boolean);
  const userTexts = messages.filter((m) => m?.role === "user").flatMap((m) => allStrings(m.content));
  const script = scriptFrom(userTexts, defaultScript);
  const hasToolResult = messages.some((m) => m?.role === "tool");
  const wantTool = script.tool === "shell" ? "run_shell_command" : "write_file";
  /** @type {{content: string | null, toolCall: {id: string, name: string, arguments: string} | null}} */
  let reply;
  if (!hasToolResult && toolNames.includes(wantTool)) {
    const args =
      script.tool === "shell"
        ? { command: script.command, description: script.description ?? "Run the requested command", is_background: false }
        : { file_path: editPath(script), content: script.content };
    reply = { content: PRELUDE_TEXT, toolCall: { id: nextId("call_fake"), name: wantTool, arguments: JSON.stringify(args) } };
    entry.reply = `tool_calls ${wantTool}`;
    entry.callId = reply.toolCall.id;
  } else if (toolNames.length) {
    reply = { content: DONE_TEXT, toolCall: null };
    entry.reply = "text Done.";
  } else {
    // tool-less side request (next-speaker check, summaries, …)
    const wantsJson = /json/i.test(JSON.stringify(body.response_format ?? "")) || /json/i.test(allStrings(messages.filter((m) => m?.role === "system")).join("\n"));
    reply = { content: wantsJson ? JSON.stringify({ reasoning: "fake model", next_speaker: "user", title: "Fake session" }) : "Fake session", toolCall: null };
    entry.reply = wantsJson ? "json" : "side text";
  }
  const id = nextId("chatcmpl_fake");
  const created = Math.floor(Date.now() / 1000);
  const model = body.model ?? "fake";
  const finish = reply.toolCall ? "tool_calls" : "stop";
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  const toolCalls = reply.toolCall ? [{ id: reply.toolCall.id, type: "function", function: { name: reply.toolCall.name, arguments: reply.toolCall.arguments } }] : undefined;
  if (!body.stream) {
    const message = { role: "assistant", content: reply.content, ...(toolCalls ? { tool_calls: toolCalls } : {}) };
    return sendJson(res, { id, object: "chat.completion", created, model, choices: [{ index: 0, message, finish_reason: finish }], usage });
  }
  sseHeaders(res);
  const chunk = (choices, extra = {}) => res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices, ...extra })}\n\n`);
  chunk([{ index: 0, delta: { role: "assistant", content: reply.content }, finish_reason: null }]);
  if (toolCalls) chunk([{ index: 0, delta: { tool_calls: toolCalls.map((c, index) => ({ index, ...c })) }, finish_reason: null }]);
  chunk([{ index: 0, delta: {}, finish_reason: finish }]);
  if (body.stream_options?.include_usage) chunk([], { usage });
  res.write("data: [DONE]\n\n");
  res.end();
}

// Run standalone for manual experiments: node test/interop/fake-model.mjs
if (import.meta.url === `file://${process.argv[1]}`) {
  const fm = await startFakeModel({ verbose: true });
  console.log(fm.url);
  process.on("SIGINT", () => fm.close().then(() => process.exit(0)));
}
