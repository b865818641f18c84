// The llv box's page: everything through the JSON API under /api/v1/.
"use strict";
const API = "/api/v1/";
const $ = (id) => document.getElementById(id);
let token = sessionStorage.getItem("llv-token") || "";
let takes = [];
let frameCounts = {};
let lastStore = null;

function headers(extra) {
  const h = Object.assign({}, extra || {});
  if (token) h["Authorization"] = "Bearer " + token;
  return h;
}

// Calls the API; resolves to the JSON, rejects with {status, code, detail, field}.
async function api(method, path, body, type) {
  const init = { method, headers: headers(body ? { "Content-Type": type || "application/x-www-form-urlencoded" } : {}) };
  if (body) init.body = body;
  let r;
  try { r = await fetch(API + path, init); } catch (e) { throw { status: 0, detail: "the box does not answer" }; }
  const json = await r.json().catch(() => ({}));
  if (r.status === 401) askToken(json.error ? json.error.detail : "");
  if (!r.ok) throw Object.assign({ status: r.status }, json.error || { detail: r.statusText });
  return json;
}

function askToken(why) {
  $("token-box").hidden = false;
  $("token-error").textContent = token ? why : "";
}

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function bytes(n) {
  if (n >= 1073741824) return (n / 1073741824).toFixed(1) + " GiB";
  if (n >= 1048576) return (n / 1048576).toFixed(1) + " MiB";
  if (n >= 1024) return (n / 1024).toFixed(0) + " KiB";
  return n + " B";
}

function showStatus(info) {
  const s = info.status;
  $("token-box").hidden = true;
  // Another client added or deleted a take: the list is read again.
  const stored = s.used_bytes + "/" + (s.card ? s.card.takes : "");
  if (lastStore !== null && stored !== lastStore) loadTakes(false).catch(() => {});
  lastStore = stored;
  $("ident").textContent = [s.address || "no address yet", s.firmware, "protocol " + info.protocol, "API v" + info.api].join(" · ");
  const faults = $("faults");
  faults.replaceChildren(...s.faults.map((f) => el("li", f.code + ": " + f.detail)));
  $("faults-box").hidden = s.faults.length === 0;
  let store = "Flash: " + bytes(s.used_bytes) + " used, " + bytes(s.free_bytes) + " free.";
  if (s.card) store += " Card: " + (s.card.scanning ? "scanning…" : s.card.takes + " takes") + (s.card.bad_files ? ", " + s.card.bad_files + " unreadable files (" + s.card.bad.join(", ") + ")" : "") + ".";
  else store += " No card.";
  $("storage").textContent = store;
  const p = s.playing;
  const box = $("playing");
  if (!p) {
    box.replaceChildren(el("p", "Nothing plays.", "muted"));
  } else {
    const total = frameCounts[p.take];
    const dl = el("dl");
    const row = (k, v) => { dl.append(el("dt", k), el("dd", v)); };
    row("Take", p.take);
    row("Frame", (p.frame + 1) + (total ? " of " + total : ""));
    row("Loops done", String(p.loops_done));
    row("Late frames", p.late_frames + " (latest " + (p.max_late_us / 1000).toFixed(1) + " ms)");
    if (p.chase) row("Chase", p.chase + (p.timecode ? ", timecode " + p.timecode : "") + ", " + p.locates + " locates");
    for (const t of p.targets) row("To " + t.target, t.sent + " sent, " + t.dropped + " dropped");
    const bar = el("progress");
    bar.max = total || 1;
    bar.value = total ? p.frame + 1 : 0;
    box.replaceChildren(bar, dl);
  }
  $("stop").disabled = !p;
  showRelay(s.live);
  const l = s.last;
  $("last").textContent = l ? "Last: " + l.take + ", " + l.frames + " frames, " + l.late_frames + " late, " + l.dropped + " dropped, " + l.ended + "." : "";
}

// The live relay's state, while it runs.
function showRelay(r) {
  const words = { waiting: "waiting for the phone", live: "live", fallback: "on the idle take (the phone dropped)", returning: "returning to the phone" };
  $("relay").textContent = r
    ? "Relay: " + (words[r.state] || r.state) + " · " + (r.rate_mhz / 1000).toFixed(1) + " Hz from the phone, jitter " + (r.jitter_us / 1000).toFixed(1) + " ms · " +
      r.frames_in + " frames in, " + r.lost + " lost · " + r.fallbacks + " fallbacks, " + r.returns + " returns" + (r.recorded_bytes ? " · " + bytes(r.recorded_bytes) + " recorded" : "")
    : "Off.";
  $("relay").className = r ? "" : "muted";
  $("live-on").disabled = !!r;
  $("live-off").disabled = !r;
}

async function live(on) {
  $("live-error").textContent = "";
  try { await api("POST", "live/" + (on ? "on" : "off")); } catch (e) { $("live-error").textContent = e.detail; }
}

