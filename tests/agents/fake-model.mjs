// A scripted model on 127.0.0.1 for the real-agent suite (no dependencies).
// Serves the Anthropic Messages API as SSE, Gemini's (stream)generateContent and OpenAI's
// Responses API as SSE (Codex CLI, Copilot CLI's OpenAI provider). The reply to a
// main-loop request (one that offers tools) is step N of the current script, N = the number of
// model turns already in the history, so the server keeps no turn state; after the last step it
// answers "done".
// Every tool result the agent sends back is recorded, to be judged by the runner.
// A step may carry `after` (a promise): the model holds that reply until it settles, so a runner
// can keep an agent alive, mid-turn, until another agent has acted; a step with `after` and no
// `tool` is the final "done", held. `until(model, test)` resolves once `test()` holds after a
// request has been served (a tool result recorded).
import fs from 'node:fs';
import http from 'node:http';

export function startModel() {
  const state = { script: [], results: [], watchers: [] };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      serve(req, res, body, state);
      watch(state);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ state, port: server.address().port, close: () => server.close() }));
  });
}

// Resolves once `test()` holds, checked now and after each request the model is sent.
export function until(model, test) {
  return new Promise((resolve) => {
    if (test()) resolve();
    else model.state.watchers.push({ test, resolve });
  });
}

function watch(state) {
  const met = state.watchers.filter((w) => w.test());
  state.watchers = state.watchers.filter((w) => !met.includes(w));
  for (const w of met) w.resolve();
}

// Step N of a script: a list's N-th entry, or what a function of N and the results so far
// gives (a model that answers what it was told, as bench/collisions.mjs drives its sessions).
function stepOf(script, step, state) {
  return typeof script === 'function' ? script(step, state.results) : script[step];
}

// `reply(call)` now, or once the step's `after` settles (a held step without a tool is "done").
function hold(call, reply) {
  if (call?.after) call.after.then(() => reply(call.tool ? call : undefined));
  else reply(call);
}

// One request, answered (or held: `hold`).
function serve(req, res, body, state) {
  let json = {};
  try {
    json = JSON.parse(body || '{}');
  } catch {}
  if (req.url.startsWith('/v1/messages/count_tokens')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ input_tokens: 10 }));
    return;
  }
  if (req.url.includes(':streamGenerateContent') || req.url.includes(':generateContent')) {
    gemini(req, res, json, state);
    return;
  }
  if (req.url.startsWith('/v1/responses')) {
    responses(res, json, state);
    return;
  }
  if (!req.url.startsWith('/v1/messages')) {
    if (process.env.RAIL_E2E_VERBOSE === '1') console.error(`fake model: no route for ${req.method} ${req.url}`);
    res.writeHead(404);
    res.end();
    return;
  }
  const messages = json.messages ?? [];
  const main = Array.isArray(json.tools) && json.tools.length > 0;
  if (main) record(state, messages);
  if (main && process.env.RAIL_E2E_DUMP) fs.appendFileSync(process.env.RAIL_E2E_DUMP, `${JSON.stringify(messages)}\n`);
  const step = main ? messages.filter((m) => m.role === 'assistant').length : -1;
  const { script, tag } = scriptOf(state, messages);
  const call = step >= 0 ? stepOf(script, step, state) : undefined;
  hold(call, (c) => anthropicStream(res, json.model, c, step, tag));
}

// The script of one conversation: `state.scripts` ([{ when, script }]) holds one per agent of a
// team or subagent, chosen by a text its first user message carries (the prompt it was given);
// any other conversation follows `state.script`. Its tag goes into its tool calls' ids
// (`toolu_s0step2`), so two conversations' calls are never one id (a recorded result, Rail's
// after-tool snapshot).
function scriptOf(state, messages) {
  const first = messages.find((m) => m.role === 'user');
  const text = typeof first?.content === 'string' ? first.content : (first?.content ?? []).map((p) => p.text ?? '').join('\n');
  const i = (state.scripts ?? []).findIndex((s) => text.includes(s.when));
  return i >= 0 ? { script: state.scripts[i].script, tag: `s${i}` } : { script: state.script, tag: '' };
}

// Each tool result, with the text the agent sent after it before the model's next turn (in the
// same message or the next ones: Claude Code 2.1.332 sends what an after-tool hook said as a
// `system` text block right after the result): all of it is what the model reads of that call.
function record(state, messages) {
  messages.forEach((m, i) => {
    if (m.role !== 'user' || !Array.isArray(m.content)) return;
    const after = [];
    for (const n of messages.slice(i)) {
      if (n.role === 'assistant') break;
      if (typeof n.content === 'string') after.push(n.content);
      else if (Array.isArray(n.content)) for (const p of n.content) if (p.type === 'text') after.push(p.text ?? '');
    }
    const beside = after.filter((t) => !t.startsWith('<system-reminder>')).join('\n');
    for (const part of m.content) {
      if (part.type !== 'tool_result') continue;
      const body = Array.isArray(part.content) ? part.content.map((c) => c.text ?? '').join('') : String(part.content ?? '');
      const text = beside ? `${body}\n${beside}` : body;
      if (!state.results.some((r) => r.id === part.tool_use_id)) {
        state.results.push({ id: part.tool_use_id, text, isError: part.is_error === true });
      }
    }
  });
}

