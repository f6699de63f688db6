// The browser view: picks a source, opens the server-sent event stream of a run, and draws each
// frame (a snapshot of every tool call: status, argument rows, counters, result).
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

function drawCall(call) {
  const section = element("section", "call");
  section.dataset.status = call.status;
  section.dataset.id = call.id;
  const header = element("header");
  header.appendChild(element("span", "dim", "turn " + call.turn));
  header.appendChild(element("span", "name", call.name));
  if (call.block_type !== "tool_use") header.appendChild(element("span", "dim", "[" + call.block_type + "]"));
  header.appendChild(element("span", "dim", call.id));
  header.appendChild(element("span", "status", call.label));
  section.appendChild(header);
  section.appendChild(drawRows(call));
  if (call.excerpt) {
    const excerpt = element("div", "excerpt");
    excerpt.appendChild(document.createTextNode(call.excerpt[0]));
    excerpt.appendChild(element("mark", null, call.excerpt[1].slice(0, 1) || " "));
    excerpt.appendChild(document.createTextNode(call.excerpt[1].slice(1)));
    excerpt.title = "position " + call.position;
    section.appendChild(excerpt);
  }
  section.appendChild(element("div", "counts", call.deltas + " deltas · " + call.chars.toLocaleString() + " chars"));
  if (call.escaped) section.appendChild(element("div", "escaped", call.escaped));
  if (call.result) {
    const result = element("div", "result " + (call.result.is_error ? "error" : "ok"));
    result.textContent = (call.result.is_error ? "error: " : "result: ") + call.result.text;
    section.appendChild(result);
  }
  return section;
}

function draw(frame) {
  const c = frame.counters;
  $("counters").textContent =
    frame.title + " · turn " + frame.turn + " · " + c.events.toLocaleString() + " events · " +
    c.deltas.toLocaleString() + " deltas · " + c.chars.toLocaleString() + " chars · tooljson " +
    c.parse_ms.toFixed(1) + " ms · elapsed " + (c.elapsed_ms / 1000).toFixed(2) + " s";
  const calls = $("calls");
  calls.replaceChildren(...frame.calls.map(drawCall));
  $("text-title").textContent = frame.done ? "Final text" : "Model text";
  const thinking = !frame.done && frame.thinking_chars ? "(thinking: " + frame.thinking_chars + " characters) " : "";
  $("text").textContent = frame.done ? (frame.final_text || "") : thinking + frame.text;
  $("log").replaceChildren(...frame.log.map((line) => element("li", null, line)));
  const failure = $("failure");
  failure.hidden = !frame.failure;
  failure.textContent = frame.failure || "";
  failed = Boolean(frame.failure);
  $("escaped").hidden = !frame.escaped;
  $("escaped").textContent = frame.escaped ? "title, text and failure: " + frame.escaped : "";
}

function start(event) {
  if (event) event.preventDefault();
  if (current) current.close();
  $("calls").replaceChildren();
  $("failure").hidden = true;
  failed = false;
  const params = new URLSearchParams({ source: $("source").value, speed: $("speed").value || "0" });
  const stream = new EventSource("/api/run?" + params);
  current = stream;
  setState("running");
  let finished = false;
  runId = null;
  stream.addEventListener("run", (message) => { runId = JSON.parse(message.data).id; });
  stream.addEventListener("frame", (message) => draw(JSON.parse(message.data)));
  stream.addEventListener("failure", (message) => {
    const failure = $("failure");
    failure.hidden = false;
    failure.textContent = JSON.parse(message.data);
    setState("error");
    finished = true;
  });
  stream.addEventListener("done", () => {
    // Closing matters: an EventSource whose response ends would otherwise start the run again.
    stream.close();
    // A run that ended in a failure (a broken stream, say) is not "done": the badge says so too.
    if (!finished) setState(failed ? "error" : "done", failed ? "failed" : "done");
    finished = true;
  });
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