async function loadTakes(more) {
  const start = more ? takes.length : 0;
  // The reply is {"takes": [...], "total": N[, "next": N]}.
  const r = await api("GET", "takes?start=" + start);
  takes = more ? takes.concat(r.takes) : r.takes;
  renderTakes(r);
}

function renderTakes(r) {
  const body = $("takes").tBodies[0];
  body.replaceChildren();
  frameCounts = {};
  for (const t of takes) {
    frameCounts[t.name] = t.frames;
    const tr = el("tr");
    const play = el("button", "Play");
    play.onclick = () => playTake(t.name);
    play.dataset.take = t.name;
    const del = el("button", "Delete", "plain");
    del.onclick = () => deleteTake(t.name);
    const actions = el("td");
    actions.append(play, " ", del);
    const seconds = t.period_us / 1e6;
    const rate = seconds > 0 ? (t.frames / seconds).toFixed(1) + " Hz" : "-";
    tr.append(el("td", t.name), el("td", t.place === "internal" ? "flash" : t.place), el("td", String(t.frames)),
      el("td", duration(seconds)), el("td", rate), actions);
    body.append(tr);
  }
  if (takes.length === 0) {
    const tr = el("tr");
    const td = el("td", "No takes yet: add one below.", "muted");
    td.colSpan = 6;
    tr.append(td);
    body.append(tr);
  }
  $("more").hidden = r.next === undefined;
  $("takes-count").textContent = takes.length + " of " + r.total + " takes";
}

// "3.10 s", or "1:02:05.3" and "4:05.0" past a minute.
function duration(seconds) {
  if (seconds < 59.995) return seconds.toFixed(2) + " s";
  const tenths = Math.round(seconds * 10);
  const h = Math.floor(tenths / 36000), m = Math.floor(tenths / 600) % 60, s = ((tenths % 600) / 10).toFixed(1).padStart(4, "0");
  return (h > 0 ? h + ":" + String(m).padStart(2, "0") : String(m)) + ":" + s;
}

async function playTake(name) {
  $("play-error").textContent = "";
  const form = new URLSearchParams({ take: name, loops: $("loops").value || "1" });
  if ($("targets").value.trim()) form.set("targets", $("targets").value.trim());
  try { await api("POST", "play", form.toString()); } catch (e) { $("play-error").textContent = e.detail; }
}

async function deleteTake(name) {
  if (!confirm("Delete take " + name + "?")) return;
  try { await api("DELETE", "takes/" + encodeURIComponent(name)); } catch (e) { $("play-error").textContent = e.detail; }
  loadTakes(false).catch(() => {});
}

// Uploads the file as it is: the box checks it by the same upload contract as `llv flash`.
let chosen = null;
function choose(file) {
  chosen = file;
  $("up-name").value = file.name.replace(/\.[^.]*$/, "").slice(0, 32);
  $("upload").disabled = false;
  $("up-result").textContent = file.name + ", " + bytes(file.size);
  $("up-result").className = "";
}

function upload() {
  if (!chosen) return;
  const bar = $("up-progress");
  const result = $("up-result");
  const xhr = new XMLHttpRequest();
  xhr.open("PUT", API + "takes/" + encodeURIComponent($("up-name").value) + "?place=" + $("up-place").value);
  for (const [k, v] of Object.entries(headers({ "Content-Type": "application/octet-stream" }))) xhr.setRequestHeader(k, v);
  bar.hidden = false;
  bar.value = 0;
  $("upload").disabled = true;
  xhr.upload.onprogress = (e) => { if (e.lengthComputable) bar.value = e.loaded / e.total; };
  xhr.onload = () => {
    $("upload").disabled = false;
    let json = {};
    try { json = JSON.parse(xhr.responseText); } catch (e) {}
    if (xhr.status === 201) {
      bar.value = 1;
      result.textContent = "Uploaded " + $("up-name").value + ".";
      result.className = "ok";
      loadTakes(false).catch(() => {});
    } else {
      result.textContent = "Refused: " + (json.error ? json.error.detail : xhr.statusText);
      result.className = "error";
      if (xhr.status === 401) askToken(result.textContent);
    }
  };
  xhr.onerror = () => { $("upload").disabled = false; result.textContent = "The upload broke off."; result.className = "error"; };
  xhr.send(chosen);
}

const FIELDS = [
  ["name", "Name", "the box's name on the network (NAME.local), or none"],
  ["address", "Address", "IP/PREFIX[,GATEWAY], or dhcp"],
  ["targets", "Targets", "where takes play to: IPv4[:PORT],… or none"],
  ["token", "Token", "leave empty to keep it; none removes it"],
  ["autoplay", "Autoplay", "a take to play at power-up, or none"],
  ["autoplay-loops", "Autoplay loops", "0 plays forever"],
  ["subject", "Subject", "rename the subject in every frame, or none"],
  ["osc-port", "OSC port", "a port, or default (11114)"],
  ["reply-port", "OSC reply port", "a port, or none"],
  ["chase", "Chase", "own, HH:MM:SS:FF, or off"],
  ["chase-stream", "Chase stream", "0 to 255"],
  ["chase-freewheel", "Chase freewheel", "seconds, 0 to 3600"],
  ["chase-hold", "Chase hold", "on or off"],
];
let shown = {};

