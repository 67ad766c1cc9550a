// How each real agent is launched offline against the fake model.
//
// launchSpec(name, {fakeUrl, root}) prepares a private HOME (and the agent's config) under `root`
// and returns {command, args, env}. The env is built from scratch (PATH, locale, temp dirs, …)
// so that no credential or proxy setting of the machine leaks in, and every agent's telemetry /
// update checks are off: the only network peer is the fake model on 127.0.0.1.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AGENTS, agentDir, packageDir } from "./install-agents.mjs";

export const AGENT_NAMES = /** @type {const} */ (["claude-code-acp", "gemini-cli", "codex-acp", "claude-agent-acp", "qwen-code"]);

/** The claude CLI's switches for non-model traffic (shared by claude-code-acp and claude-agent-acp). */
const CLAUDE_QUIET_ENV = {
  // no telemetry, error reporting, auto-update, feedback surveys, or other non-model traffic
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_BUG_COMMAND: "1",
  DISABLE_NON_ESSENTIAL_MODEL_CALLS: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: "1",
  CLAUDE_CODE_DISABLE_TERMINAL_TITLE: "1",
  CLAUDE_CODE_ENABLE_TELEMETRY: "0",
};

/**
 * Agent→client requests outside ACP that an agent sends on its own (answered "method not found",
 * which the agent tolerates): qwen-code asks the client for prompts queued during the turn.
 */
export const EXTENSION_METHODS = {
  "qwen-code": ["craft/drainMidTurnQueue"],
};

/** Minimal, credential-free environment shared by all agents. */
function baseEnv(home, tmp) {
  const env = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    USER: process.env.USER ?? "root",
    LOGNAME: process.env.LOGNAME ?? process.env.USER ?? "root",
    SHELL: "/bin/bash",
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    TERM: "dumb",
    TMPDIR: tmp,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    NO_COLOR: "1",
    CI: "1",
    // npm/node noise off
    npm_config_update_notifier: "false",
  };
  return env;
}

function prepareDirs(root) {
  const home = join(root, "home");
  const tmp = join(root, "tmp");
  for (const d of [home, tmp, join(home, ".config"), join(home, ".cache")]) mkdirSync(d, { recursive: true });
  return { home, tmp };
}

/**
 * @param {string} name one of AGENT_NAMES
 * @param {{fakeUrl: string, root: string, approvalMode?: string | null}} o  root = a private temp folder
 *        for this run; approvalMode = qwen-code's `--approval-mode` (default `default`, where it asks;
 *        null = no flag: its own default, `auto`)
 * @returns {{command: string, args: string[], env: Record<string,string>}}
 */
