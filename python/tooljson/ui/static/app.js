// The browser view: picks a source, opens a run's stream, and draws it. The stream is the Vercel AI
// SDK's UI message stream (tooljson.protocols.ai_sdk): each call's start, deltas, stable previews
// and verdict, the model's text, the end; the view's own data-run part adds what the protocol has
// no part for (the counters, each call's tree marked row by row, where it broke, the loop's
// outcome, the log).
"use strict";

const $ = (id) => document.getElementById(id);
let current = null;
let runId = null;
let descriptions = {};
let failed = false;

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  // textContent only: everything shown comes from the stream and must never be read as HTML.
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function setState(state, label) {
  document.body.dataset.state = state;
  $("state").textContent = label || state;
}

async function loadSources() {
  const response = await fetch("/api/sources");
  const sources = await response.json();
  const select = $("source");
  if (sources.live) {
    // A proxy's page: its own traffic first, shown as it passes.
    const option = element("option", null, sources.live);
    option.value = "live";
    descriptions[option.value] = "Tool calls passing through the proxy, live";
    select.appendChild(option);
  }
  // The runs the server offers, under their group's heading, in the order it lists them.
  const groups = new Map();
  for (const source of sources.sources) {
    if (!groups.has(source.group)) {
      const group = element("optgroup");
      group.label = source.group;
      groups.set(source.group, group);
      select.appendChild(group);
    }
    const option = element("option", null, source.name);
    option.value = source.id;
    descriptions[option.value] = source.description;
    groups.get(source.group).appendChild(option);
  }
  const query = new URLSearchParams(location.search);
  const wanted = query.get("source");
  if (wanted && descriptions[wanted] !== undefined) select.value = wanted;
  if (query.get("speed") !== null) $("speed").value = query.get("speed");
  showDescription();
}

function showDescription() {
  $("description").textContent = descriptions[$("source").value] || "";
}

function keyLabel(key) {
  // An array position comes as a number, an object key as JSON text already.
  if (key === null || key === undefined) return null;
  if (typeof key === "number") return element("span", "index", "[" + key + "] ");
  return element("span", "key", key + ": ");
}

function drawRows(call) {
  const tree = element("div", "tree");
  if (call.hidden_rows) tree.appendChild(element("div", "row dim", "… " + call.hidden_rows + " rows above"));
  if (!call.rows.length) {
    tree.appendChild(element("div", "row dim", call.status === "streaming" ? "(no input yet)" : "(no input)"));
  }
  for (const row of call.rows) {
    const line = element("div", "row s-" + row.s);
    if (row.t === "{" || row.t === "[") line.classList.add("opening");
    line.appendChild(document.createTextNode("  ".repeat(row.d)));
    const key = keyLabel(row.k);
    if (key) line.appendChild(key);
    line.appendChild(element("span", "value", row.t));
    if (row.r !== undefined) {
      // Validation repaired this value: the model's value, then what the handler got.
      line.classList.add("repaired");
      line.appendChild(element("span", "arrow", " → "));
      line.appendChild(element("span", "after", row.r));
    }
    line.dataset.state = row.s;
    if (row.n !== undefined) line.dataset.length = row.n;
    tree.appendChild(line);
  }
  return tree;
}

// A lone surrogate (which JSON text may hold) is shown as its \uXXXX escape, as the server shows it.
const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
function shown(text) {
  return String(text).replace(LONE, (c) => "\\u" + c.charCodeAt(0).toString(16));
}

function compact(value, limit) {
  // A call's input on one line, its end kept when it is long (the end is where it grows).
  const text = shown(JSON.stringify(value));
  return text.length > limit ? "…" + text.slice(text.length - limit) : text;
}

// The run being shown: its calls by id, in the order they began, and what each part said of them.
let run = null;

function newRun() {
  return { calls: new Map(), text: "", frame: null, error: null, finish: null };
}

function callOf(id, name) {
  let call = run.calls.get(id);
  if (!call) {
    call = { id, name: name || "", text: "", input: undefined, verdict: null, frame: null };
    run.calls.set(id, call);
  }
  return call;
}

// One part of the AI SDK UI message stream (tooljson.protocols.ai_sdk), or the view's own data-run.
function readPart(part) {
  switch (part.type) {
    case "start":
      runId = part.messageId;
      break;
    case "start-step":
      run.text = "";
      break;
    case "text-delta":
      run.text += part.delta;
      break;
    case "tool-input-start":
      callOf(part.toolCallId, part.toolName);
      break;
    case "tool-input-delta":
      callOf(part.toolCallId).text += part.inputTextDelta;
      break;
    case "data-tool-input-preview":
      callOf(part.id).input = part.data.input;
      break;
    case "tool-input-available":
      Object.assign(callOf(part.toolCallId, part.toolName), { input: part.input, verdict: { ok: true } });
      break;
    case "tool-input-error":
      callOf(part.toolCallId, part.toolName).verdict = { ok: false, text: part.errorText };
      break;
    case "data-run":
      run.frame = part.data;
      for (const call of part.data.calls) {
        // The proxy's page has no parts of its own stream: its calls come with the frame.
        if (part.data.live) callOf(call.id, call.name).input = undefined;
        if (run.calls.has(call.id)) run.calls.get(call.id).frame = call;
      }
      break;
    case "error":
      run.error = part.errorText;
      break;
    case "finish":
      run.finish = part.finishReason;
      break;
  }
}