async function loadSettings() {
  const s = await api("GET", "settings");
  shown = s;
  const form = $("settings");
  form.replaceChildren();
  for (const [key, label, hint] of FIELDS) {
    const div = el("div", undefined, "field");
    const id = "set-" + key;
    const lab = el("label", label);
    lab.htmlFor = id;
    const input = el("input");
    input.id = id;
    input.name = key;
    if (key === "token") { input.type = "password"; input.placeholder = s.token_set ? "set" : "none"; }
    else input.value = s[key] === undefined ? "" : s[key];
    div.append(lab, input, el("span", "", "error"), el("span", hint, "hint"));
    div.lastChild.id = "hint-" + key;
    div.children[2].id = "err-" + key;
    form.append(div);
  }
  const save = el("button", "Save settings");
  const result = el("span", "", "");
  result.id = "settings-result";
  form.append(save, " ", result);
}

async function saveSettings(ev) {
  ev.preventDefault();
  const form = new URLSearchParams();
  for (const [key] of FIELDS) {
    const v = $("set-" + key).value.trim();
    $("err-" + key).textContent = "";
    if (key === "token" ? v !== "" : v !== String(shown[key] === undefined ? "" : shown[key]) && v !== "") form.append(key, v);
  }
  const result = $("settings-result");
  result.textContent = "";
  if ([...form.keys()].length === 0) { result.textContent = "Nothing changed."; result.className = "muted"; return; }
  try {
    await api("POST", "settings", form.toString());
    if (form.has("token")) { token = form.get("token") === "none" ? "" : form.get("token"); sessionStorage.setItem("llv-token", token); }
    result.textContent = "Saved.";
    result.className = "ok";
    await loadSettings();
    $("settings-result").textContent = "Saved.";
    $("settings-result").className = "ok";
  } catch (e) {
    const where = e.field && $("err-" + e.field);
    if (where) where.textContent = e.detail; else { result.textContent = e.detail; result.className = "error"; }
  }
}

// The status as Server-Sent Events, read through fetch so the token travels in its header.
async function watch() {
  for (;;) {
    try {
      const r = await fetch(API + "events", { headers: headers() });
      if (r.status === 401) { askToken(""); setLive(false); await sleep(1000); continue; }
      if (!r.ok) throw new Error(r.statusText);
      setLive(true);
      const reader = r.body.getReader();
      const text = new TextDecoder();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += text.decode(value, { stream: true });
        let at;
        while ((at = buf.indexOf("\n\n")) >= 0) {
          const event = buf.slice(0, at);
          buf = buf.slice(at + 2);
          const data = event.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
          if (!data) continue;
          const json = JSON.parse(data);
          if (json.status) showStatus(json);
          else if (json.error) askToken(json.error.detail);
        }
      }
    } catch (e) {}
    setLive(false);
    await sleep(1000);
  }
}

function setLive(on) {
  $("live").textContent = on ? "live" : "offline";
  $("live").className = on ? "on" : "off";
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Reads the settings and the takes, again a second later while it fails
// (the box's few HTTP connections may be busy a moment).
async function start() {
  for (;;) {
    try {
      const s = await api("GET", "settings");
      $("name").textContent = s.name && s.name !== "none" ? s.name : location.hostname;
      await loadTakes(false);
      await loadSettings();
      return;
    } catch (e) {
      if (e.status === 401) return;
      await sleep(1000);
    }
  }
}

$("token-form").onsubmit = (ev) => {
  ev.preventDefault();
  token = $("token").value;
  sessionStorage.setItem("llv-token", token);
  start();
};
$("stop").onclick = async () => {
  $("stop-error").textContent = "";
  try { await api("POST", "stop"); } catch (e) { $("stop-error").textContent = e.detail; }
};
$("more").onclick = () => loadTakes(true).catch(() => {});
$("live-on").onclick = () => live(true);
$("live-off").onclick = () => live(false);
$("settings").onsubmit = saveSettings;
$("upload").onclick = upload;
$("file").onchange = () => { if ($("file").files[0]) choose($("file").files[0]); };
const drop = $("drop");
drop.ondragover = (e) => { e.preventDefault(); drop.classList.add("over"); };
drop.ondragleave = () => drop.classList.remove("over");
drop.ondrop = (e) => { e.preventDefault(); drop.classList.remove("over"); if (e.dataTransfer.files[0]) choose(e.dataTransfer.files[0]); };
start();
watch();
