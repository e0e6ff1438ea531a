// Remaind for OpenCode: durable context in the project's .context/ folder.
// Written by `remaind install opencode`; `remaind install opencode --uninstall` removes it.
// Every hook runs `remaind hook opencode <event>` with a JSON payload on stdin. Whatever goes
// wrong (no remaind on PATH, no .context/), the agent goes on: errors are swallowed here and
// kept in .context/logs/hook-errors.jsonl by remaind.
// Hooks used (https://opencode.ai/docs/plugins/): chat.message, tool.execute.before/after,
// experimental.chat.system.transform, experimental.session.compacting, and the event hook's
// session.idle, session.compacted and session.error.
import { spawnSync } from "node:child_process";

const REMAIND = process.env.REMAIND_BIN || "remaind";

function run(event, payload, directory) {
  try {
    const r = spawnSync(REMAIND, ["hook", "opencode", event], {
      input: JSON.stringify({ hook_event_name: event, ...payload }),
      cwd: directory,
      encoding: "utf8",
      timeout: 120000,
    });
    const out = (r.stdout || "").trim();
    return out.startsWith("{") ? JSON.parse(out) : null;
  } catch {
    return null;
  }
}

function contextOf(out) {
  const text = out && out.hookSpecificOutput && out.hookSpecificOutput.additionalContext;
  return typeof text === "string" && text.length > 0 ? text : null;
}

function textOf(parts) {
  return (parts || [])
    .filter((p) => p && p.type === "text" && !p.synthetic && typeof p.text === "string")
    .map((p) => p.text)
    .join("\n");
}

function modelOf(model) {
  return model && model.modelID ? `${model.providerID}/${model.modelID}` : undefined;
}

export const RemaindPlugin = async ({ client, directory }) => {
  const injected = new Set();
  const args = new Map();
  const base = (sessionID) => ({ session_id: sessionID || "", cwd: directory });

  async function lastAssistantText(sessionID) {
    try {
      const res = await client.session.messages({ path: { id: sessionID } });
      const list = (res && res.data) || [];
      for (let i = list.length - 1; i >= 0; i--) {
        if (list[i] && list[i].info && list[i].info.role === "assistant") {
          return textOf(list[i].parts);
        }
      }
    } catch {}
    return undefined;
  }

  return {
    "experimental.chat.system.transform": async (input, output) => {
      const id = input && input.sessionID;
      if (!id || injected.has(id)) return;
      injected.add(id);
      const text = contextOf(run("experimental.chat.system.transform", base(id), directory));
      if (text && output && Array.isArray(output.system)) output.system.push(text);
    },
    "chat.message": async (input, output) => {
      const prompt = textOf(output && output.parts);
      run("chat.message", { ...base(input.sessionID), prompt, model: modelOf(input.model) }, directory);
    },
    "tool.execute.before": async (input, output) => {
      args.set(input.callID, output && output.args);
    },
    "tool.execute.after": async (input, output) => {
      const toolInput = args.get(input.callID);
      args.delete(input.callID);
      const response = {
        title: output && output.title,
        output: output && output.output,
        metadata: output && output.metadata,
      };
      const call = {
        ...base(input.sessionID),
        tool_name: input.tool,
        tool_input: toolInput === undefined ? null : toolInput,
        tool_response: response,
      };
      run("tool.execute.after", call, directory);
    },
    "experimental.session.compacting": async (input, output) => {
      const text = contextOf(run("experimental.session.compacting", base(input.sessionID), directory));
      if (text && output && Array.isArray(output.context)) output.context.push(text);
    },
    event: async ({ event }) => {
      const p = (event && event.properties) || {};
      if (event.type === "session.idle") {
        const text = await lastAssistantText(p.sessionID);
        run("session.idle", { ...base(p.sessionID), last_assistant_message: text }, directory);
      } else if (event.type === "session.compacted") {
        run("session.compacted", base(p.sessionID), directory);
      } else if (event.type === "session.error") {
        run("session.error", { ...base(p.sessionID), error: p.error }, directory);
      }
    },
  };
};