export function launchSpec(name, { fakeUrl, root, approvalMode = "default" }) {
  const { home, tmp } = prepareDirs(root);
  const env = baseEnv(home, tmp);
  // Belt and braces: clients that honour proxy variables send any non-loopback traffic to the
  // fake model, which refuses it and records it (fake.outbound). Loopback stays direct.
  Object.assign(env, { HTTP_PROXY: fakeUrl, HTTPS_PROXY: fakeUrl, http_proxy: fakeUrl, https_proxy: fakeUrl, ALL_PROXY: fakeUrl });
  switch (name) {
    case "claude-code-acp": {
      const claudeDir = join(home, ".claude");
      mkdirSync(claudeDir, { recursive: true });
      Object.assign(env, {
        ANTHROPIC_BASE_URL: fakeUrl,
        ANTHROPIC_API_KEY: "sk-ant-fake-interop-key",
        CLAUDE_CONFIG_DIR: claudeDir,
        ...CLAUDE_QUIET_ENV,
        // IS_SANDBOX must NOT be set: as root, claude-code-acp passes
        // --allow-dangerously-skip-permissions when IS_SANDBOX is set, and the claude CLI then
        // exits ("cannot be used with root/sudo privileges") unless IS_SANDBOX is exactly "1".
      });
      return { command: process.execPath, args: [join(packageDir(name), AGENTS[name].bin)], env };
    }
    case "gemini-cli": {
      const geminiDir = join(home, ".gemini");
      mkdirSync(geminiDir, { recursive: true });
      writeFileSync(
        join(geminiDir, "settings.json"),
        JSON.stringify(
          {
            general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
            privacy: { usageStatisticsEnabled: false },
            telemetry: { enabled: false },
            security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
          },
          null,
          2,
        ),
      );
      Object.assign(env, {
        GEMINI_API_KEY: "fake-gemini-interop-key",
        GOOGLE_GEMINI_BASE_URL: fakeUrl,
        GEMINI_CLI_NO_RELAUNCH: "true",
        GEMINI_TELEMETRY_ENABLED: "false",
      });
      return { command: process.execPath, args: [join(packageDir(name), AGENTS[name].bin), "--acp"], env };
    }
    case "codex-acp": {
      const codexHome = join(home, ".codex");
      mkdirSync(codexHome, { recursive: true });
      Object.assign(env, { CODEX_HOME: codexHome, FAKE_OPENAI_KEY: "sk-fake-interop-key" });
      const args = [
        "-c", "model_provider=fake",
        "-c", `model_providers.fake={name="fake",base_url="${fakeUrl}/v1",wire_api="responses",env_key="FAKE_OPENAI_KEY",request_max_retries=0,stream_max_retries=0}`,
        "-c", 'model="gpt-5.4"',
      ];
      return { command: codexBinary(), args, env };
    }
    case "claude-agent-acp": {
      // Same CLI underneath (through @anthropic-ai/claude-agent-sdk), same switches. As root without
      // IS_SANDBOX it does not offer `bypassPermissions` (and must not be given IS_SANDBOX: see above).
      const claudeDir = join(home, ".claude");
      mkdirSync(claudeDir, { recursive: true });
      Object.assign(env, { ANTHROPIC_BASE_URL: fakeUrl, ANTHROPIC_API_KEY: "sk-ant-fake-interop-key", CLAUDE_CONFIG_DIR: claudeDir, ...CLAUDE_QUIET_ENV });
      return { command: process.execPath, args: [join(packageDir(name), AGENTS[name].bin)], env };
    }
    case "qwen-code": {
      const qwenDir = join(home, ".qwen");
      mkdirSync(qwenDir, { recursive: true });
      writeFileSync(
        join(qwenDir, "settings.json"),
        JSON.stringify(
          {
            general: { enableAutoUpdate: false },
            privacy: { usageStatisticsEnabled: false },
            telemetry: { enabled: false },
            security: { auth: { selectedType: "openai" } },
          },
          null,
          2,
        ),
      );
      Object.assign(env, {
        OPENAI_BASE_URL: `${fakeUrl}/v1`,
        OPENAI_API_KEY: "sk-fake-interop-key",
        OPENAI_MODEL: "fake-qwen",
        QWEN_HOME: qwenDir,
        QWEN_USAGE_STATISTICS_ENABLED: "false",
        QWEN_CODE_DISABLE_PRECONNECT: "1",
        QWEN_DISABLE_AUTO_TITLE: "1",
        QWEN_CODE_NO_RELAUNCH: "true",
      });
      // Sessions start in mode `auto` (qwen's own classifier approves) unless asked otherwise:
      // `approvalMode: "default"` makes it ask (session/request_permission) for every edit/execute.
      const args = [join(packageDir(name), AGENTS[name].bin), "--acp", "--auth-type", "openai"];
      if (approvalMode) args.push("--approval-mode", approvalMode);
      return { command: process.execPath, args, env };
    }
    default:
      throw new Error(`unknown agent ${name}`);
  }
}

/** The native codex-acp binary from the platform package (avoids the node wrapper's extra process). */
export function codexBinary() {
  const plat = `${process.platform === "win32" ? "win32" : process.platform}-${process.arch}`;
  const bin = join(agentDir("codex-acp"), "node_modules", "@zed-industries", `codex-acp-${plat}`, "bin", process.platform === "win32" ? "codex-acp.exe" : "codex-acp");
  if (existsSync(bin)) return bin;
  return join(packageDir("codex-acp"), AGENTS["codex-acp"].bin);
}

/**
 * Hosts an agent is known to try to reach despite every telemetry/update switch being off. The
 * agents' HTTP(S)_PROXY points at the fake model, which refuses these (nothing leaves the machine);
 * anything else showing up there fails the test so a new phone-home gets noticed.
 * claude 2.1.x (inside claude-code-acp 0.16.2) makes one startup HTTPS request to
 * api.anthropic.com that ignores DISABLE_TELEMETRY / CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC.
 * The claude CLI inside claude-agent-acp 0.23.1 fetches the official plugin marketplace's security
 * list from raw.githubusercontent.com on every start (headless plugin setup; no switch turns it off).
 *
 * @type {Record<string, string[]>}
 */
export const KNOWN_OUTBOUND = {
  "claude-code-acp": ["api.anthropic.com:443"],
  "gemini-cli": [],
  "codex-acp": [],
  "claude-agent-acp": ["api.anthropic.com:443", "raw.githubusercontent.com:443"],
  "qwen-code": [],
};