function anthropicStream(res, model, call, step, tag = '') {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  send('message_start', {
    message: {
      id: `msg_${step}_${Date.now()}`,
      type: 'message',
      role: 'assistant',
      model: model ?? 'claude-sonnet-4-5',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  });
  if (call) {
    send('content_block_start', {
      index: 0,
      content_block: { type: 'tool_use', id: `toolu_${tag}step${step}`, name: call.tool, input: {} },
    });
    send('content_block_delta', {
      index: 0,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.input) },
    });
  } else {
    send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'done' } });
  }
  send('content_block_stop', { index: 0 });
  send('message_delta', {
    delta: { stop_reason: call ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  send('message_stop', {});
  res.end();
}

// Gemini's generateContent / streamGenerateContent (alt=sse). A request offering tools is the
// main loop; side requests (routing, checks) get a short text.
function gemini(req, res, json, state) {
  const contents = json.contents ?? [];
  const main = Array.isArray(json.tools) && json.tools.some((t) => (t.functionDeclarations ?? []).length > 0);
  if (main) {
    for (const part of contents.filter((c) => c.role === 'user').flatMap((c) => c.parts ?? [])) {
      const fr = part.functionResponse;
      if (!fr) continue;
      const id = `${fr.id ?? fr.name}#${state.results.length}`;
      const text = JSON.stringify(fr.response ?? {});
      if (!state.results.some((r) => r.key === JSON.stringify(fr))) state.results.push({ id, key: JSON.stringify(fr), text });
    }
  }
  const step = main ? contents.filter((c) => c.role === 'model').length : -1;
  hold(step >= 0 ? stepOf(state.script, step, state) : undefined, (call) => geminiReply(req, res, main, call));
}

function geminiReply(req, res, main, call) {
  const part = call
    ? { functionCall: { name: call.tool, args: call.input } }
    : { text: main ? 'done' : '{"reasoning":"e2e","model_choice":"flash","next_speaker":"user"}' };
  const chunk = {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
  };
  if (req.url.includes(':streamGenerateContent')) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`data: ${JSON.stringify(chunk)}\n\n`);
  } else {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(chunk));
  }
}

// OpenAI's Responses API (`POST /v1/responses`, `stream: true`), as Codex CLI and Copilot CLI's
// OpenAI provider speak it. A step is a `function_call` (`input` an object, sent as JSON
// `arguments`) or, with `custom: true`, a freeform `custom_tool_call` (`input` the raw text, as
// Codex's apply_patch). The stream is the full one (created, in_progress, item added, argument
// deltas, item done, completed with its `output`): Copilot wants all of it, Codex accepts it.
function responses(res, json, state) {
  const input = Array.isArray(json.input) ? json.input : [];
  const main = Array.isArray(json.tools) && json.tools.length > 0;
  if (main) {
    for (const item of input) {
      if (item.type !== 'function_call_output' && item.type !== 'custom_tool_call_output') continue;
      if (state.results.some((r) => r.id === item.call_id)) continue;
      state.results.push({ id: item.call_id, text: outputText(item.output) });
    }
  }
  const step = main ? input.filter((i) => i.type === 'function_call' || i.type === 'custom_tool_call').length : -1;
  hold(step >= 0 ? stepOf(state.script, step, state) : undefined, (call) => responsesReply(res, json, step, call));
}

function responsesReply(res, json, step, call) {
  const id = `resp_${step}_${Date.now()}`;
  const base = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model: json.model ?? 'gpt-5.5' };
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let seq = 0;
  const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  send('response.created', { response: { ...base, status: 'in_progress', output: [] } });
  send('response.in_progress', { response: { ...base, status: 'in_progress', output: [] } });
  let item;
  if (call?.custom) {
    item = {
      id: `ctc_${step}`,
      type: 'custom_tool_call',
      status: 'completed',
      call_id: `call_step${step}`,
      name: call.tool,
      input: call.input,
    };
    send('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', input: '' } });
    send('response.custom_tool_call_input.delta', { output_index: 0, item_id: item.id, delta: item.input });
    send('response.custom_tool_call_input.done', { output_index: 0, item_id: item.id, input: item.input });
  } else if (call) {
    const args = JSON.stringify(call.input);
    item = { id: `fc_${step}`, type: 'function_call', status: 'completed', call_id: `call_step${step}`, name: call.tool, arguments: args };
    send('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', arguments: '' } });
    send('response.function_call_arguments.delta', { output_index: 0, item_id: item.id, delta: args });
    send('response.function_call_arguments.done', { output_index: 0, item_id: item.id, arguments: args });
  } else {
    const text = 'done';
    const part = { type: 'output_text', text, annotations: [] };
    item = { id: `msg_${step}`, type: 'message', status: 'completed', role: 'assistant', content: [part] };
    send('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
    send('response.content_part.added', { output_index: 0, item_id: item.id, content_index: 0, part: { ...part, text: '' } });
    send('response.output_text.delta', { output_index: 0, item_id: item.id, content_index: 0, delta: text });
    send('response.output_text.done', { output_index: 0, item_id: item.id, content_index: 0, text });
    send('response.content_part.done', { output_index: 0, item_id: item.id, content_index: 0, part });
  }
  send('response.output_item.done', { output_index: 0, item });
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  send('response.completed', { response: { ...base, status: 'completed', output: [item], usage } });
  res.end();
}

// A tool output as the agent sent it: a string, or a list of content items.
function outputText(output) {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((c) => c.text ?? '').join('');
  return JSON.stringify(output ?? '');
}