function drawCall(call) {
  const frame = call.frame;
  const status = frame ? frame.status : call.verdict ? (call.verdict.ok ? "complete" : "error") : "streaming";
  const section = element("section", "call");
  section.dataset.status = status;
  section.dataset.id = call.id;
  const header = element("header");
  if (frame) header.appendChild(element("span", "dim", "turn " + frame.turn));
  header.appendChild(element("span", "name", shown(call.name)));
  if (frame && frame.block_type !== "tool_use") header.appendChild(element("span", "dim", "[" + frame.block_type + "]"));
  header.appendChild(element("span", "dim", shown(call.id)));
  header.appendChild(element("span", "status", frame ? frame.label : status));
  section.appendChild(header);
  if (frame) section.appendChild(drawRows(frame));
  if (call.input !== undefined) {
    // The stable preview the stream sent (data-tool-input-preview), then the input once available.
    const input = element("div", "input", compact(call.input, 200));
    input.dataset.final = call.verdict && call.verdict.ok ? "true" : "false";
    section.appendChild(input);
  }
  if (call.verdict && !call.verdict.ok) section.appendChild(element("div", "verdict", shown(call.verdict.text)));
  if (frame && frame.excerpt) {
    const excerpt = element("div", "excerpt");
    excerpt.appendChild(document.createTextNode(frame.excerpt[0]));
    excerpt.appendChild(element("mark", null, frame.excerpt[1].slice(0, 1) || " "));
    excerpt.appendChild(document.createTextNode(frame.excerpt[1].slice(1)));
    excerpt.title = "position " + frame.position;
    section.appendChild(excerpt);
  }
  const chars = frame ? frame.chars : call.text.length;
  const deltas = frame ? frame.deltas + " deltas · " : "";
  section.appendChild(element("div", "counts", deltas + chars.toLocaleString() + " chars"));
  if (frame && frame.escaped) section.appendChild(element("div", "escaped", frame.escaped));
  if (frame && frame.result) {
    const result = element("div", "result " + (frame.result.is_error ? "error" : "ok"));
    result.textContent = (frame.result.is_error ? "error: " : "result: ") + frame.result.text;
    section.appendChild(result);
  }
  return section;
}

function draw() {
  const frame = run.frame;
  if (frame) {
    const c = frame.counters;
    $("counters").textContent =
      frame.title + " · turn " + frame.turn + " · " + c.events.toLocaleString() + " events · " +
      c.deltas.toLocaleString() + " deltas · " + c.chars.toLocaleString() + " chars · tooljson " +
      c.parse_ms.toFixed(1) + " ms · elapsed " + (c.elapsed_ms / 1000).toFixed(2) + " s";
    $("log").replaceChildren(...frame.log.map((line) => element("li", null, line)));
    $("escaped").hidden = !frame.escaped;
    $("escaped").textContent = frame.escaped ? "title, text and failure: " + frame.escaped : "";
  }
  $("calls").replaceChildren(...Array.from(run.calls.values()).map(drawCall));
  const done = Boolean(frame && frame.done);
  $("text-title").textContent = done ? "Final text" : "Model text";
  const thinking = !done && frame && frame.thinking_chars ? "(thinking: " + frame.thinking_chars + " characters) " : "";
  $("text").textContent = done ? (frame.final_text || "") : thinking + shown(frame && frame.live ? frame.text : run.text);
  const failure = (frame && frame.failure) || run.error;
  $("failure").hidden = !failure;
  $("failure").textContent = failure || "";
  failed = Boolean(failure);
}

let drawing = false;
function redraw() {
  // At most one drawing a display frame, however many parts came in it.
  if (drawing) return;
  drawing = true;
  requestAnimationFrame(() => {
    drawing = false;
    draw();
  });
}

function start(event) {
  if (event) event.preventDefault();
  if (current) current.close();
  $("calls").replaceChildren();
  $("failure").hidden = true;
  failed = false;
  run = newRun();
  const params = new URLSearchParams({ source: $("source").value, speed: $("speed").value || "0" });
  const stream = new EventSource("/api/run?" + params);
  current = stream;
  setState("running");
  let finished = false;
  runId = null;
  stream.onmessage = (message) => {
    if (message.data === "[DONE]") {
      // Closing matters: an EventSource whose response ends would otherwise start the run again.
      stream.close();
      finished = true;
      draw();
      // A run that ended in a failure (a broken stream, say) is not "done": the badge says so too.
      setState(failed ? "error" : "done", failed ? "failed" : "done");
      return;
    }
    readPart(JSON.parse(message.data));
    redraw();
  };
  stream.onerror = () => {
    if (finished) return;
    stream.close();
    if (runId === null) {
      // Refused before it started: the server plays a few runs at once (HTTP 429), or it stopped.
      $("failure").hidden = false;
      $("failure").textContent = "The server did not start the run: as many runs as it plays at once " +
        "are in progress, or it stopped. Try again when a run ends.";
      setState("error", "refused");
    } else {
      setState("error", "connection lost");
    }
  };
}

function changeSpeed() {
  // A run in progress takes the new pace at once; otherwise it applies to the next run.
  if (!runId || document.body.dataset.state !== "running") return;
  const params = new URLSearchParams({ speed: $("speed").value || "0" });
  fetch("/api/runs/" + runId + "/speed?" + params, { method: "POST" });
}

$("controls").addEventListener("submit", start);
$("speed").addEventListener("change", changeSpeed);
$("source").addEventListener("change", showDescription);
loadSources().then(() => {
  if (new URLSearchParams(location.search).get("autostart") !== null) start();
});
